package io.zkv.wal;

/**
 * How the zone file system writes RocksDB's WAL files on one device (WAL zones are a device
 * resource, so these are per device, not per database). Today's WAL is ZenFS's: a sparse file whose
 * every write-out is one self-describing chunk (docs/formats/zone-fs.md). Immutable.
 *
 * <p>The buffer is the device bytes of one write-out, the chunk's 32-byte header included: a WAL
 * writes a chunk each time {@code buffer - 32} bytes have gathered (and at every sync). ZWAL's
 * paper compares WAL modes at equal buffers, from 4 KiB up to ZenFS's best case, 1 MiB.
 */
public final class WalOptions {
  /** The smallest buffer: one 4 KiB block. */
  public static final int MIN_BUFFER = 4096;

  /** The largest buffer, and the default: 1 MiB. */
  public static final int MAX_BUFFER = 1 << 20;

  /**
   * Buffers are a multiple of this (the smallest block a device has); the device's own block is
   * checked at mount.
   */
  public static final int BUFFER_UNIT = 512;

  private static final WalOptions DEFAULTS = new WalOptions(MAX_BUFFER);

  private final int bufferBytes;

  private WalOptions(int bufferBytes) {
    this.bufferBytes = bufferBytes;
  }

  /** A 1 MiB buffer. */
  public static WalOptions defaults() {
    return DEFAULTS;
  }

  /**
   * WAL write-outs of {@code bytes} on the device, header included.
   *
   * @throws IllegalArgumentException outside 4 KiB-1 MiB or not a multiple of 512 bytes, naming the
   *     range
   */
  public static WalOptions withBuffer(int bytes) {
    if (bytes < MIN_BUFFER || bytes > MAX_BUFFER || bytes % BUFFER_UNIT != 0) {
      throw new IllegalArgumentException(
          "WAL buffer "
              + bytes
              + " bytes: must be 4 KiB to 1 MiB ("
              + MIN_BUFFER
              + "-"
              + MAX_BUFFER
              + " bytes), a multiple of the device's block");
    }
    return new WalOptions(bytes);
  }

  /** The device bytes of one WAL write-out, its chunk header included. */
  public int bufferBytes() {
    return bufferBytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WalOptions w && w.bufferBytes == bufferBytes;
  }

  @Override
  public int hashCode() {
    return Integer.hashCode(bufferBytes);
  }

  @Override
  public String toString() {
    return "WalOptions[buffer=" + bufferBytes + "]";
  }
}
