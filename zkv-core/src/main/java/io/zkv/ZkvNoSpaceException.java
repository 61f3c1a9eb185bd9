package io.zkv;

import org.rocksdb.Status;

/**
 * The device is full: RocksDB reported an I/O error with subcode {@code NoSpace}.
 *
 * <p>What is already written stays readable; RocksDB stops accepting writes (its "hard error"
 * state). Free space (delete data with {@link ZkvDb#deleteFilesInRange}, or drop another database
 * on the same device), then call {@link ZkvDb#resume()}.
 */
public class ZkvNoSpaceException extends ZkvException {
  private static final long serialVersionUID = 1L;

  public ZkvNoSpaceException(String message) {
    super(message);
  }

  ZkvNoSpaceException(String message, Throwable cause, Status.Code code, Status.SubCode subCode) {
    super(message, cause, code, subCode);
  }
}
