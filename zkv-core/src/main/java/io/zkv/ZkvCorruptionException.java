package io.zkv;

import org.rocksdb.Status;

/**
 * Stored data failed a check: RocksDB reported {@code Corruption}, or the zone file system's
 * superblock or metadata log is damaged (mount fails with a checksum or format error). zkv never
 * reformats a device that reports this.
 */
public class ZkvCorruptionException extends ZkvException {
  private static final long serialVersionUID = 1L;

  public ZkvCorruptionException(String message, Throwable cause) {
    super(message, cause);
  }

  ZkvCorruptionException(
      String message, Throwable cause, Status.Code code, Status.SubCode subCode) {
    super(message, cause, code, subCode);
  }
}
