package io.zkv.waltz;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.TreeMap;

/**
 * Leased zones in memory, for the log's unit tests: appends land at a zone's write pointer under a
 * lock (a device serialises them per zone); a zone is full at its capacity; finish fills it.
 */
final class MemoryZoneLeases implements ZoneLeases {
  static final long FULL = io.zkv.device.ZnsStatus.ZONE_IS_FULL.nativeCode();

  private final int block;
  private final int maxAppend;
  private final int capacity;
  private final int zoneCount;
  private final TreeMap<Integer, byte[]> data = new TreeMap<>();
  private final TreeMap<Integer, Integer> wp = new TreeMap<>();
  private final TreeMap<Integer, long[]> keys = new TreeMap<>();
  private final java.util.SplittableRandom random = new java.util.SplittableRandom(42);
  int leases;
  int returns;
  int finishes;
  volatile int failGiveBack = -1; // a zone whose give-back fails (an I/O error), -1 none
  final java.util.List<Integer> givenBack =
      new java.util.ArrayList<>(); // in order; guarded by this
  // zones in the order of their first append: the log's order with one writer; guarded by this
  final java.util.List<Integer> firstWritten = new java.util.ArrayList<>();

  MemoryZoneLeases(int block, int maxAppend, int capacity, int zoneCount) {
    this.block = block;
    this.maxAppend = maxAppend;
    this.capacity = capacity;
    this.zoneCount = zoneCount;
  }

  @Override
  public synchronized int lease() {
    for (int z = 0; z < zoneCount; z++) {
      if (!wp.containsKey(z)) {
        wp.put(z, 0);
        data.put(z, new byte[capacity]);
        keys.put(z, new long[] {random.nextLong() | 1, random.nextLong()});
        leases++;
        return z;
      }
    }
    return -28;
  }

  @Override
  public synchronized int giveBack(int zone) {
    if (zone == failGiveBack) {
      return -5;
    }
    if (wp.remove(zone) == null) {
      return -2;
    }
    data.remove(zone);
    returns++;
    givenBack.add(zone);
    return 0;
  }

  @Override
  public synchronized int giveBackAll() {
    returns += wp.size();
    wp.clear();
    data.clear();
    return 0;
  }

  @Override
  public synchronized int giveBackSet(int[] zones) {
    for (int z : zones) {
      if (z == failGiveBack) {
        return -5;
      }
      if (!wp.containsKey(z)) {
        return -2;
      }
    }
    for (int z : zones) {
      wp.remove(z);
      data.remove(z);
      returns++;
      givenBack.add(z);
    }
    return 0;
  }

  @Override
  public synchronized int giveBackKeepingEmpty(int keep) {
    int kept = 0;
    for (Integer z : java.util.List.copyOf(wp.keySet())) {
      if (wp.get(z) == 0 && kept < keep) {
        kept++;
      } else {
        wp.remove(z);
        data.remove(z);
        returns++;
      }
    }
    return kept;
  }

  @Override
  public synchronized long[] key(int zone) {
    long[] k = keys.get(zone);
    return wp.containsKey(zone) && k != null ? k.clone() : null;
  }

  @Override
  public synchronized int renew(int zone) {
    Integer at = wp.get(zone);
    if (at == null) {
      return -2;
    }
    if (at != 0) {
      return -39; // ENOTEMPTY
    }
    keys.put(zone, new long[] {random.nextLong() | 1, random.nextLong()});
    return 0;
  }

  /** Makes a zone's lease keyless, as a version 7 file system recorded it. */
  synchronized void dropKey(int zone) {
    keys.put(zone, new long[2]);
  }

  @Override
  public synchronized int[] leased() {
    return wp.keySet().stream().mapToInt(Integer::intValue).toArray();
  }

  @Override
  public synchronized long append(int zone, ByteBuffer buf, int len) {
    Integer at = wp.get(zone);
    if (at == null) {
      return -2;
    }
    if (len % block != 0 || len > maxAppend) {
      return -22;
    }
    if (at + len > capacity) {
      return FULL;
    }
    buf.get(0, data.get(zone), at, len);
    wp.put(zone, at + len);
    if (at == 0) {
      firstWritten.add(zone);
    }
    return at;
  }

  @Override
  public boolean isZoneFull(long result) {
    return result == FULL;
  }

  @Override
  public synchronized int read(int zone, long offset, ByteBuffer buf, int len) {
    byte[] d = data.get(zone);
    if (d == null) {
      return -2;
    }
    buf.put(0, d, (int) offset, len);
    return 0;
  }

  @Override
  public synchronized long written(int zone) {
    Integer at = wp.get(zone);
    return at == null ? -2 : at;
  }

  @Override
  public synchronized int finish(int zone) {
    if (!wp.containsKey(zone)) {
      return -2;
    }
    wp.put(zone, capacity);
    finishes++;
    return 0;
  }

  /** Damages byte {@code at} of a zone (a flipped bit on the medium). */
  synchronized void flip(int zone, int at) {
    data.get(zone)[at] ^= 0x5A;
  }

  /** Zeroes {@code len} bytes at {@code at}: an append a power cut lost. */
  synchronized void zero(int zone, int at, int len) {
    Arrays.fill(data.get(zone), at, at + len, (byte) 0);
  }

  @Override
  public int blockSize() {
    return block;
  }

  @Override
  public int maxAppend() {
    return maxAppend;
  }

  @Override
  public long zoneCapacity() {
    return capacity;
  }
}
