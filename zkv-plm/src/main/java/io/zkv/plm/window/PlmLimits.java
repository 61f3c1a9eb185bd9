package io.zkv.plm.window;

/**
 * The device's window limits and the bandwidths the scheduler estimates drains with (Vigil-KV
 * profiles them per set; here one value for all sets).
 *
 * @param maxDtwinNanos longest a set may stay in DTWIN (the device's DTWIN Time Maximum; 60 s on
 *     the paper's SSD)
 * @param minNdwinNanos shortest NDWIN the device accepts (NDWIN Minimum; 4 s on the paper's SSD)
 * @param readBytesPerSecond a set's read bandwidth: UDT lasts about outstanding reads / this
 * @param worstWriteBytesPerSecond a set's worst write bandwidth: UND lasts about outstanding writes
 *     / this
 * @param lockdownBytesPerSecond the rate the device flushes the bytes written in NDWIN at on the
 *     way into DTWIN: the lockdown lasts about those bytes / this
 */
public record PlmLimits(
    long maxDtwinNanos,
    long minNdwinNanos,
    long readBytesPerSecond,
    long worstWriteBytesPerSecond,
    long lockdownBytesPerSecond) {

  /** Checks that every limit is positive and that one NDWIN fits in a DTWIN. */
  public PlmLimits {
    if (maxDtwinNanos <= 0
        || minNdwinNanos <= 0
        || readBytesPerSecond <= 0
        || worstWriteBytesPerSecond <= 0
        || lockdownBytesPerSecond <= 0) {
      throw new IllegalArgumentException("every PLM limit must be positive");
    }
    if (minNdwinNanos >= maxDtwinNanos) {
      throw new IllegalArgumentException(
          "minimum NDWIN " + minNdwinNanos + " ns is not below maximum DTWIN " + maxDtwinNanos);
    }
  }

  /** Nanoseconds to move {@code bytes} at {@code bytesPerSecond}, rounded up. */
  static long nanosFor(long bytes, long bytesPerSecond) {
    return bytes <= 0 ? 0 : (long) Math.ceil(bytes * 1e9 / bytesPerSecond);
  }

  long readDrainNanos(long bytes) {
    return nanosFor(bytes, readBytesPerSecond);
  }

  long writeDrainNanos(long bytes) {
    return nanosFor(bytes, worstWriteBytesPerSecond);
  }

  long lockdownNanos(long bytesWrittenInNdwin) {
    return nanosFor(bytesWrittenInNdwin, lockdownBytesPerSecond);
  }
}
