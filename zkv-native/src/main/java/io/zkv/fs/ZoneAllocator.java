package io.zkv.fs;

/**
 * The zone file system's call-out at every zone allocation (never per write): a placement policy
 * decides which zone a file's next data goes to. Called from the writing thread (a RocksDB
 * background thread, attached to the JVM) with the file system's lock held: it must be quick and
 * must not call back into the file system. A thrown exception fails that allocation (RocksDB sees
 * an I/O error); a decision the zones' state does not allow fails it too.
 *
 * <p>The zone table is in the {@link NativeZoneTable} layout. The decision array takes: action,
 * zone, number of zones to finish first, then those zones (at most {@link #MAX_FINISH}).
 */
@FunctionalInterface
public interface ZoneAllocator {
  int ZONE_FIELDS = NativeZoneTable.FIELDS;
  int MAX_FINISH = 16;
  int USE_ZONE = 1;
  int OPEN_EMPTY_ZONE = 2;
  int WAIT = 3;
  int NEED_GC = 4;
  int NO_SPACE = 5;

  void allocate(
      long fileId,
      String fileName,
      int lifetime,
      boolean forGc,
      long[] zones,
      int activeLimit,
      long[] decision);
}
