package io.zkv.placement;

import static io.zkv.placement.WriteLifetime.LONG;
import static io.zkv.placement.WriteLifetime.MEDIUM;
import static io.zkv.placement.WriteLifetime.NOT_SET;
import static io.zkv.placement.ZoneCondition.CLOSED;
import static io.zkv.placement.ZoneCondition.EMPTY;
import static io.zkv.placement.ZoneCondition.FULL;
import static io.zkv.placement.ZoneCondition.OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ZoneTableTest {
  static final long CAP = 1_000;

  static void assertMessage(Throwable t, String part) {
    assertTrue(
        t.getMessage().contains(part), () -> "'" + t.getMessage() + "' lacks '" + part + "'");
  }

  @Test
  void newTableIsAllEmptyWithZenFsTokenLimits() {
    SimulatedZoneTable t =
        SimulatedZoneTable.of(ZoneTable.builder(40, CAP).deviceLimits(14, 14).build());
    assertEquals(40, t.zoneCount());
    assertEquals(new ZoneTokens(12, 12, 0, 0, 2), t.tokens());
    for (ZoneInfo z : t.zones()) {
      assertEquals(EMPTY, z.condition());
      assertEquals(NOT_SET, z.lifetime());
      assertEquals(CAP, z.remaining());
      assertTrue(z.isEmpty());
      assertTrue(z.isIoZone());
      assertFalse(z.holdsActiveToken());
    }
  }

  @Test
  void noDeviceLimitMeansTheZoneCount() {
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(40, CAP).build());
    assertEquals(new ZoneTokens(40, 40, 0, 0, 2), t.tokens());
    ZoneTable r = ZoneTable.builder(40, CAP).deviceLimits(8, 10).reservedTokens(3).build();
    assertEquals(new ZoneTokens(5, 7, 0, 0, 3), r.tokens());
  }

  @Test
  void limitsThatLeaveTooFewTokensAreRejected() {
    IllegalArgumentException open =
        assertThrows(
            IllegalArgumentException.class,
            () -> ZoneTable.builder(8, CAP).deviceLimits(3, 14).build());
    assertMessage(open, "need 2");
    IllegalArgumentException active =
        assertThrows(
            IllegalArgumentException.class,
            () -> ZoneTable.builder(8, CAP).deviceLimits(14, 2).build());
    assertMessage(active, "active");
    assertThrows(
        IllegalArgumentException.class, () -> ZoneTable.builder(8, CAP).deviceLimits(-1, 0));
    assertThrows(
        IllegalArgumentException.class, () -> ZoneTable.builder(8, CAP).reservedTokens(-1));
    assertThrows(IllegalArgumentException.class, () -> ZoneTable.builder(0, CAP));
    assertThrows(IllegalArgumentException.class, () -> ZoneTable.builder(8, 0));
  }

  @Test
  void writerLifecycleMovesConditionsAndTokensLikeZenFs() {
    SimulatedZoneTable t =
        SimulatedZoneTable.of(ZoneTable.builder(8, CAP).deviceLimits(6, 6).build());
    t.acquire(2, LONG, OptionalInt.of(7));
    ZoneInfo held = t.zone(2);
    assertTrue(held.busy());
    assertEquals(EMPTY, held.condition());
    assertEquals(LONG, held.lifetime());
    assertEquals(OptionalInt.of(7), held.tag());
    assertEquals(new ZoneTokens(4, 4, 1, 1, 2), t.tokens()); // empty but holds both tokens

    t.append(2, 11, 300);
    assertEquals(OPEN, t.zone(2).condition());
    assertEquals(300, t.zone(2).liveBytes());
    assertEquals(700, t.zone(2).remaining());

    t.release(2);
    assertEquals(CLOSED, t.zone(2).condition());
    assertEquals(new ZoneTokens(4, 4, 0, 1, 2), t.tokens()); // closed: still active

    t.acquire(2, MEDIUM); // a written zone keeps its lifetime and tag
    assertEquals(LONG, t.zone(2).lifetime());
    assertEquals(OptionalInt.of(7), t.zone(2).tag());
    t.append(2, 12, 700);
    assertEquals(FULL, t.zone(2).condition());
    assertEquals(0, t.zone(2).remaining());
    assertEquals(new ZoneTokens(4, 4, 1, 1, 2), t.tokens()); // the writer still holds it
    t.release(2);
    assertEquals(FULL, t.zone(2).condition());
    assertEquals(new ZoneTokens(4, 4, 0, 0, 2), t.tokens());
  }

  @Test
  void aFullZoneTheFileSystemHoldsIsBusyButHoldsNoToken() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP).deviceLimits(4, 3); // one active token
    b.zone(0, CLOSED, 100, LONG); // the one active zone
    for (int z = 1; z < 4; z++) {
      b.zone(z, FULL, CAP, LONG).claimed(z); // resets pending: more than any limit
    }
    ZoneTable t = b.build();
    assertTrue(t.zone(2).busy());
    assertEquals(new ZoneTokens(2, 1, 0, 1, 2), t.tokens());
    ZoneTable.Builder open = ZoneTable.builder(8, CAP);
    open.zone(0, CLOSED, 100, LONG);
    assertMessage(
        assertThrows(IllegalStateException.class, () -> open.claimed(0)), "only a full zone");
  }

  @Test
  void finishReturnsTheActiveToken() {
    SimulatedZoneTable t =
        SimulatedZoneTable.of(ZoneTable.builder(8, CAP).deviceLimits(6, 6).build());
    t.acquire(0, LONG);
    t.append(0, 1, 100);
    t.release(0);
    assertEquals(1, t.tokens().activeIo());
    t.finish(0);
    assertEquals(FULL, t.zone(0).condition());
    assertEquals(100, t.zone(0).written());
    assertEquals(0, t.tokens().activeIo());
    assertMessage(assertThrows(IllegalArgumentException.class, () -> t.finish(0)), "cannot finish");
  }

  @Test
  void releasingAnUnwrittenZoneLeavesItEmpty() {
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(8, CAP).build());
    t.acquire(1, LONG);
    t.release(1);
    assertEquals(EMPTY, t.zone(1).condition());
    assertEquals(0, t.tokens().activeIo());
  }

  @Test
  void writesMustBeHeldAndFit() {
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(8, CAP).build());
    assertMessage(
        assertThrows(IllegalArgumentException.class, () -> t.append(0, 1, 10)), "acquire it");
    t.acquire(0, LONG);
    assertMessage(
        assertThrows(IllegalArgumentException.class, () -> t.append(0, 1, CAP + 1)), "left");
    assertThrows(IllegalArgumentException.class, () -> t.append(0, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> t.append(0, -1, 10));
    assertMessage(
        assertThrows(IllegalArgumentException.class, () -> t.acquire(0, LONG)), "already held");
    assertMessage(assertThrows(IllegalArgumentException.class, () -> t.finish(0)), "held");
    assertMessage(assertThrows(IllegalArgumentException.class, () -> t.release(1)), "not held");
    assertThrows(IndexOutOfBoundsException.class, () -> t.zone(8));
    assertThrows(IndexOutOfBoundsException.class, () -> t.acquire(-1, LONG));
  }

  @Test
  void reservedReadOnlyAndOfflineZonesCannotBeTaken() {
    SimulatedZoneTable t =
        SimulatedZoneTable.of(
            ZoneTable.builder(8, CAP)
                .reserve(0, ZoneReservation.METADATA)
                .reserve(1, ZoneReservation.WAL)
                .build());
    assertMessage(
        assertThrows(IllegalArgumentException.class, () -> t.acquire(0, LONG)), "METADATA");
    assertMessage(assertThrows(IllegalArgumentException.class, () -> t.acquire(1, LONG)), "WAL");
    t.markReadOnly(2);
    t.markOffline(3);
    assertMessage(
        assertThrows(IllegalArgumentException.class, () -> t.acquire(2, LONG)), "not writable");
    assertThrows(IllegalArgumentException.class, () -> t.acquire(3, LONG));
    assertFalse(t.zone(3).isIoZone());
    assertEquals(0, t.zone(2).remaining());
    assertMessage(assertThrows(IllegalArgumentException.class, () -> t.reset(2)), "READ_ONLY");
  }

  @Test
  void theDeviceOpenLimitIsEnforcedIncludingReservedTokens() {
    SimulatedZoneTable t =
        SimulatedZoneTable.of(
            ZoneTable.builder(8, CAP).deviceLimits(4, 8).build()); // 2 I/O + 2 reserved
    for (int z = 0; z < 4; z++) {
      t.acquire(z, LONG); // the last two on reserved tokens (metadata, migration)
    }
    assertMessage(
        assertThrows(IllegalStateException.class, () -> t.acquire(4, LONG)), "open limit");
  }

  @Test
  void theDeviceActiveLimitIsEnforced() {
    SimulatedZoneTable t =
        SimulatedZoneTable.of(ZoneTable.builder(8, CAP).deviceLimits(8, 4).build());
    for (int z = 0; z < 4; z++) {
      t.acquire(z, LONG);
      t.append(z, z, 10);
      t.release(z);
    }
    assertMessage(
        assertThrows(IllegalStateException.class, () -> t.acquire(4, LONG)), "active limit");
    t.acquire(0, LONG); // already active: no new active token needed
  }

  @Test
  void extentsAreTrackedPerZoneAndFile() {
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(8, CAP).build());
    t.acquire(0, LONG);
    t.append(0, 5, 400);
    t.append(0, 6, 100);
    t.release(0);
    t.acquire(1, LONG);
    t.append(1, 5, 250);
    t.release(1);
    assertEquals(Set.of(5L, 6L), t.filesIn(0));
    assertEquals(List.of(5L, 6L), List.copyOf(t.filesIn(0)));
    assertEquals(Set.of(0, 1), t.zonesOf(5));
    assertEquals(Set.of(0), t.zonesOf(6));
    assertEquals(Set.of(), t.zonesOf(99));
    assertEquals(400, t.liveBytes(0, 5));
    assertThrows(UnsupportedOperationException.class, () -> t.filesIn(0).add(1L));

    assertEquals(650, t.deleteFile(5));
    assertEquals(Set.of(6L), t.filesIn(0));
    assertEquals(Set.of(), t.zonesOf(5));
    assertEquals(100, t.zone(0).liveBytes());
    assertEquals(500, t.zone(0).written());
    assertEquals(400, t.zone(0).garbageBytes());
    assertEquals(0, t.zone(1).liveBytes());
  }

  @Test
  void invalidateDropsMigratedBytes() {
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(8, CAP).build());
    t.acquire(0, LONG);
    t.append(0, 5, 400);
    t.release(0);
    t.invalidate(0, 5, 150);
    assertEquals(250, t.liveBytes(0, 5));
    t.invalidate(0, 5, 250);
    assertEquals(Set.of(), t.filesIn(0));
    assertEquals(Set.of(), t.zonesOf(5));
    assertMessage(
        assertThrows(IllegalArgumentException.class, () -> t.invalidate(0, 5, 1)), "has 0 live");
  }

  @Test
  void resetNeedsAZoneWithoutLiveData() {
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(8, CAP).build());
    t.acquire(0, LONG, OptionalInt.of(3));
    t.append(0, 5, 400);
    t.release(0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.reset(0));
    assertMessage(e, "400 live bytes");
    assertMessage(e, "[5]");
    t.deleteFile(5);
    t.reset(0);
    ZoneInfo z = t.zone(0);
    assertEquals(EMPTY, z.condition());
    assertEquals(0, z.written());
    assertEquals(NOT_SET, z.lifetime());
    assertEquals(OptionalInt.empty(), z.tag());
    assertEquals(0, t.tokens().activeIo());
  }

  @Test
  void fileInformationIsKeptAndDroppedWithTheFile() {
    KeyRange r = KeyRange.of(new byte[] {1}, new byte[] {9});
    FileInfo f = new FileInfo(5, FileKind.SST, LONG, OptionalInt.of(2), Optional.empty());
    SimulatedZoneTable t = SimulatedZoneTable.of(ZoneTable.builder(8, CAP).file(f).build());
    assertEquals(Optional.of(f), t.file(5));
    t.putFile(f.withKeyRange(r));
    assertEquals(Optional.of(r), t.file(5).orElseThrow().keyRange());
    assertEquals(1, t.files().size());
    t.deleteFile(5);
    assertEquals(Optional.empty(), t.file(5));
    assertTrue(t.files().isEmpty());
  }

  @Test
  void builderRejectsImpossibleZones() {
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> ZoneTable.builder(4, CAP).zone(0, EMPTY, 10, LONG).build()),
        "EMPTY but 10");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> ZoneTable.builder(4, CAP).zone(0, CLOSED, 0, LONG).build()),
        "CLOSED needs");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> ZoneTable.builder(4, CAP).zone(0, OPEN, CAP, LONG).build()),
        "would be FULL");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> ZoneTable.builder(4, CAP).zone(0, CLOSED, 100, LONG).live(0, 1, 101).build()),
        "live bytes 101");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> ZoneTable.builder(4, CAP).zone(0, FULL, CAP + 1, LONG).build()),
        "written bytes");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class, () -> ZoneTable.builder(4, CAP).capacity(1, 0).build()),
        "capacity must be > 0");
    assertThrows(IllegalArgumentException.class, () -> ZoneTable.builder(4, CAP).live(0, 1, 0));
    assertThrows(IndexOutOfBoundsException.class, () -> ZoneTable.builder(4, CAP).busy(4));
  }

  @Test
  void builderRejectsMoreBusyOrActiveZonesThanTheDeviceAllows() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP).deviceLimits(4, 8);
    for (int z = 0; z < 5; z++) {
      b.busy(z);
    }
    assertMessage(assertThrows(IllegalArgumentException.class, b::build), "open limit 4");
    ZoneTable.Builder c = ZoneTable.builder(8, CAP).deviceLimits(8, 4);
    for (int z = 0; z < 5; z++) {
      c.zone(z, CLOSED, 10, LONG);
    }
    assertMessage(assertThrows(IllegalArgumentException.class, c::build), "active limit 4");
  }

  @Test
  void reservedZonesDoNotCountAgainstIoTokens() {
    SimulatedZoneTable t =
        SimulatedZoneTable.of(
            ZoneTable.builder(8, CAP)
                .deviceLimits(6, 6)
                .reserve(0, ZoneReservation.METADATA)
                .zone(0, OPEN, 100, NOT_SET)
                .busy(0)
                .build());
    assertEquals(new ZoneTokens(4, 4, 0, 0, 2), t.tokens());
  }
}
