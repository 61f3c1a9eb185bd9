package io.zkv.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Read-only view of the device's zones and of which files have live extents in them, handed to a
 * placement policy at each zone allocation. It is a snapshot taken for the call, which runs without
 * the file system's lock: other files go on writing meanwhile, and a decision the zones no longer
 * allow when it is carried out is asked again on a fresh view ({@link PlacementPolicy}).
 *
 * <p>The file-level part serves policies that reason about the LSM tree: CAZA ranks the zones that
 * hold SSTs of level L+1 overlapping a new SST ({@link #files()}, {@link #zonesOf}) and falls back
 * to the zone of the nearest same-level SST; ZoneKV reads a zone's lifetime class from {@link
 * ZoneInfo#tag()} (or from the levels of the files in it, {@link #filesIn}). LIZA needs only the
 * zones and tokens.
 */
public interface ZoneTableView {

  /** Number of zones on the device, reserved ones included; zone indexes are 0..count-1. */
  int zoneCount();

  /**
   * A snapshot of zone {@code index}.
   *
   * @throws IndexOutOfBoundsException if {@code index} is not a zone
   */
  ZoneInfo zone(int index);

  /** The open/active token counts and limits of the I/O zones. */
  ZoneTokens tokens();

  /**
   * The empty zones the file system keeps from the writer this view was taken for: it starts an
   * empty zone only while more than these are left (an allocation that asks for one anyway is
   * overridden). Its own reserves (one empty zone for GC, one for RocksDB's metadata files) and the
   * over-provisioning reserve ({@link #opZones()}); none for a GC migration. Default 0: a table
   * built without reserves.
   */
  default int emptyZonesKept() {
    return 0;
  }

  /**
   * The over-provisioning reserve: empty zones kept for garbage collection's copies (CAZA's OP
   * zones), part of {@link #emptyZonesKept()} for data writers. Default 0.
   */
  default int opZones() {
    return 0;
  }

  /**
   * The empty zones this view's writer may start: those not held by anyone beyond the {@link
   * #emptyZonesKept()} reserves.
   */
  default int emptyZonesAvailable() {
    int empty = 0;
    for (int i = 0; i < zoneCount(); i++) {
      ZoneInfo z = zone(i);
      if (z.isIoZone() && !z.busy() && z.isEmpty()) {
        empty++;
      }
    }
    return Math.max(0, empty - emptyZonesKept());
  }

  /** Ids of the files with live bytes in zone {@code index}, ascending. */
  Set<Long> filesIn(int index);

  /** Zones in which file {@code fileId} has live bytes, ascending; empty for unknown files. */
  Set<Integer> zonesOf(long fileId);

  /** What the file system knows about file {@code fileId}, if it knows the file. */
  Optional<FileInfo> file(long fileId);

  /** Every file the file system has information about. */
  Collection<FileInfo> files();

  /** Snapshots of all zones in index order. */
  default List<ZoneInfo> zones() {
    List<ZoneInfo> all = new ArrayList<>(zoneCount());
    for (int i = 0; i < zoneCount(); i++) {
      all.add(zone(i));
    }
    return all;
  }
}
