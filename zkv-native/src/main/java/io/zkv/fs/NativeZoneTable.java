package io.zkv.fs;

/**
 * Layout of the zone table the zone file system hands to its Java call-outs ({@link ZoneAllocator},
 * {@link GcVictimChooser}): {@link #FIELDS} longs per zone, zone {@code i} at offset {@code i *
 * FIELDS}. One flat array per call keeps the JNI crossing to a single copy.
 */
public final class NativeZoneTable {
  /** Byte offset of the zone on the device. */
  public static final int START = 0;

  /** Writable bytes of the zone. */
  public static final int CAPACITY = 1;

  /** Write pointer, a byte offset on the device ({@code START + written}). */
  public static final int WRITE_POINTER = 2;

  /** Bytes of live file data in the zone. */
  public static final int LIVE = 3;

  /** Write-lifetime hint of the data in the zone (RocksDB's values). */
  public static final int LIFETIME = 4;

  /** 1 for the file system's metadata zones. */
  public static final int META = 5;

  /** 1 while a write (or a GC migration) is under way in the zone. */
  public static final int BUSY = 6;

  /**
   * Bytes garbage collection would copy to empty the zone: the blocks its live data occupies (sync
   * padding included), at least {@link #LIVE}.
   */
  public static final int COPY = 7;

  /**
   * 1 if garbage collection may take the zone as its victim now: a full data zone nobody writes,
   * holding some garbage, and within the collection's bound (background GC only takes zones that
   * are at least half garbage).
   */
  public static final int VICTIM_OK = 8;

  /** Longs per zone. */
  public static final int FIELDS = 9;

  private NativeZoneTable() {}

  /** Number of zones in a table. */
  public static int zoneCount(long[] table) {
    return table.length / FIELDS;
  }

  /** Field {@code field} of zone {@code zone}. */
  public static long get(long[] table, int zone, int field) {
    return table[zone * FIELDS + field];
  }
}
