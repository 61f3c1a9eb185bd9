package io.zkv.placement;

import static io.zkv.placement.WriteLifetime.EXTREME;
import static io.zkv.placement.WriteLifetime.LONG;
import static io.zkv.placement.WriteLifetime.MEDIUM;
import static io.zkv.placement.WriteLifetime.NONE;
import static io.zkv.placement.WriteLifetime.NOT_SET;
import static io.zkv.placement.WriteLifetime.SHORT;
import static io.zkv.placement.ZoneCondition.CLOSED;
import static io.zkv.placement.ZoneCondition.FULL;
import static io.zkv.placement.ZoneCondition.OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** One test (or a few) per LIZA rule, each on a hand-built zone table. */
class LizaPolicyTest {
  static final long CAP = 1_000;
  final LizaPolicy liza = new LizaPolicy();

  /** {@code zones} zones, device limits {@code maxOpen}/{@code maxActive}, 2 tokens reserved. */
  static ZoneTable.Builder table(int zones, int maxOpen, int maxActive) {
    return ZoneTable.builder(zones, CAP).deviceLimits(maxOpen, maxActive);
  }

  /** A closed zone with {@code written} bytes, {@code live} of them live (file id 1000+zone). */
  static ZoneTable.Builder closed(
      ZoneTable.Builder b, int zone, WriteLifetime lt, long written, long live) {
    b.zone(zone, CLOSED, written, lt);
    if (live > 0) {
      b.live(zone, 1000 + zone, live);
    }
    return b;
  }

  /** A zone held by another writer. */
  static ZoneTable.Builder held(ZoneTable.Builder b, int zone, WriteLifetime lt, long written) {
    b.zone(zone, OPEN, written, lt).busy(zone);
    if (written > 0) {
      b.live(zone, 2000 + zone, written);
    }
    return b;
  }

  /** A full zone with {@code live} live bytes. */
  static ZoneTable.Builder full(ZoneTable.Builder b, int zone, long live) {
    b.zone(zone, FULL, CAP, LONG);
    if (live > 0) {
      b.live(zone, 3000 + zone, live);
    }
    return b;
  }

  static AllocationRequest file(FileKind kind, WriteLifetime lt) {
    return AllocationRequest.builder(7, kind).lifetime(lt).build();
  }

  static AllocationRequest sst(WriteLifetime lt) {
    return file(FileKind.SST, lt);
  }

  static AllocationRequest wal() {
    return file(FileKind.WAL, SHORT);
  }

  static AllocationRequest migration(WriteLifetime lt, long extentBytes) {
    return AllocationRequest.builder(9, FileKind.SST)
        .lifetime(lt)
        .expectedSize(extentBytes)
        .purpose(AllocationPurpose.GC_MIGRATION)
        .build();
  }

  static void assertUses(int zone, Allocation a) {
    Allocation.UseZone use = assertInstanceOf(Allocation.UseZone.class, a, a::toString);
    assertEquals(zone, use.target(), a::toString);
  }

  static void assertOpensEmpty(int zone, WriteLifetime lt, List<Integer> finished, Allocation a) {
    Allocation.OpenEmptyZone open =
        assertInstanceOf(Allocation.OpenEmptyZone.class, a, a::toString);
    assertEquals(zone, open.target(), a::toString);
    assertEquals(lt, open.lifetime());
    assertEquals(OptionalInt.empty(), open.tag());
    assertEquals(finished, open.finishFirst(), a::toString);
  }

  @Test
  void nameAndThresholdValidation() {
    assertEquals("liza", liza.name());
    assertEquals(0, liza.finishThresholdPercent());
    assertEquals(15, new LizaPolicy(15).finishThresholdPercent());
    assertThrows(IllegalArgumentException.class, () -> new LizaPolicy(-1));
    assertThrows(IllegalArgumentException.class, () -> new LizaPolicy(101));
  }

  /** GetLifeTimeDiff + GetBestOpenZoneMatch. */
  @Nested
  class LifetimeMatching {

    @Test
    void choosesTheClosestLongerLivedOpenZone() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, EXTREME, 100, 100); // diff 2 for MEDIUM
      closed(b, 1, LONG, 100, 100); // diff 1: best
      closed(b, 2, MEDIUM, 100, 100); // diff 50
      closed(b, 3, SHORT, 100, 100); // diff 100
      Allocation a = liza.allocate(sst(MEDIUM), b.build());
      assertUses(1, a);
      assertEquals(List.of(), a.finishFirst());
    }

    @Test
    void aTieGoesToTheLaterZone() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 2, LONG, 100, 100);
      closed(b, 5, LONG, 700, 50);
      closed(b, 6, EXTREME, 100, 100);
      assertUses(5, liza.allocate(sst(MEDIUM), b.build()));
    }

    @Test
    void skipsZonesHeldByOtherWriters() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, EXTREME, 100, 100);
      held(b, 1, LONG, 100);
      assertUses(0, liza.allocate(sst(MEDIUM), b.build()));
    }

    @Test
    void keepsEachFileInZonesOfItsClassWhereTheDeviceBindsThem() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, EXTREME, 100, 100).ioClass(0, ZoneIoClass.DATA); // diff 2 for MEDIUM
      closed(b, 1, LONG, 100, 100).ioClass(1, ZoneIoClass.WAL); // diff 1, but the WAL's
      assertUses(0, liza.allocate(sst(MEDIUM), b.build()));
      ZoneTable.Builder w = table(8, 0, 0);
      closed(w, 0, SHORT, 100, 100).ioClass(0, ZoneIoClass.DATA); // the WAL's own lifetime
      closed(w, 1, EXTREME, 100, 100).ioClass(1, ZoneIoClass.WAL);
      assertUses(1, liza.allocate(wal(), w.build()));
      // No class (devices that do not bind zones): as ZenFS, the lifetime decides.
      ZoneTable.Builder n = table(8, 0, 0);
      closed(n, 0, EXTREME, 100, 100);
      closed(n, 1, LONG, 100, 100);
      assertUses(1, liza.allocate(sst(MEDIUM), n.build()));
    }

    @Test
    void skipsZonesWithoutLiveData() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, EXTREME, 100, 100);
      closed(b, 1, LONG, 500, 0); // all its files were deleted; waits for a reset
      assertUses(0, liza.allocate(sst(MEDIUM), b.build()));
    }

    @Test
    void neverChoosesFullReadOnlyOfflineOrReservedZones() {
      ZoneTable.Builder b = table(8, 0, 0);
      full(b, 0, 500).zone(0, FULL, CAP, LONG);
      closed(b, 1, LONG, 100, 100).reserve(1, ZoneReservation.WAL);
      closed(b, 2, LONG, 100, 100).reserve(2, ZoneReservation.METADATA);
      b.reserve(3, ZoneReservation.METADATA); // empty and first: still not a candidate
      SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
      t.markReadOnly(4);
      t.markOffline(5);
      assertOpensEmpty(6, MEDIUM, List.of(), liza.allocate(sst(MEDIUM), t));
    }

    @Test
    void aNotSetFileOnlyMatchesANotSetZone() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, LONG, 100, 100);
      closed(b, 1, NOT_SET, 100, 100);
      closed(b, 2, NONE, 100, 100);
      assertUses(1, liza.allocate(file(FileKind.MANIFEST, NOT_SET), b.build()));

      ZoneTable.Builder c = table(8, 0, 0);
      closed(c, 0, LONG, 100, 100);
      closed(c, 1, EXTREME, 100, 100);
      assertOpensEmpty(
          2, NOT_SET, List.of(), liza.allocate(file(FileKind.CURRENT, NOT_SET), c.build()));
    }

    @Test
    void aNoneFileOnlyMatchesANoneZone() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, NOT_SET, 100, 100);
      closed(b, 1, NONE, 100, 100);
      closed(b, 2, EXTREME, 100, 100);
      assertUses(1, liza.allocate(sst(NONE), b.build()));
    }

    @Test
    void theWalPrefersALongerLivedZoneOverAShortOne() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, MEDIUM, 100, 100); // diff 1
      closed(b, 1, SHORT, 100, 100); // diff 50
      assertUses(0, liza.allocate(wal(), b.build()));
    }
  }

  /** AllocateIOZone: best_diff >= COULD_BE_WORSE, then AllocateEmptyZone. */
  @Nested
  class BadMatch {

    @Test
    void opensTheFirstFreeEmptyZoneWhenAnActiveTokenIsFree() {
      ZoneTable.Builder b = table(8, 6, 6); // 4 open / 4 active I/O tokens
      closed(b, 0, SHORT, 100, 100); // NOT_GOOD for LONG
      held(b, 1, LONG, 0); // empty, but another writer just took it
      Allocation a = liza.allocate(sst(LONG), b.build());
      assertOpensEmpty(2, LONG, List.of(), a);
      assertEquals(OptionalInt.of(2), a.zone());
    }

    @Test
    void aSameLifetimeZoneStillLosesToANewZoneWhileTokensAreFree() {
      ZoneTable.Builder b = table(8, 6, 6);
      closed(b, 0, LONG, 100, 100); // diff 50
      assertOpensEmpty(1, LONG, List.of(), liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void atTheActiveLimitASameLifetimeZoneIsUsedInsteadOfFinishing() {
      ZoneTable.Builder b = table(8, 6, 5); // 3 active I/O tokens
      closed(b, 0, LONG, 100, 100); // diff 50
      closed(b, 1, SHORT, 900, 900);
      closed(b, 2, SHORT, 200, 200);
      Allocation a = liza.allocate(sst(LONG), b.build());
      assertUses(0, a);
      assertEquals(List.of(), a.finishFirst());
      assertTrue(a.reason().contains("avoided a finish"), a.reason());
    }
  }

  /** FinishCheapestIOZone. */
  @Nested
  class ActiveLimit {

    @Test
    void finishesTheZoneWithLeastCapacityLeftThenOpensAnEmptyZone() {
      ZoneTable.Builder b = table(8, 6, 5); // 3 active I/O tokens, all in use
      closed(b, 0, SHORT, 400, 400); // 600 left
      closed(b, 1, SHORT, 900, 900); // 100 left: cheapest
      closed(b, 2, NONE, 700, 700); // 300 left
      assertOpensEmpty(3, LONG, List.of(1), liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void aTieFinishesTheFirstZone() {
      ZoneTable.Builder b = table(8, 6, 5);
      closed(b, 0, SHORT, 400, 400);
      closed(b, 1, SHORT, 900, 900);
      closed(b, 2, NONE, 900, 900);
      assertOpensEmpty(3, LONG, List.of(1), liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void zonesHeldByWritersAreNeverFinished() {
      ZoneTable.Builder b = table(8, 6, 5);
      closed(b, 0, SHORT, 400, 400);
      held(b, 1, SHORT, 950); // cheapest, but a writer holds it
      closed(b, 2, NONE, 700, 700);
      assertOpensEmpty(3, LONG, List.of(2), liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void theRejectedNotGoodCandidateMayItselfBeFinished() {
      ZoneTable.Builder b = table(8, 6, 5);
      closed(b, 0, SHORT, 990, 990); // best match (diff 100 for everything) and cheapest
      closed(b, 1, NONE, 100, 100);
      closed(b, 2, NONE, 100, 100);
      assertOpensEmpty(3, MEDIUM, List.of(0), liza.allocate(sst(MEDIUM), b.build()));
    }

    @Test
    void waitsWhenEveryActiveZoneIsHeldByAWriter() {
      ZoneTable.Builder b = table(8, 6, 5);
      held(b, 0, SHORT, 400);
      held(b, 1, MEDIUM, 900);
      held(b, 2, LONG, 100);
      Allocation a = liza.allocate(wal(), b.build());
      Allocation.Wait w = assertInstanceOf(Allocation.Wait.class, a);
      assertEquals(Allocation.Resource.ACTIVE_TOKEN, w.resource());
      assertEquals(List.of(), w.finishFirst());
      assertEquals(OptionalInt.empty(), a.zone());
    }

    @Test
    void aboveTheLimitFinishesUntilATokenIsFree() {
      // After a mount the device may report more active zones than the I/O limit
      // (the reserved tokens are counted there too): finish until one is free.
      ZoneTable.Builder b = table(10, 6, 5); // I/O limit 3, device limit 5
      closed(b, 0, SHORT, 500, 500); // 500 left
      closed(b, 1, SHORT, 800, 800); // 200 left
      closed(b, 2, SHORT, 600, 600); // 400 left
      closed(b, 3, SHORT, 900, 900); // 100 left
      closed(b, 4, SHORT, 300, 300); // 700 left
      assertOpensEmpty(5, LONG, List.of(3, 1, 2), liza.allocate(sst(LONG), b.build()));
    }
  }

  /** WaitForOpenIOZoneToken(prioritized). */
  @Nested
  class WalPriority {

    @Test
    void otherFilesLeaveTheLastOpenTokenToTheWal() {
      ZoneTable.Builder b = table(8, 6, 6); // 4 open I/O tokens
      held(b, 0, MEDIUM, 100);
      held(b, 1, LONG, 100);
      held(b, 2, EXTREME, 100);
      SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
      Allocation sst = liza.allocate(sst(LONG), t);
      Allocation.Wait w = assertInstanceOf(Allocation.Wait.class, sst);
      assertEquals(Allocation.Resource.OPEN_TOKEN, w.resource());
      assertOpensEmpty(3, SHORT, List.of(), liza.allocate(wal(), t));
    }

    @Test
    void theWalWaitsOnlyWhenEveryOpenTokenIsTaken() {
      ZoneTable.Builder b = table(8, 6, 6);
      for (int z = 0; z < 4; z++) {
        held(b, z, MEDIUM, 100);
      }
      Allocation a = liza.allocate(wal(), b.build());
      assertEquals(
          Allocation.Resource.OPEN_TOKEN, assertInstanceOf(Allocation.Wait.class, a).resource());
    }

    @Test
    void theWalSkipsTheFinishThreshold() {
      LizaPolicy withThreshold = new LizaPolicy(10);
      ZoneTable.Builder b = table(8, 6, 6);
      closed(b, 0, MEDIUM, 950, 950); // 50 left < 10% of 1000
      SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
      Allocation walAlloc = withThreshold.allocate(wal(), t);
      assertUses(0, walAlloc); // diff 1, not finished first
      assertEquals(List.of(), walAlloc.finishFirst());
      Allocation sstAlloc = withThreshold.allocate(sst(SHORT), t);
      assertEquals(List.of(0), sstAlloc.finishFirst());
    }
  }

  /** ZonedBlockDevice::Open's reserved tokens, TakeMigrateZone's use of one. */
  @Nested
  class ReservedTokens {

    @Test
    void metadataFilesNeverTakeTheWalsLastOpenToken() {
      ZoneTable.Builder b = table(16, 14, 14); // ZN540-like: 12 open I/O tokens after 2 reserved
      for (int z = 0; z < 11; z++) {
        held(b, z, MEDIUM, 100);
      }
      SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
      assertEquals(12, t.tokens().maxOpenIo());
      for (FileKind meta :
          new FileKind[] {FileKind.MANIFEST, FileKind.CURRENT, FileKind.OPTIONS, FileKind.TEMP}) {
        Allocation a = liza.allocate(file(meta, NOT_SET), t);
        assertEquals(
            Allocation.Resource.OPEN_TOKEN,
            assertInstanceOf(Allocation.Wait.class, a).resource(),
            meta.name());
      }
      assertOpensEmpty(11, SHORT, List.of(), liza.allocate(wal(), t));
    }

    @Test
    void fileWritesNeverUseTheTokensReservedForMetadataAndGc() {
      // 12 I/O tokens in use: the device would still allow 2 more opens, LIZA gives them to nobody.
      ZoneTable.Builder b = table(16, 14, 14);
      for (int z = 0; z < 12; z++) {
        held(b, z, MEDIUM, 100);
      }
      SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
      assertEquals(12, t.tokens().openIo());
      assertInstanceOf(Allocation.Wait.class, liza.allocate(wal(), t));
      assertInstanceOf(Allocation.Wait.class, liza.allocate(file(FileKind.MANIFEST, NOT_SET), t));
    }

    @Test
    void gcMigrationWritesOnTheReservedTokenWhenFileWritesMustWait() {
      ZoneTable.Builder b = table(16, 14, 14);
      for (int z = 0; z < 12; z++) {
        held(b, z, MEDIUM, 100);
      }
      closed(b, 12, EXTREME, 100, 100);
      SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
      assertInstanceOf(Allocation.Wait.class, liza.allocate(sst(LONG), t));
      assertUses(12, liza.allocate(migration(LONG, 300), t));
    }

    @Test
    void reservedZonesAreNeverOpened() {
      ZoneTable.Builder b = table(8, 6, 6);
      b.reserve(0, ZoneReservation.METADATA).reserve(1, ZoneReservation.METADATA);
      b.reserve(2, ZoneReservation.WAL);
      assertOpensEmpty(3, SHORT, List.of(), liza.allocate(wal(), b.build()));
    }
  }

  /** AllocateEmptyZone finding nothing: ZenFS's "Zone allocation failure". */
  @Nested
  class OutOfSpace {

    @Test
    void noSpaceOnlyWhenNoEmptyZoneNoFittingOpenZoneAndNothingReclaimable() {
      ZoneTable.Builder b = table(4, 0, 0);
      full(b, 0, CAP);
      full(b, 1, CAP);
      full(b, 2, CAP);
      closed(b, 3, SHORT, 500, 500); // room, but NOT_GOOD for LONG
      Allocation a = liza.allocate(sst(LONG), b.build());
      Allocation.NoSpace n = assertInstanceOf(Allocation.NoSpace.class, a);
      assertEquals(List.of(), n.finishFirst());
      assertTrue(n.reason().contains("no empty zone"), n.reason());
    }

    @Test
    void emptyZonesTheFileSystemKeepsAreNeverOpened() {
      ZoneTable.Builder b = table(5, 0, 0);
      full(b, 0, CAP);
      full(b, 1, 400); // garbage
      closed(b, 2, SHORT, 500, 500); // room, but NOT_GOOD for LONG
      b.emptyZonesKept(2, 1); // zones 3 and 4 kept: the fs's reserve and one over-provisioning
      Allocation a = liza.allocate(sst(LONG), b.build());
      assertTrue(
          assertInstanceOf(Allocation.NeedGc.class, a).reason().contains("beyond the 2 kept"),
          a.reason());
      b.emptyZonesKept(2, 0); // without over-provisioning LIZA asks as ZenFS (the fs decides)
      Allocation.OpenEmptyZone o =
          assertInstanceOf(Allocation.OpenEmptyZone.class, liza.allocate(sst(LONG), b.build()));
      assertEquals(3, o.target());
    }

    @Test
    void aFittingOpenZoneIsUsedWhenNoZoneIsEmpty() {
      ZoneTable.Builder b = table(4, 0, 0);
      full(b, 0, CAP);
      full(b, 1, CAP);
      full(b, 2, CAP);
      closed(b, 3, EXTREME, 500, 500);
      assertUses(3, liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void needGcWhenAFullZoneHoldsGarbage() {
      ZoneTable.Builder b = table(4, 0, 0);
      full(b, 0, CAP);
      full(b, 1, 400); // 600 bytes of garbage
      full(b, 2, CAP);
      full(b, 3, CAP);
      assertInstanceOf(Allocation.NeedGc.class, liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void needGcWhenAPartlyWrittenZoneHasNoLiveDataLeft() {
      ZoneTable.Builder b = table(3, 0, 0);
      full(b, 0, CAP);
      full(b, 1, CAP);
      closed(b, 2, SHORT, 500, 0); // ResetUnusedIOZones would empty it
      assertInstanceOf(Allocation.NeedGc.class, liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void zonesHeldByWritersDoNotCountAsReclaimable() {
      ZoneTable.Builder b = table(3, 0, 0);
      full(b, 0, CAP);
      full(b, 1, CAP);
      held(b, 2, SHORT, 0);
      assertInstanceOf(Allocation.NoSpace.class, liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void likeZenFsASameLifetimeZoneIsDroppedWhenATokenIsFreeButNoZoneIsEmpty() {
      // ZenFS releases the diff-50 candidate once it holds an active token, then finds no empty
      // zone and fails although that zone had room. Kept on purpose: LIZA exactly.
      ZoneTable.Builder b = table(3, 0, 0);
      full(b, 0, CAP);
      full(b, 1, CAP);
      closed(b, 2, LONG, 500, 500);
      assertInstanceOf(Allocation.NoSpace.class, liza.allocate(sst(LONG), b.build()));
    }

    @Test
    void zonesFinishedAtTheActiveLimitStayFinishedWhenNoZoneIsEmpty() {
      ZoneTable.Builder b = table(5, 5, 4); // 2 active I/O tokens
      full(b, 0, CAP);
      full(b, 1, CAP);
      full(b, 2, CAP);
      closed(b, 3, SHORT, 600, 600);
      closed(b, 4, SHORT, 900, 900);
      Allocation a = liza.allocate(sst(LONG), b.build());
      Allocation.NeedGc g = assertInstanceOf(Allocation.NeedGc.class, a);
      assertEquals(List.of(4), g.finishFirst());
    }
  }

  /** ApplyFinishThreshold. */
  @Nested
  class FinishThreshold {
    final LizaPolicy withThreshold = new LizaPolicy(10);

    @Test
    void nearlyFullZonesAreFinishedBeforeTheMatch() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, LONG, 950, 950); // best match, but 50 left < 100: finished
      closed(b, 1, EXTREME, 500, 500);
      held(b, 2, LONG, 960); // below the threshold but held: left alone
      Allocation a = withThreshold.allocate(sst(MEDIUM), b.build());
      assertUses(1, a);
      assertEquals(List.of(0), a.finishFirst());
    }

    @Test
    void theThresholdIsStrict() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, LONG, 900, 900); // exactly 10% left: not below
      Allocation a = withThreshold.allocate(sst(MEDIUM), b.build());
      assertUses(0, a);
      assertEquals(List.of(), a.finishFirst());
    }

    @Test
    void aTokenFreedByTheThresholdAvoidsFinishingTheCheapestZone() {
      ZoneTable.Builder b = table(8, 6, 5); // 3 active I/O tokens, all in use
      closed(b, 0, SHORT, 400, 400);
      closed(b, 1, SHORT, 920, 920); // 80 left: finished by the threshold
      closed(b, 2, SHORT, 850, 850); // 150 left: would be the cheapest after that
      assertOpensEmpty(3, LONG, List.of(1), withThreshold.allocate(sst(LONG), b.build()));
    }

    @Test
    void offByDefault() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, LONG, 999, 999);
      Allocation a = liza.allocate(sst(MEDIUM), b.build());
      assertUses(0, a);
      assertEquals(List.of(), a.finishFirst());
    }
  }

  /** TakeMigrateZone. */
  @Nested
  class GcMigration {

    @Test
    void takesTheBestMatchWithRoomForTheExtent() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, LONG, 900, 900); // diff 1 but only 100 left
      closed(b, 1, EXTREME, 500, 500); // diff 2, 500 left
      assertUses(1, liza.allocate(migration(MEDIUM, 200), b.build()));
      assertUses(0, liza.allocate(migration(MEDIUM, 100), b.build()));
    }

    @Test
    void acceptsANotGoodZoneRatherThanSkippingTheExtent() {
      ZoneTable.Builder b = table(8, 0, 0);
      closed(b, 0, SHORT, 100, 100);
      assertUses(0, liza.allocate(migration(EXTREME, 300), b.build()));
    }

    @Test
    void neverOpensAnEmptyZone() {
      SimulatedZoneTable t = SimulatedZoneTable.of(table(8, 0, 0).build());
      Allocation a = liza.allocate(migration(LONG, 300), t);
      assertInstanceOf(Allocation.NoSpace.class, a);
    }

    @Test
    void neverFinishesOrWaits() {
      ZoneTable.Builder b = table(8, 6, 5);
      held(b, 0, LONG, 100);
      held(b, 1, LONG, 100);
      closed(b, 2, LONG, 990, 990); // only 10 left
      Allocation a = liza.allocate(migration(LONG, 50), b.build());
      assertInstanceOf(Allocation.NoSpace.class, a);
      assertEquals(List.of(), a.finishFirst());
    }
  }

  @Test
  void aDecisionLeavesTheTableUntouchedAndIsRepeatable() {
    ZoneTable.Builder b = table(8, 6, 5);
    closed(b, 0, SHORT, 400, 400);
    closed(b, 1, SHORT, 900, 900);
    closed(b, 2, NONE, 700, 700);
    SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
    List<ZoneInfo> before = t.zones();
    ZoneTokens tokensBefore = t.tokens();
    Allocation first = liza.allocate(sst(LONG), t);
    assertEquals(before, t.zones());
    assertEquals(tokensBefore, t.tokens());
    assertEquals(first, liza.allocate(sst(LONG), t));
  }
}
