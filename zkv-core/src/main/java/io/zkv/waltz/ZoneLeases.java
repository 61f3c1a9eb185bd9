package io.zkv.waltz;

import java.nio.ByteBuffer;

/**
 * Zones leased from the zone file system for one owner's appends (native {@code zonefs/lease.c};
 * docs/zone-fs.md, "Leased zones"): what WALTZ's log needs of it. Results are -errno on failure, as
 * the native calls give them; the log says what failed. {@link EnvZoneLeases} is the file system's;
 * tests may bring their own.
 */
public interface ZoneLeases {
  /** Leases an empty zone (recorded before it returns): its index, or -errno (-ENOSPC). */
  int lease();

  /** Returns and resets a leased zone: 0 or -errno. */
  int giveBack(int zone);

  /**
   * Returns every zone leased to this owner at once (one metadata record: after a crash all are
   * leased or none): 0 or -errno. Zones given back one by one must go in log order (oldest first);
   * a set without an order (recovery's, a close's) goes back whole.
   */
  int giveBackAll();

  /**
   * Returns the given zones at once (one metadata record: after a crash all are leased or none): 0
   * or -errno (none returned). For a set whose order is unknown (the zones a start replayed).
   */
  int giveBackSet(int[] zones);

  /**
   * Returns at once (one metadata record) every zone leased to this owner that has been written,
   * and every empty one beyond the first {@code keep}, which stay leased: how many empty zones
   * stay, or -errno (nothing returned). A set of written zones goes back whole, as in {@link
   * #giveBackAll}.
   */
  int giveBackKeepingEmpty(int keep);

  /** The zones leased to this owner now, ascending (after a crash: the log's). */
  int[] leased();

  /**
   * The key of a zone's lease (two longs): the lease's secret, which the log signs its parts with
   * ({@link WaltzRecordCodec#sign}); zeros for a lease recorded without one (a version 7 file
   * system's); null if the zone is not this owner's or cannot be read.
   */
  long[] key(int zone);

  /**
   * Gives a leased zone that nothing was appended to a new key: 0 or -errno (-ENOTEMPTY if it has
   * been written).
   */
  int renew(int zone);

  /**
   * Zone-appends {@code len} bytes of the direct buffer {@code buf} (from its position 0, whole
   * blocks), FUA, and waits: the offset in the zone where they landed, or -errno.
   */
  long append(int zone, ByteBuffer buf, int len);

  /** Whether an append's result says the zone had no room (Zone Is Full, Zone Boundary Error). */
  boolean isZoneFull(long result);

  /**
   * Reads {@code len} bytes at {@code offset} of a leased zone into the direct buffer: 0 or -errno.
   */
  int read(int zone, long offset, ByteBuffer buf, int len);

  /** Bytes written to a leased zone (the device's write pointer), or -errno. */
  long written(int zone);

  /** Finishes a leased zone: its active token is free, appends still in flight fail as full. */
  int finish(int zone);

  /** The device's block (the LBA size): records are padded to it. */
  int blockSize();

  /** The largest zone append, bytes (ZASL): a record's part is at most this. */
  int maxAppend();

  /** Writable bytes of a zone. */
  long zoneCapacity();
}
