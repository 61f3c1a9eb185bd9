package io.zkv;

import java.util.Optional;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * A zkv operation failed. The base of zkv's typed exceptions: {@link ZkvNoSpaceException}, {@link
 * ZkvCorruptionException} and {@link ZkvClosedException}.
 *
 * <p>Unchecked, deliberately: {@link ZkvIterator} is a {@link java.util.Iterator}, whose methods
 * cannot throw checked exceptions, and zkv is meant to be called from lambdas and from frameworks
 * (Kafka Streams reports store failures with unchecked exceptions too). The failures a caller can
 * act on have their own type and are caught by type ({@code catch (ZkvNoSpaceException e)}); the
 * others (I/O errors, corruption) are rarely recoverable where they occur. Every method documents
 * what it throws.
 *
 * <p>When RocksDB reported the failure, {@link #rocksCode()} and {@link #rocksSubCode()} give its
 * status and the {@link RocksDBException} is the cause.
 */
public class ZkvException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Status.Code code;
  private final Status.SubCode subCode;

  public ZkvException(String message) {
    this(message, null, null, null);
  }

  public ZkvException(String message, Throwable cause) {
    this(message, cause, null, null);
  }

  ZkvException(String message, Throwable cause, Status.Code code, Status.SubCode subCode) {
    super(message, cause);
    this.code = code;
    this.subCode = subCode;
  }

  /**
   * RocksDB drops the NoSpace subcode on some paths and keeps only the text: a writer stalled by a
   * write stop when the NoSpace background error arrives gets {@code Incomplete} with the error's
   * text, "IO error: No space left on device: ..." ({@code DBImpl::DelayWrite}), and a WAL that
   * cannot be completed at close gives an {@code IOError} "Close of log file failed with
   * error:close: No space left on device (ENOSPC): ..." ({@code DBImpl::CloseHelper}). The zone
   * file system's ENOSPC and RocksDB's NoSpace both say this.
   */
  private static boolean isNoSpace(String message) {
    return message != null && message.contains("No space left on device");
  }

  /** RocksDB's status code when RocksDB reported the failure. */
  public Optional<Status.Code> rocksCode() {
    return Optional.ofNullable(code);
  }

  /** RocksDB's status subcode when RocksDB reported the failure. */
  public Optional<Status.SubCode> rocksSubCode() {
    return Optional.ofNullable(subCode);
  }

  /**
   * The typed exception for a RocksDB failure: {@link ZkvNoSpaceException} for subcode {@code
   * NoSpace} (or a message saying "No space left on device", where RocksDB dropped the subcode),
   * {@link ZkvCorruptionException} for code {@code Corruption}, else a plain {@code ZkvException}.
   * The message is {@code context + ": " + RocksDB's message}.
   */
  public static ZkvException of(String context, RocksDBException e) {
    return typed(context + ": " + e.getMessage(), e);
  }

  /**
   * Like {@link #of}, with a message of its own: typed by {@code e}'s status, {@code e} the cause.
   */
  static ZkvException typed(String message, RocksDBException e) {
    Status s = e.getStatus();
    Status.Code code = s == null ? null : s.getCode();
    Status.SubCode sub = s == null ? null : s.getSubCode();
    if (sub == Status.SubCode.NoSpace || isNoSpace(e.getMessage())) {
      return new ZkvNoSpaceException(message, e, code, sub);
    }
    if (code == Status.Code.Corruption) {
      return new ZkvCorruptionException(message, e, code, sub);
    }
    return new ZkvException(message, e, code, sub);
  }
}
