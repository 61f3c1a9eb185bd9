package io.zkv.placement;

import static io.zkv.placement.Decisions.opened;
import static io.zkv.placement.Decisions.used;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** One test (or a few) per rule of ZoneKV's Algorithm 1 and its gaps, on hand-built zone tables. */
class ZoneKvPolicyTest {
  private static final long CAP = 1_000;
  private final ZoneKvPolicy zoneKv = new ZoneKvPolicy();

  /** 8 zones, generous limits. */
  private static ZoneTable.Builder table() {
    return ZoneTable.builder(8, CAP).deviceLimits(14, 14);
  }

  /** Zone {@code z} partly written ({@code written} bytes), tagged with class {@code cls}. */
  private static ZoneTable.Builder classZone(ZoneTable.Builder b, int z, int cls, long written) {
    return b.zone(z, ZoneCondition.CLOSED, written, WriteLifetime.MEDIUM)
        .tag(z, ZoneKvPolicy.tagOf(cls));
  }

  /** Zone {@code z} full, tagged with class {@code cls}. */
  private static ZoneTable.Builder full(ZoneTable.Builder b, int z, int cls) {
    return b.zone(z, ZoneCondition.FULL, CAP, WriteLifetime.MEDIUM).tag(z, ZoneKvPolicy.tagOf(cls));
  }

  private static AllocationRequest sst(int level) {
    return AllocationRequest.builder(99, FileKind.SST).level(level).build();
  }

  private static AllocationRequest file(FileKind kind) {
    return AllocationRequest.builder(99, kind).build();
  }

  @Test
  void classesFollowTheLevelWithL0AndL1SharingOneAndLogsApart() {
    assertEquals(-1, ZoneKvPolicy.classOf(FileKind.WAL, OptionalInt.empty()));
    assertEquals(-1, ZoneKvPolicy.classOf(FileKind.MANIFEST, OptionalInt.empty()));
    assertEquals(-1, ZoneKvPolicy.classOf(FileKind.INFO_LOG, OptionalInt.empty()));
    assertEquals(-1, ZoneKvPolicy.classOf(FileKind.OPTIONS, OptionalInt.empty()));
    assertEquals(1, ZoneKvPolicy.classOf(FileKind.SST, OptionalInt.of(0)));
    assertEquals(1, ZoneKvPolicy.classOf(FileKind.SST, OptionalInt.of(1)));
    assertEquals(2, ZoneKvPolicy.classOf(FileKind.SST, OptionalInt.of(2)));
    assertEquals(6, ZoneKvPolicy.classOf(FileKind.SST, OptionalInt.of(6)));
    assertEquals(1, ZoneKvPolicy.classOf(FileKind.SST, OptionalInt.empty())); // no hint: L0's
    assertEquals(3, ZoneKvPolicy.classOf(FileKind.UNKNOWN, OptionalInt.of(3))); // name gone
    assertEquals(0, ZoneKvPolicy.tagOf(-1)); // tags are not negative
  }

  @Test
  void phase1UsesTheFirstActiveZoneOfTheClassWithRoom() {
    ZoneTable.Builder b = table();
    classZone(b, 1, 2, 500);
    classZone(b, 2, 3, 500);
    classZone(b, 4, 3, 200);
    full(b, 5, 3);
    Allocation a = zoneKv.allocate(sst(3), b.build());
    assertEquals(2, used(a));
    assertTrue(a.reason().startsWith("phase 1"), a.reason());
    assertEquals(1, used(zoneKv.allocate(sst(2), b.build())));
  }

  @Test
  void theWalReserveGetsAnEmptyZoneOfTheLogsClassAndAtTheActiveLimitFinishesTheCheapest() {
    AllocationRequest reserve =
        AllocationRequest.builder(7, FileKind.WAL).purpose(AllocationPurpose.WAL_RESERVE).build();
    ZoneTable.Builder b = table();
    classZone(b, 1, 2, 500); // a class zone with room: never kept for the WAL
    Allocation.OpenEmptyZone o = opened(zoneKv.allocate(reserve, b.build()));
    assertEquals(OptionalInt.of(ZoneKvPolicy.tagOf(ZoneKvPolicy.LOG_CLASS)), o.tag());
    assertEquals(0, o.target());
    assertTrue(o.finishFirst().isEmpty());
    // at the active limit (2 of 4 tokens left to file writes after the 2 reserved)
    ZoneTable.Builder tight = ZoneTable.builder(8, CAP).deviceLimits(4, 4);
    classZone(tight, 1, 2, 500);
    classZone(tight, 2, 3, 900);
    Allocation.OpenEmptyZone f = opened(zoneKv.allocate(reserve, tight.build()));
    assertEquals(java.util.List.of(2), f.finishFirst()); // the least room
  }

  @Test
  void l0AndL1ShareZones() {
    ZoneTable.Builder b = table();
    classZone(b, 3, 1, 100);
    assertEquals(3, used(zoneKv.allocate(sst(0), b.build())));
    assertEquals(3, used(zoneKv.allocate(sst(1), b.build())));
  }

  @Test
  void aZoneBeingWrittenIsNotShared() {
    ZoneTable.Builder b = table();
    classZone(b, 1, 2, 100).busy(1);
    Allocation.OpenEmptyZone o = opened(zoneKv.allocate(sst(2), b.build()));
    assertEquals(0, o.target());
  }

  @Test
  void phase2OpensAnEmptyZoneTaggedWithTheClass() {
    ZoneTable.Builder b = table();
    classZone(b, 0, 1, 100);
    Allocation.OpenEmptyZone o = opened(zoneKv.allocate(sst(4), b.build()));
    assertEquals(1, o.target());
    assertEquals(OptionalInt.of(5), o.tag());
    assertEquals(List.of(), o.finishFirst());
    assertEquals(OptionalInt.of(0), opened(zoneKv.allocate(file(FileKind.WAL), b.build())).tag());
  }

  @Test
  void atTheActiveLimitTheActiveZoneWithLeastRoomIsFinishedNotClosed() {
    // limit 5 active, 2 reserved: 3 for files, all taken by classes 1, 2, 3
    ZoneTable.Builder b = ZoneTable.builder(8, CAP).deviceLimits(5, 5);
    classZone(b, 0, 1, 300);
    classZone(b, 1, 2, 900); // least room: 100
    classZone(b, 2, 3, 900).busy(2); // as little room, but being written
    Allocation.OpenEmptyZone o = opened(zoneKv.allocate(sst(4), b.build()));
    assertEquals(3, o.target());
    assertEquals(List.of(1), o.finishFirst());
    assertTrue(o.reason().contains("zone 1 finished (least room)"), o.reason());
  }

  @Test
  void atTheActiveLimitWithEveryActiveZoneBeingWrittenItWaits() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP).deviceLimits(14, 5);
    classZone(b, 0, 1, 300).busy(0);
    classZone(b, 1, 2, 900).busy(1);
    classZone(b, 2, 3, 900).busy(2);
    Allocation.Wait w = assertInstanceOf(Allocation.Wait.class, zoneKv.allocate(sst(4), b.build()));
    assertEquals(Allocation.Resource.ACTIVE_TOKEN, w.resource());
  }

  @Test
  void withoutAFreeOpenTokenItWaitsAndLeavesTheLastToTheWal() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP).deviceLimits(5, 14); // 3 open tokens
    classZone(b, 0, 1, 100).busy(0);
    classZone(b, 1, 2, 100).busy(1);
    Allocation.Wait w = assertInstanceOf(Allocation.Wait.class, zoneKv.allocate(sst(3), b.build()));
    assertEquals(Allocation.Resource.OPEN_TOKEN, w.resource());
    opened(zoneKv.allocate(file(FileKind.WAL), b.build()));
  }

  @Test
  void phase3PrefersTheFirstLongerLivedClassThenAnyZoneWithRoom() {
    ZoneTable.Builder b = table();
    for (int z = 0; z < 8; z++) {
      full(b, z, 1);
    }
    classZone(b, 2, 2, 500);
    classZone(b, 4, 5, 500);
    classZone(b, 6, 6, 500);
    Allocation a = zoneKv.allocate(sst(3), b.build());
    assertEquals(4, used(a));
    assertTrue(a.reason().startsWith("phase 3: zone of the longer-lived class 5"), a.reason());
    Allocation any = zoneKv.allocate(sst(7), b.build());
    assertEquals(2, used(any)); // nothing longer-lived than 7 has room: the first with room
    assertTrue(any.reason().startsWith("phase 3: the first zone with room"), any.reason());
  }

  @Test
  void noSstEverGoesIntoALogZoneEvenWithoutATag() {
    ZoneTable.Builder b = table();
    for (int z = 0; z < 8; z++) {
      if (z != 3) {
        full(b, z, 1);
      }
    }
    classZone(b, 1, -1, 100); // a tagged log zone with room
    b.zone(3, ZoneCondition.CLOSED, 100, WriteLifetime.SHORT); // untagged...
    b.file(
        new FileInfo(7, FileKind.WAL, WriteLifetime.SHORT, OptionalInt.empty(), Optional.empty()));
    b.live(3, 7, 100); // ...holding a WAL
    ZoneTable t = b.build();
    assertEquals(OptionalInt.of(-1), ZoneKvPolicy.zoneClass(t, 3));
    Allocation a = zoneKv.allocate(sst(2), t);
    assertTrue(a instanceof Allocation.NeedGc || a instanceof Allocation.NoSpace, a.reason());
    assertEquals(1, used(zoneKv.allocate(file(FileKind.WAL), t))); // a log may go there
  }

  @Test
  void anUntaggedZoneHasTheClassOfItsLongestLivedFile() {
    ZoneTable.Builder b = table();
    b.zone(2, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    for (long id = 1; id <= 2; id++) {
      b.file(
          new FileInfo(
              id,
              FileKind.SST,
              WriteLifetime.MEDIUM,
              OptionalInt.of((int) id + 2),
              Optional.empty()));
      b.live(2, id, 100);
    }
    ZoneTable t = b.build();
    assertEquals(OptionalInt.of(4), ZoneKvPolicy.zoneClass(t, 2)); // L3 and L4: class 4
    assertEquals(2, used(zoneKv.allocate(sst(4), t)));
    ZoneTable.Builder empty = table();
    empty.zone(1, ZoneCondition.CLOSED, 300, WriteLifetime.MEDIUM);
    assertEquals(
        OptionalInt.empty(),
        ZoneKvPolicy.zoneClass(empty.build(), 1)); // nothing live, no tag: no class
  }

  @Test
  void withNoRoomAnywhereItAsksForGcIfGarbageExistsElseNoSpace() {
    ZoneTable.Builder b = table();
    for (int z = 0; z < 8; z++) {
      full(b, z, 2);
      b.file(
          new FileInfo(z, FileKind.SST, WriteLifetime.MEDIUM, OptionalInt.of(2), Optional.empty()));
      b.live(z, z, CAP);
    }
    assertInstanceOf(Allocation.NoSpace.class, zoneKv.allocate(sst(2), b.build()));
    ZoneTable.Builder g = table();
    for (int z = 0; z < 8; z++) {
      full(g, z, 2); // all garbage
    }
    assertInstanceOf(Allocation.NeedGc.class, zoneKv.allocate(sst(2), g.build()));
  }

  @Test
  void emptyZonesTheFileSystemKeepsAreNotOpened() {
    ZoneTable.Builder b = table();
    for (int z = 0; z < 5; z++) {
      full(b, z, 3);
    }
    classZone(b, 5, 6, 500); // zones 6, 7 empty, both kept (a reserve, an over-provisioning one)
    b.emptyZonesKept(2, 1);
    Allocation a = zoneKv.allocate(sst(2), b.build());
    assertEquals(5, used(a)); // phase 3, not phase 2
    b.emptyZonesKept(1, 1);
    assertEquals(6, opened(zoneKv.allocate(sst(2), b.build())).target());
  }

  @Test
  void gcMigrationGoesToAZoneOfTheFilesClassWithRoomForTheExtent() {
    ZoneTable.Builder b = table();
    classZone(b, 1, 3, 900); // room 100
    classZone(b, 2, 3, 500); // room 500
    b.file(new FileInfo(9, FileKind.SST, WriteLifetime.LONG, OptionalInt.of(3), Optional.empty()));
    AllocationRequest move =
        AllocationRequest.builder(9, FileKind.SST)
            .level(3)
            .purpose(AllocationPurpose.GC_MIGRATION)
            .expectedSize(300)
            .build();
    assertEquals(2, used(zoneKv.allocate(move, b.build())));
  }

  @Test
  void aDeviceWithFewerThanThreeActiveZonesForFilesIsRefused() {
    zoneKv.checkDevice(3);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> zoneKv.checkDevice(2));
    assertTrue(e.getMessage().contains("needs 3 active zones"), e.getMessage());
    new LizaPolicy().checkDevice(1); // LIZA needs one
  }
}
