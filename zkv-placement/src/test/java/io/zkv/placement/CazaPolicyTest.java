package io.zkv.placement;

import static io.zkv.placement.Decisions.opened;
import static io.zkv.placement.Decisions.used;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** One test (or a few) per CAZA rule and fallback, each on a hand-built zone table. */
class CazaPolicyTest {
  private static final long CAP = 1_000;
  private static final long TARGET = 300; // a target-size SST needs 300 bytes of room
  private final CazaPolicy caza = new CazaPolicy(TARGET);

  private static KeyRange keys(String lo, String hi) {
    return KeyRange.of(lo.getBytes(StandardCharsets.UTF_8), hi.getBytes(StandardCharsets.UTF_8));
  }

  /** 8 zones, generous limits. */
  private static ZoneTable.Builder table() {
    return ZoneTable.builder(8, CAP).deviceLimits(14, 14);
  }

  /** SST {@code id} of {@code level} over {@code range}, {@code bytes} live in {@code zone}. */
  private static ZoneTable.Builder sst(
      ZoneTable.Builder b, long id, int level, KeyRange range, int zone, long bytes) {
    b.file(
        new FileInfo(
            id, FileKind.SST, WriteLifetime.MEDIUM, OptionalInt.of(level), Optional.of(range)));
    return b.live(zone, id, bytes);
  }

  private static AllocationRequest newSst(int level, KeyRange range) {
    AllocationRequest.Builder b =
        AllocationRequest.builder(99, FileKind.SST).lifetime(WriteLifetime.LONG).level(level);
    return (range == null ? b : b.keyRange(range)).build();
  }

  @Test
  void theZoneHoldingMostOverlappingSstsOfTheNextLevelWins() {
    ZoneTable.Builder b = table();
    b.zone(1, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    b.zone(2, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    sst(b, 1, 2, keys("a", "c"), 1, 100); // zone 1: one overlapping L2 SST
    sst(b, 2, 2, keys("d", "f"), 2, 100); // zone 2: two of them
    sst(b, 3, 2, keys("g", "h"), 2, 100);
    sst(b, 4, 2, keys("x", "z"), 1, 100); // does not overlap
    Allocation a = caza.allocate(newSst(1, keys("b", "g")), b.build());
    assertEquals(2, used(a));
    assertTrue(a.reason().contains("holds 2 of the 3 overlapping SSTs of L2"), a.reason());
  }

  @Test
  void tiesGoToTheLowestZoneIndex() {
    ZoneTable.Builder b = table();
    b.zone(3, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    b.zone(5, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    sst(b, 1, 2, keys("a", "c"), 5, 100);
    sst(b, 2, 2, keys("d", "f"), 3, 100);
    assertEquals(3, used(caza.allocate(newSst(1, keys("b", "e")), b.build())));
  }

  @Test
  void zonesWithoutRoomForATargetSizeFileAreSkippedThenZc2OpensAnEmptyZone() {
    ZoneTable.Builder b = table();
    b.zone(1, ZoneCondition.CLOSED, 800, WriteLifetime.MEDIUM); // 200 left < 300
    b.zone(2, ZoneCondition.CLOSED, 600, WriteLifetime.MEDIUM); // 400 left
    sst(b, 1, 2, keys("a", "c"), 1, 700);
    sst(b, 2, 2, keys("b", "d"), 1, 100);
    sst(b, 3, 2, keys("c", "e"), 2, 600);
    // zone 1 holds two, but has no room: zone 2
    assertEquals(2, used(caza.allocate(newSst(1, keys("a", "e")), b.build())));
    // no zone of the overlapping SSTs has room: an empty zone with the file's lifetime
    b.zone(2, ZoneCondition.CLOSED, 900, WriteLifetime.MEDIUM);
    b.live(2, 3, 300);
    Allocation.OpenEmptyZone open = opened(caza.allocate(newSst(1, keys("a", "e")), b.build()));
    assertEquals(0, open.target());
    assertEquals(WriteLifetime.LONG, open.lifetime());
    assertTrue(open.reason().startsWith("ZC2"), open.reason());
  }

  @Test
  void zc1ForANewKeyRangeTheBottomLevelAndAFlushWithoutRange() {
    ZoneTable.Builder b = table();
    b.zone(1, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    sst(b, 1, 2, keys("a", "c"), 1, 100);
    sst(b, 2, 6, keys("a", "z"), 1, 100);
    ZoneTable t = b.build();
    assertTrue(opened(caza.allocate(newSst(1, keys("m", "n")), t)).reason().startsWith("ZC1"));
    Allocation bottom = caza.allocate(newSst(6, keys("a", "b")), t); // nothing at L7
    assertTrue(opened(bottom).reason().contains("no SST of L7 overlaps"), bottom.reason());
    Allocation flush = caza.allocate(newSst(0, null), t);
    assertTrue(opened(flush).reason().contains("no key range known"), flush.reason());
  }

  @Test
  void withoutAnEmptyZoneFallback1TakesTheNearestSameLevelSstsZone() {
    ZoneTable.Builder b = ZoneTable.builder(4, CAP).deviceLimits(14, 14);
    for (int z = 0; z < 4; z++) {
      b.zone(z, ZoneCondition.CLOSED, 500, WriteLifetime.MEDIUM);
    }
    sst(b, 1, 1, keys("a", "b"), 0, 100); // L1, far before
    sst(b, 2, 1, keys("e", "f"), 1, 100); // L1, nearest before
    sst(b, 3, 1, keys("p", "q"), 2, 100); // L1, nearest after
    sst(b, 4, 2, keys("a", "z"), 3, 500); // L2 overlaps, but its zone has no room
    b.zone(3, ZoneCondition.CLOSED, 800, WriteLifetime.MEDIUM);
    Allocation a = caza.allocate(newSst(1, keys("h", "k")), b.build());
    assertEquals(1, used(a));
    assertTrue(a.reason().contains("ZC2") && a.reason().contains("Fallback 1"), a.reason());
  }

  @Test
  void noFreeActiveTokenForZc1GoesToFallback1ThenLiza() {
    // Active limit 2 + 2 reserved = 4 zones; two zones active already hold every active token.
    ZoneTable.Builder b = table().deviceLimits(4, 4);
    b.zone(1, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    b.zone(2, ZoneCondition.CLOSED, 300, WriteLifetime.LONG);
    sst(b, 1, 1, keys("a", "b"), 1, 100);
    sst(b, 2, 3, keys("a", "b"), 2, 100);
    ZoneTable t = b.build();
    assertTrue(!t.tokens().activeAvailable(), t.tokens().toString());
    Allocation a = caza.allocate(newSst(1, keys("c", "d")), t);
    assertEquals(1, used(a));
    assertTrue(a.reason().contains("no free active token; Fallback 1"), a.reason());
    // no same-level SST at all: LIZA decides (here: the zone of longer lifetime, LONG)
    Allocation liza = caza.allocate(newSst(2, keys("c", "d")), t);
    assertEquals(2, used(liza));
    assertTrue(liza.reason().contains("Fallback 2 (LIZA)"), liza.reason());
  }

  @Test
  void walsAndFilesWithoutALevelAreLizas() {
    ZoneTable t = table().build();
    AllocationRequest wal =
        AllocationRequest.builder(5, FileKind.WAL).lifetime(WriteLifetime.SHORT).build();
    assertEquals(new LizaPolicy().allocate(wal, t), caza.allocate(wal, t));
    AllocationRequest noLevel =
        AllocationRequest.builder(6, FileKind.SST).lifetime(WriteLifetime.MEDIUM).build();
    assertEquals(new LizaPolicy().allocate(noLevel, t), caza.allocate(noLevel, t));
  }

  @Test
  void withoutAFreeOpenTokenItWaitsAsLizaDoes() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP).deviceLimits(4, 14);
    b.zone(0, ZoneCondition.OPEN, 100, WriteLifetime.MEDIUM).busy(0).live(0, 50, 100);
    Allocation a = caza.allocate(newSst(1, keys("a", "b")), b.build());
    assertEquals(
        Allocation.Resource.OPEN_TOKEN,
        assertInstanceOf(Allocation.Wait.class, a, a.reason()).resource());
  }

  @Test
  void gcMigrationKeepsAnExtentWithItsFileElseLiza() {
    ZoneTable.Builder b = table();
    b.zone(1, ZoneCondition.CLOSED, 300, WriteLifetime.LONG);
    b.zone(2, ZoneCondition.CLOSED, 900, WriteLifetime.MEDIUM);
    sst(b, 7, 2, keys("a", "b"), 1, 100);
    sst(b, 7, 2, keys("a", "b"), 2, 100);
    AllocationRequest migrate =
        AllocationRequest.builder(7, FileKind.SST)
            .lifetime(WriteLifetime.LONG)
            .level(2)
            .expectedSize(200)
            .purpose(AllocationPurpose.GC_MIGRATION)
            .build();
    Allocation a = caza.allocate(migrate, b.build());
    assertEquals(1, used(a)); // zone 2 has only 100 left
    assertTrue(a.reason().contains("same file"), a.reason());
    AllocationRequest other =
        AllocationRequest.builder(8, FileKind.SST)
            .lifetime(WriteLifetime.LONG)
            .level(2)
            .expectedSize(200)
            .purpose(AllocationPurpose.GC_MIGRATION)
            .build();
    assertEquals(new LizaPolicy().allocate(other, b.build()), caza.allocate(other, b.build()));
  }

  @Test
  void anyRoomDoesWhereAZoneIsNotLargerThanATargetSizeFile() {
    CazaPolicy big = new CazaPolicy(64L << 20); // zones of 1,000 bytes never fit 64 MiB
    ZoneTable.Builder b = table();
    b.zone(1, ZoneCondition.CLOSED, 990, WriteLifetime.MEDIUM);
    sst(b, 1, 2, keys("a", "c"), 1, 990);
    assertEquals(1, used(big.allocate(newSst(1, keys("a", "b")), b.build())));
    // a zone with a target-size file's room is asked for where zones are larger
    assertTrue(
        opened(caza.allocate(newSst(1, keys("a", "b")), b.build())).reason().startsWith("ZC2"));
    assertThrows(IllegalArgumentException.class, () -> new CazaPolicy(0));
    assertEquals("caza", big.name());
  }

  @Test
  void theCompactionsOwnInputsAreNeitherOverlapNorNeighbours() {
    ZoneTable.Builder b = table();
    b.zone(1, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    b.zone(2, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    sst(b, 1, 2, keys("a", "c"), 1, 100); // an input of this compaction, at L+1
    sst(b, 2, 2, keys("d", "f"), 2, 100); // an input too
    sst(b, 3, 2, keys("e", "g"), 2, 100); // overlaps, not an input
    AllocationRequest output =
        AllocationRequest.builder(99, FileKind.SST)
            .lifetime(WriteLifetime.LONG)
            .level(2)
            .keyRange(keys("a", "g"))
            .compactionInputs(java.util.List.of(1L, 2L))
            .build();
    // output level 2: S_overlap is at L3 (none) -> ZC1 with an empty zone
    assertTrue(opened(caza.allocate(output, b.build())).reason().startsWith("ZC1"));
    // an output at L1 over the same inputs: file 3 alone overlaps, in zone 2
    AllocationRequest l1 =
        AllocationRequest.builder(98, FileKind.SST)
            .lifetime(WriteLifetime.LONG)
            .level(1)
            .keyRange(keys("a", "g"))
            .compactionInputs(java.util.List.of(1L, 2L))
            .build();
    Allocation a = caza.allocate(l1, b.build());
    assertEquals(2, used(a));
    assertTrue(a.reason().contains("holds 1 of the 1 overlapping"), a.reason());
  }
}
