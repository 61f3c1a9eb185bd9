package io.zkv.fs;

import static io.zkv.fs.NativeZoneTable.BUSY;
import static io.zkv.fs.NativeZoneTable.CAPACITY;
import static io.zkv.fs.NativeZoneTable.COPY;
import static io.zkv.fs.NativeZoneTable.LIFETIME;
import static io.zkv.fs.NativeZoneTable.LIVE;
import static io.zkv.fs.NativeZoneTable.META;
import static io.zkv.fs.NativeZoneTable.START;
import static io.zkv.fs.NativeZoneTable.WRITE_POINTER;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneCondition;
import io.zkv.placement.ZoneReservation;
import io.zkv.placement.ZoneTable;

/**
 * Turns the zone file system's native zone table ({@link NativeZoneTable}) into zkv-placement's
 * {@link ZoneTable} view.
 *
 * <p>Choices: a zone being written is OPEN, a partly written idle one CLOSED (it still holds an
 * active resource); metadata zones are reserved and shown empty, because the file system keeps
 * their resources out of the I/O tokens (as ZenFS's two reserved tokens do); live bytes are per
 * zone, attributed to no particular file (the native table does not list files per zone).
 */
final class ZoneTableProjection {
  private ZoneTableProjection() {}

  /** The view a placement policy allocates from: live bytes are the live file data. */
  static ZoneTable forAllocation(long[] zones, DeviceGeometry geometry) {
    return project(zones, geometry, false);
  }

  /**
   * The view a victim policy chooses from: a zone's live bytes are what GC would copy (the blocks
   * its live data occupies). Which full zones this collection accepts ({@link
   * NativeZoneTable#VICTIM_OK}) the view cannot show: showing them busy would count them as open
   * zones. A greedy choice is never refused for it (the least-copy zone is within any bound if any
   * zone is); another policy's choice outside it declines that collection.
   */
  static ZoneTable forVictimChoice(long[] zones, DeviceGeometry geometry) {
    return project(zones, geometry, true);
  }

  private static ZoneTable project(long[] zones, DeviceGeometry geometry, boolean victimChoice) {
    int n = NativeZoneTable.zoneCount(zones);
    ZoneTable.Builder b =
        ZoneTable.builder(n, geometry.zoneCapacity())
            .deviceLimits(geometry.maxOpen(), geometry.maxActive());
    for (int i = 0; i < n; i++) {
      long capacity = NativeZoneTable.get(zones, i, CAPACITY);
      long written =
          NativeZoneTable.get(zones, i, WRITE_POINTER) - NativeZoneTable.get(zones, i, START);
      long live = NativeZoneTable.get(zones, i, victimChoice ? COPY : LIVE);
      boolean busy = NativeZoneTable.get(zones, i, BUSY) != 0;
      b.capacity(i, capacity);
      if (NativeZoneTable.get(zones, i, META) != 0) {
        b.reserve(i, ZoneReservation.METADATA);
        continue;
      }
      ZoneCondition cond =
          written == 0
              ? ZoneCondition.EMPTY
              : written >= capacity
                  ? ZoneCondition.FULL
                  : busy ? ZoneCondition.OPEN : ZoneCondition.CLOSED;
      b.zone(
          i, cond, written, WriteLifetime.fromValue((int) NativeZoneTable.get(zones, i, LIFETIME)));
      if (live > 0) {
        // per-zone live bytes under a synthetic file id (far above real ids): no file attribution
        b.live(i, Long.MAX_VALUE - i, Math.min(live, written));
      }
      if (busy) {
        b.busy(i);
      }
    }
    return b.build();
  }
}
