package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ZenFsZoneRulesTest {
  private static final long CAP = 1000;

  private static ZoneTable.Builder table(int zones) {
    return ZoneTable.builder(zones, CAP).deviceLimits(6, 6).reservedTokens(2);
  }

  @Test
  void firstEmptyZoneSkipsBusyAndReservedZones() {
    ZoneTable.Builder b = table(5);
    b.zone(0, ZoneCondition.FULL, CAP, WriteLifetime.LONG);
    b.busy(1);
    b.reserve(2, ZoneReservation.METADATA);
    assertEquals(3, ZenFsZoneRules.firstEmptyZone(b.build()));
    b.zone(3, ZoneCondition.CLOSED, 10, WriteLifetime.LONG);
    b.zone(4, ZoneCondition.CLOSED, 10, WriteLifetime.LONG);
    assertEquals(-1, ZenFsZoneRules.firstEmptyZone(b.build()));
  }

  @Test
  void beyondReservesLeavesTheZonesTheFileSystemKeeps() {
    ZoneTable.Builder b = table(5);
    b.zone(0, ZoneCondition.FULL, CAP, WriteLifetime.LONG);
    b.zone(1, ZoneCondition.FULL, CAP, WriteLifetime.LONG);
    b.emptyZonesKept(3, 0); // zones 2, 3, 4: all kept
    assertEquals(2, ZenFsZoneRules.firstEmptyZone(b.build()));
    assertEquals(-1, ZenFsZoneRules.firstEmptyZoneBeyondReserves(b.build()));
    b.emptyZonesKept(2, 0); // one more than the file system keeps
    assertEquals(2, ZenFsZoneRules.firstEmptyZoneBeyondReserves(b.build()));
  }

  @Test
  void theLastOpenTokenStaysForTheWal() {
    ZoneTokens tokens = new ZoneTokens(4, 4, 0, 0, 2);
    assertEquals(4, ZenFsZoneRules.openTokenLimit(tokens, FileKind.WAL));
    assertEquals(3, ZenFsZoneRules.openTokenLimit(tokens, FileKind.SST));
  }

  @Test
  void reclaimableNeedsGarbageInAZoneNoWriterHolds() {
    assertFalse(ZenFsZoneRules.reclaimable(twoZones(CAP, false), List.of()), "all live");
    assertTrue(
        ZenFsZoneRules.reclaimable(twoZones(CAP, false), List.of(1)), "zone 1 finished: garbage");
    assertTrue(ZenFsZoneRules.reclaimable(twoZones(600, false), List.of()), "400 B garbage");
    assertFalse(ZenFsZoneRules.reclaimable(twoZones(600, true), List.of()), "held by a writer");
  }

  /** Zone 0 full with {@code live} live bytes, zone 1 half written and all live. */
  private static ZoneTable twoZones(long live, boolean busy) {
    ZoneTable.Builder b = table(2);
    b.zone(0, ZoneCondition.FULL, CAP, WriteLifetime.LONG).live(0, 1, live);
    b.zone(1, ZoneCondition.CLOSED, 500, WriteLifetime.LONG).live(1, 2, 500);
    if (busy) {
      b.busy(0);
    }
    return b.build();
  }

  @Test
  void aZoneOfTheOtherClassDoesNotServeAFile() {
    ZoneTable t = table(2).ioClass(0, ZoneIoClass.WAL).ioClass(1, ZoneIoClass.NONE).build();
    assertTrue(ZenFsZoneRules.servesClass(t.zone(0), FileKind.WAL));
    assertFalse(ZenFsZoneRules.servesClass(t.zone(0), FileKind.SST));
    assertTrue(ZenFsZoneRules.servesClass(t.zone(1), FileKind.SST));
  }
}
