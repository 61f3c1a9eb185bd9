package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** CAZA's cleaning: when it starts, what it asks for, when it stops. */
class CazaGcTriggerTest {
  private static final long CAP = 1_000;

  /**
   * 20 zones: {@code full} full zones holding {@code live} each, one partly written zone with
   * {@code room} left, the rest empty; {@code kept} of the empty zones kept from data writers.
   */
  private static ZoneTable zones(int full, long live, long room, int kept) {
    ZoneTable.Builder b = ZoneTable.builder(20, CAP).emptyZonesKept(kept, Math.max(0, kept - 2));
    for (int z = 0; z < full; z++) {
      b.zone(z, ZoneCondition.FULL, CAP, WriteLifetime.MEDIUM).live(z, z, live);
    }
    b.zone(full, ZoneCondition.CLOSED, CAP - room, WriteLifetime.MEDIUM);
    return b.build();
  }

  @Test
  void cleaningStartsOnlyWhenNoEmptyZoneIsLeftBeyondTheReserves() {
    CazaGcTrigger t = new CazaGcTrigger(10);
    // 17 full, 1 partly written, 2 empty and both kept: nothing left for writers
    assertEquals(CAP - 1, t.maxLiveBytes(zones(17, 500, 50, 2), CAP));
    assertTrue(t.cleaning());
    CazaGcTrigger idle = new CazaGcTrigger(10);
    // 16 full: 3 empty, 2 kept, one left: no cleaning yet although little is free
    assertEquals(0, idle.maxLiveBytes(zones(16, 500, 50, 2), CAP));
    assertFalse(idle.cleaning());
  }

  @Test
  void cleaningGoesOnUntilThsOfTheCapacityIsFreeForWriters() {
    CazaGcTrigger t = new CazaGcTrigger(10); // 10% of 20 zones: 2,000 bytes free
    assertEquals(CAP - 1, t.maxLiveBytes(zones(17, 500, 50, 2), CAP));
    // one zone reclaimed: 1 available empty zone + 50 = 1,050 < 2,000: goes on
    assertEquals(CAP - 1, t.maxLiveBytes(zones(16, 500, 50, 2), CAP));
    // two reclaimed: 2,050 >= 2,000: stops
    assertEquals(0, t.maxLiveBytes(zones(15, 500, 50, 2), CAP));
    assertFalse(t.cleaning());
    // and does not start again while empty zones are left
    assertEquals(0, t.maxLiveBytes(zones(16, 500, 50, 2), CAP));
  }

  @Test
  void aRunEndsWhenARoundFindsNoMoreFreeSpaceThanTheOneBefore() {
    CazaGcTrigger t = new CazaGcTrigger(25); // 5,000 bytes: never reached below
    assertEquals(CAP - 1, t.maxLiveBytes(zones(17, 500, 50, 2), CAP)); // starts: 50 free
    assertEquals(CAP - 1, t.maxLiveBytes(zones(16, 500, 50, 2), CAP)); // 1,050: progress
    assertEquals(0, t.maxLiveBytes(zones(16, 500, 50, 2), CAP)); // still 1,050: stuck, ends
    assertFalse(t.cleaning());
    assertEquals(0, t.maxLiveBytes(zones(16, 500, 50, 2), CAP)); // empty zones left: idle
    assertEquals(CAP - 1, t.maxLiveBytes(zones(17, 500, 50, 2), CAP)); // out again: new run
  }

  @Test
  void theOverProvisioningZonesDoNotCountAsFree() {
    // 10 zones kept (2 + 8 OP): free for writers is only the partly written zone's room
    ZoneTable t = zones(9, 500, 50, 10);
    long[] space = CazaGcTrigger.freeAndCapacity(t);
    assertEquals(50, space[0]);
    assertEquals(20 * CAP, space[1]);
    assertEquals(CAP - 1, new CazaGcTrigger(5).maxLiveBytes(t, CAP));
  }

  @Test
  void eachFileSystemGetsATriggerOfItsOwn() {
    CazaGcTrigger t = new CazaGcTrigger(25);
    t.maxLiveBytes(zones(17, 500, 50, 2), CAP);
    GcTrigger fresh = t.perFileSystem();
    assertNotSame(t, fresh);
    assertEquals("caza(25)", fresh.name());
    assertFalse(((CazaGcTrigger) fresh).cleaning());
    assertTrue(t.cleaning());
  }

  @Test
  void thsOutsideOneToFiftyIsRefused() {
    for (int bad : new int[] {0, 51, -5}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new CazaGcTrigger(bad));
      assertTrue(e.getMessage().contains("ths must be 1..50"), e.getMessage());
    }
    assertEquals(50, new CazaGcTrigger(50).thsPercent());
  }
}
