package io.zkv.wal;

import java.util.Objects;

/**
 * How the zone file system writes RocksDB's WAL files on one device (WAL zones are a device
 * resource, so these are per device, not per database). Every write-out of a WAL is one
 * self-describing chunk (docs/formats/zone-fs.md), written as its {@link WalMode} says. Immutable.
 *
 * <p>The buffer is the device bytes of one write-out, the chunk's 32-byte header included: a WAL
 * writes a chunk each time {@code buffer - 32} bytes have gathered (and at every sync). ZWAL's
 * paper compares WAL modes at equal buffers, from 4 KiB up to ZenFS's best case, 1 MiB. In {@link
 * WalMode#ZWAL} mode up to {@code queueDepth} appends are in flight; every {@code barrier} bytes of
 * appends (default: a zone's capacity) all of them are waited for.
 *
 * <p>In both modes the file system keeps {@code reservedZones} empty zones ready for WAL files
 * (WALTZ's reservation, "+R"; default 2, as WALTZ: a memtable switch writes two WALs at once): a
 * background thread asks the placement policy for them off the put path, and a WAL whose zone has
 * less than {@code switchRoom} bytes left (default 0: 1% of the zone capacity) moves to one with no
 * policy call; the zone it left is finished in the background. 0 reserved zones is ZenFS's
 * behaviour: every WAL zone is the policy's answer on the put path. The active limit can lower the
 * count (docs/wal.md, "Reserved WAL zones").
 */
public final class WalOptions {
  /** The smallest buffer: one 4 KiB block. */
  public static final int MIN_BUFFER = 4096;

  /** The largest buffer, and the default: 1 MiB. */
  public static final int MAX_BUFFER = 1 << 20;

  /**
   * Buffers and barriers are a multiple of this (the smallest block a device has); the device's own
   * block is checked at mount.
   */
  public static final int BUFFER_UNIT = 512;

  /** The deepest append queue, and the default depth: 64 and 32. */
  public static final int MAX_QUEUE_DEPTH = 64;

  /** The default queue depth (the paper's). */
  public static final int DEFAULT_QUEUE_DEPTH = 32;

  /** The most zones kept for WAL files. */
  public static final int MAX_RESERVED_ZONES = 8;

  /** WAL zones kept by default: WALTZ's two. */
  public static final int DEFAULT_RESERVED_ZONES = 2;

  private static final WalOptions DEFAULTS = builder().build();

  private final WalMode mode;
  private final int bufferBytes;
  private final int queueDepth;
  private final long barrierBytes;
  private final int reservedZones;
  private final long switchRoom;

  private WalOptions(Builder b) {
    this.mode = b.mode;
    this.bufferBytes = b.bufferBytes;
    this.queueDepth = b.queueDepth;
    this.barrierBytes = b.barrierBytes;
    this.reservedZones = b.reservedZones;
    this.switchRoom = b.switchRoom;
  }

  /** FILE mode, a 1 MiB buffer, two reserved WAL zones. */
  public static WalOptions defaults() {
    return DEFAULTS;
  }

  /**
   * FILE mode with write-outs of {@code bytes} on the device, header included.
   *
   * @throws IllegalArgumentException outside 4 KiB-1 MiB or not a multiple of 512 bytes
   */
  public static WalOptions withBuffer(int bytes) {
    return builder().buffer(bytes).build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** How WAL write-outs go to the device. */
  public WalMode mode() {
    return mode;
  }

  /** The device bytes of one WAL write-out, its chunk header included. */
  public int bufferBytes() {
    return bufferBytes;
  }

  /** ZWAL: the most appends of one WAL in flight. */
  public int queueDepth() {
    return queueDepth;
  }

  /** ZWAL: bytes of appends after which all in flight are waited for; 0 for the zone capacity. */
  public long barrierBytes() {
    return barrierBytes;
  }

  /** Empty zones kept for WAL files (0: none, ZenFS's behaviour). */
  public int reservedZones() {
    return reservedZones;
  }

  /** Room under which a WAL moves to a reserved zone; 0 for 1% of the zone capacity. */
  public long switchRoom() {
    return switchRoom;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WalOptions w
        && w.mode == mode
        && w.bufferBytes == bufferBytes
        && w.queueDepth == queueDepth
        && w.barrierBytes == barrierBytes
        && w.reservedZones == reservedZones
        && w.switchRoom == switchRoom;
  }

  @Override
  public int hashCode() {
    return Objects.hash(mode, bufferBytes, queueDepth, barrierBytes, reservedZones, switchRoom);
  }

  @Override
  public String toString() {
    return "WalOptions[mode="
        + mode
        + ", buffer="
        + bufferBytes
        + (mode == WalMode.ZWAL
            ? ", queueDepth="
                + queueDepth
                + ", barrier="
                + (barrierBytes == 0 ? "zone" : Long.toString(barrierBytes))
            : "")
        + (reservedZones == DEFAULT_RESERVED_ZONES ? "" : ", reservedZones=" + reservedZones)
        + (switchRoom == 0 ? "" : ", switchRoom=" + switchRoom)
        + "]";
  }

  /** Builds {@link WalOptions}; every value is checked as it is set. */
  public static final class Builder {
    private WalMode mode = WalMode.FILE;
    private int bufferBytes = MAX_BUFFER;
    private int queueDepth = DEFAULT_QUEUE_DEPTH;
    private long barrierBytes;
    private int reservedZones = DEFAULT_RESERVED_ZONES;
    private long switchRoom;

    private Builder() {}

    /**
     * FILE (default) or ZWAL.
     *
     * @throws IllegalArgumentException for WALTZ, a database's own log, not a file system mode
     */
    public Builder mode(WalMode mode) {
      Objects.requireNonNull(mode, "mode must not be null");
      if (mode == WalMode.WALTZ) {
        throw new IllegalArgumentException(
            "WAL mode WALTZ is set per database (ZkvOptions.builder().walMode(WalMode.WALTZ)):"
                + " it replaces RocksDB's WAL files, whose mode this is (FILE or ZWAL)");
      }
      this.mode = mode;
      return this;
    }

    /**
     * The device bytes of one write-out, header included (both modes).
     *
     * @throws IllegalArgumentException outside 4 KiB-1 MiB or not a multiple of 512 bytes
     */
    public Builder buffer(int bytes) {
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
      this.bufferBytes = bytes;
      return this;
    }

    /**
     * ZWAL: the most appends of one WAL in flight, 1-64 (default 32).
     *
     * @throws IllegalArgumentException outside 1-64
     */
    public Builder queueDepth(int depth) {
      if (depth < 1 || depth > MAX_QUEUE_DEPTH) {
        throw new IllegalArgumentException(
            "WAL queue depth " + depth + ": must be 1 to " + MAX_QUEUE_DEPTH);
      }
      this.queueDepth = depth;
      return this;
    }

    /**
     * ZWAL: wait for every append in flight after this many bytes of appends; 0 (default) for a
     * zone's capacity. A multiple of the device's block (one block: every chunk waited for, the
     * paper's 4 KiB barrier), at most the zone capacity (checked at mount).
     *
     * @throws IllegalArgumentException if negative or not a multiple of 512 bytes
     */
    public Builder barrier(long bytes) {
      if (bytes < 0 || bytes % BUFFER_UNIT != 0) {
        throw new IllegalArgumentException(
            "WAL barrier "
                + bytes
                + " bytes: must be 0 (the zone capacity) or a multiple of the device's block");
      }
      this.barrierBytes = bytes;
      return this;
    }

    /**
     * Empty zones the file system keeps for WAL files, 0-8 (default 2; 0: none, every WAL zone is
     * the placement policy's answer on the put path, as ZenFS).
     *
     * @throws IllegalArgumentException outside 0-8
     */
    public Builder reservedZones(int zones) {
      if (zones < 0 || zones > MAX_RESERVED_ZONES) {
        throw new IllegalArgumentException(
            "reserved WAL zones " + zones + ": must be 0 to " + MAX_RESERVED_ZONES);
      }
      this.reservedZones = zones;
      return this;
    }

    /**
     * Room left in a WAL's zone under which it moves to a reserved zone; 0 (default) for 1% of the
     * zone capacity; rounded up to the device's block; at most the zone capacity (checked at
     * mount).
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder switchRoom(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException(
            "WAL switch room " + bytes + " bytes: must be 0 (1% of a zone) or more");
      }
      this.switchRoom = bytes;
      return this;
    }

    public WalOptions build() {
      return new WalOptions(this);
    }
  }
}
