package io.zkv.placement;

import static io.zkv.placement.WriteLifetime.LONG;
import static io.zkv.placement.ZoneCondition.CLOSED;
import static io.zkv.placement.ZoneCondition.FULL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GcTriggerTest {
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
    assertEquals(41, GcTrigger.freePercent(b.build()));
  }

  @Test
  void collectsAtOrBelowTheStartLevel() {
    ZoneTable.Builder b = ZoneTable.builder(10, CAP);
    for (int z = 0; z < 8; z++) {
      b.zone(z, FULL, CAP, LONG).live(z, z, 500);
    }
    // free 2000, used 4000, reclaimable 4000 -> exactly 20%
    ZoneTable t = b.build();
    assertEquals(20, GcTrigger.freePercent(t));
    assertTrue(GcTrigger.zenFsDefault().shouldCollect(t));
    assertFalse(new GcTrigger(19).shouldCollect(t));
    assertTrue(new GcTrigger(25).shouldCollect(t));
    assertEquals(20, GcTrigger.zenFsDefault().startPercent());
  }

  @Test
  void anEmptyDeviceIsAllFreeAndReadOnlyZonesCountAsNotWritable() {
    ZoneTable t = ZoneTable.builder(4, CAP).build();
    assertEquals(100, GcTrigger.freePercent(t));
    assertFalse(GcTrigger.zenFsDefault().shouldCollect(t));
    t.markReadOnly(0); // ZenFS: capacity_ 0, so IsFull(): reclaimable += max_capacity - used
    assertEquals(75, GcTrigger.freePercent(t));
    ZoneTable none = ZoneTable.builder(1, CAP).build();
    none.markOffline(0);
    assertEquals(100, GcTrigger.freePercent(none));
  }

  @Test
  void startLevelMustBeAPercentage() {
    assertThrows(IllegalArgumentException.class, () -> new GcTrigger(-1));
    assertThrows(IllegalArgumentException.class, () -> new GcTrigger(101));
  }
}
