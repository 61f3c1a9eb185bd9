package io.zkv.placement;

import static io.zkv.placement.WriteLifetime.LONG;
import static io.zkv.placement.ZoneCondition.CLOSED;
import static io.zkv.placement.ZoneCondition.FULL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ZenFsGcTriggerTest {
  static final long CAP = 1_000;

  @Test
  void freeSpaceIsMeasuredAsZenFsGcWorkerDoes() {
    ZoneTable.Builder b = ZoneTable.builder(5, CAP);
    b.zone(0, FULL, CAP, LONG).live(0, 1, 600); // used 600, reclaimable 400
    b.zone(1, FULL, CAP, LONG).live(1, 2, 1000); // used 1000, reclaimable 0
    b.zone(2, CLOSED, 500, LONG).live(2, 3, 100); // free 500, used 100 (400 garbage ignored)
    // zones 3, 4 empty: free 2000
    b.reserve(4, ZoneReservation.METADATA); // not an I/O zone: not counted
    // free = 500 + 1000 = 1500; used = 1700; reclaimable = 400 -> 100 * 1500 / 3600 = 41
    assertEquals(41, ZenFsGcTrigger.freePercent(b.build()));
  }

  @Test
  void collectsAtOrBelowTheStartLevel() {
    ZoneTable.Builder b = ZoneTable.builder(10, CAP);
    for (int z = 0; z < 8; z++) {
      b.zone(z, FULL, CAP, LONG).live(z, z, 500);
    }
    // free 2000, used 4000, reclaimable 4000 -> exactly 20%
    SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
    assertEquals(20, ZenFsGcTrigger.freePercent(t));
    assertTrue(ZenFsGcTrigger.zenFsDefault().shouldCollect(t));
    assertFalse(new ZenFsGcTrigger(19).shouldCollect(t));
    assertTrue(new ZenFsGcTrigger(25).shouldCollect(t));
    assertEquals(20, ZenFsGcTrigger.zenFsDefault().startPercent());
  }

  @Test
  void anEmptyDeviceIsAllFreeAndReadOnlyZonesCountAsNotWritable() {
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(4, CAP).build());
    assertEquals(100, ZenFsGcTrigger.freePercent(t));
    assertFalse(ZenFsGcTrigger.zenFsDefault().shouldCollect(t));
    t.markReadOnly(0); // ZenFS: capacity_ 0, so IsFull(): reclaimable += max_capacity - used
    assertEquals(75, ZenFsGcTrigger.freePercent(t));
    SimulatedZoneTable none = SimulatedZoneTable.of(ZoneTable.builder(1, CAP).build());
    none.markOffline(0);
    assertEquals(100, ZenFsGcTrigger.freePercent(none));
  }

  /** Ten zones, {@code full} of them full with {@code live} live bytes each, the rest empty. */
  private static ZoneTable fullZones(int full, long live) {
    ZoneTable.Builder b = ZoneTable.builder(10, CAP);
    for (int z = 0; z < full; z++) {
      b.zone(z, FULL, CAP, LONG).live(z, z, live);
    }
    return b.build();
  }

  @Test
  void theGarbageBarFallsWithFreeSpaceAsZenFsGcSlope() {
    ZoneTable at20 = fullZones(8, 500); // 20% free
    assertEquals(100, ZenFsGcTrigger.zenFsDefault().garbageThresholdPercent(at20).getAsInt());
    assertEquals(
        0, ZenFsGcTrigger.zenFsDefault().maxLiveBytes(at20, CAP)); // nothing is > 100% garbage
    ZoneTable at10 = fullZones(9, 500); // 10% free: threshold 100 - 3 * 10 = 70
    assertEquals(10, ZenFsGcTrigger.freePercent(at10));
    assertEquals(70, ZenFsGcTrigger.zenFsDefault().garbageThresholdPercent(at10).getAsInt());
    // ZenFS takes a zone when 100 - 100 * used / cap > 70: used 299 yes (71), used 300 no (70)
    assertEquals(299, ZenFsGcTrigger.zenFsDefault().maxLiveBytes(at10, CAP));
    assertTrue(ZenFsGcTrigger.zenFsDefault().garbageThresholdPercent(fullZones(2, 500)).isEmpty());
    assertEquals(0, ZenFsGcTrigger.zenFsDefault().maxLiveBytes(fullZones(2, 500), CAP));
    ZoneTable noFree = fullZones(10, 500); // 0% free: threshold 40
    assertEquals(40, ZenFsGcTrigger.zenFsDefault().garbageThresholdPercent(noFree).getAsInt());
  }

  @Test
  void startLevelMustBeAPercentage() {
    assertThrows(IllegalArgumentException.class, () -> new ZenFsGcTrigger(-1));
    assertThrows(IllegalArgumentException.class, () -> new ZenFsGcTrigger(101));
  }
}
