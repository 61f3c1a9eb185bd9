package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.zkv.placement.FileInfo;
import io.zkv.placement.FileKind;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneCondition;
import io.zkv.placement.ZoneReservation;
import io.zkv.placement.ZoneTable;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Zones grouped by the level of the data they hold: the rule for mixed, dead and log zones. */
class ZoneLevelsTest {
  private static final long CAP = 100;

  private static FileInfo sst(long id, int level) {
    return new FileInfo(
        id, FileKind.SST, WriteLifetime.MEDIUM, OptionalInt.of(level), Optional.empty());
  }

  @Test
  void aZoneCountsForTheLevelHoldingMostOfItsLiveData() {
    ZoneTable t =
        ZoneTable.builder(7, CAP)
            .reserve(0, ZoneReservation.METADATA)
            .file(sst(1, 2))
            .file(sst(2, 3))
            .file(sst(3, 3))
            .file(
                new FileInfo(
                    4, FileKind.WAL, WriteLifetime.SHORT, OptionalInt.empty(), Optional.empty()))
            .file(
                new FileInfo(
                    5, FileKind.SST, WriteLifetime.MEDIUM, OptionalInt.empty(), Optional.empty()))
            // zone 1: L2 only, 40 of 100 live
            .zone(1, ZoneCondition.FULL, CAP, WriteLifetime.MEDIUM)
            .live(1, 1, 40)
            // zone 2: 30 of L2 and 50 of L3: an L3 zone, mixed
            .zone(2, ZoneCondition.FULL, CAP, WriteLifetime.MEDIUM)
            .live(2, 1, 30)
            .live(2, 2, 20)
            .live(2, 3, 30)
            // zone 3: a tie of L2 and L3: the lower level
            .zone(3, ZoneCondition.CLOSED, 60, WriteLifetime.MEDIUM)
            .live(3, 1, 25)
            .live(3, 2, 25)
            // zone 4: the WAL
            .zone(4, ZoneCondition.CLOSED, 10, WriteLifetime.SHORT)
            .live(4, 4, 10)
            // zone 5: written, nothing live: dead; zone 6: empty, not in use
            .zone(5, ZoneCondition.FULL, CAP, WriteLifetime.MEDIUM)
            .zone(6, ZoneCondition.EMPTY, 0, WriteLifetime.NOT_SET)
            .build();
    ZoneLevels z = ZoneLevels.of(t);
    assertEquals(5, z.zones());
    assertEquals(new ZoneLevels.Group(1, 10, 10, CAP, 0), z.groups().get(ZoneLevels.LOGS));
    assertEquals(new ZoneLevels.Group(2, 160, 90, 2 * CAP, 1), z.groups().get(2));
    assertEquals(new ZoneLevels.Group(1, CAP, 80, CAP, 1), z.groups().get(3));
    assertEquals(new ZoneLevels.Group(1, CAP, 0, CAP, 0), z.groups().get(ZoneLevels.DEAD));
    assertEquals(
        "logs 1 zone (90% unused, 90% unwritten), L2 2 zones (55% unused, 20% unwritten, 1"
            + " mixed), L3 1 zone (20% unused, 0% unwritten, 1 mixed), dead 1 zone (100% unused, 0%"
            + " unwritten)",
        z.describe());
    ZoneTable unknown =
        ZoneTable.builder(2, CAP)
            .file(
                new FileInfo(
                    5, FileKind.SST, WriteLifetime.MEDIUM, OptionalInt.empty(), Optional.empty()))
            .zone(1, ZoneCondition.FULL, CAP, WriteLifetime.MEDIUM)
            .live(1, 5, CAP)
            .build();
    assertEquals("L? 1 zone (0% unused, 0% unwritten)", ZoneLevels.of(unknown).describe());
    assertEquals("none in use", ZoneLevels.of(ZoneTable.builder(2, CAP).build()).describe());
  }
}
