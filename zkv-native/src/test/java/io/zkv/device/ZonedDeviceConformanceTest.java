package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every {@link ZonedDevice} backend must show, NVMe ZNS semantics through the public
 * API only (no fault injection). A backend subclasses this and implements {@link #newDevice()}; the
 * tests read the limits from {@link ZonedDevice#geometry()} and adapt to them.
 */
public abstract class ZonedDeviceConformanceTest {
  /** A fresh, empty, opened device of the backend under test; closed after each test. */
  protected abstract DeviceUnderTest newDevice() throws Exception;

  private DeviceUnderTest dut;
  protected ZonedDevice dev;
  protected DeviceGeometry geo;
  protected int lba;
  protected long cap;

  @BeforeEach
  void openDeviceUnderTest() throws Exception {
    dut = newDevice();
    dev = dut.device();
    geo = dev.geometry();
    lba = geo.lbaSize();
    cap = geo.zoneCapacity();
    for (Zone z : dev.report()) {
      assertEquals(ZoneCondition.EMPTY, z.condition(), () -> "a fresh device has " + z);
    }
  }

  @AfterEach
  void closeDeviceUnderTest() throws IOException {
    if (dut != null) {
      dut.close();
    }
  }

  // ---------------------------------------------------------------- helpers

  /** A direct buffer of {@code len} bytes whose content is determined by {@code seed}. */
  protected static ByteBuffer pattern(int len, long seed) {
    ByteBuffer b = ByteBuffer.allocateDirect(len);
    long x = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
    for (int i = 0; i < len; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      b.put(i, (byte) x);
    }
    return b;
  }

  protected static byte[] bytes(ByteBuffer b) {
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    return a;
  }

  protected byte[] readBytes(long offset, int len) throws ZonedDeviceException {
    ByteBuffer b = ByteBuffer.allocateDirect(len);
    dev.read(offset, b);
    assertEquals(len, b.position(), "read advances the buffer position");
    b.flip();
    return bytes(b);
  }

  protected static ZoneStatusException expectStatus(ZnsStatus status, Executable op) {
    ZoneStatusException e = assertThrows(ZoneStatusException.class, op, () -> "expected " + status);
    assertEquals(status, e.status(), e::getMessage);
    assertTrue(e.code() < 0, "negative native code");
    return e;
  }

  protected Zone zone(int z) throws ZonedDeviceException {
    return dev.zone(z);
  }

  protected ZoneCondition cond(int z) throws ZonedDeviceException {
    return dev.zone(z).condition();
  }

  protected long wp(int z) throws ZonedDeviceException {
    return dev.zone(z).writePointer();
  }

  protected long start(int z) {
    return geo.zoneStart(z);
  }

  /**
   * Writes {@code blocks} blocks of pattern {@code seed} at the write pointer; returns the data.
   */
  protected byte[] writeAtWp(int z, int blocks, long seed) throws ZonedDeviceException {
    ByteBuffer b = pattern(blocks * lba, seed);
    byte[] data = bytes(b);
    dev.write(wp(z), b);
    return data;
  }

  /** The largest write this suite issues at once (backends may limit a transfer's size). */
  protected int chunk() {
    long c = Math.min(cap, 128 * 1024);
    return (int) (c / lba * lba);
  }

  /** Writes from the write pointer up to capacity, in chunks; returns all of the zone's data. */
  protected byte[] fillZone(int z, long seed) throws ZonedDeviceException {
    long w = zone(z).written();
    byte[] all = new byte[(int) cap];
    if (w > 0) {
      System.arraycopy(readBytes(start(z), (int) w), 0, all, 0, (int) w);
    }
    long i = 0;
    while (w < cap) {
      int len = (int) Math.min(chunk(), cap - w);
      ByteBuffer b = pattern(len, seed + i++);
      b.duplicate().get(all, (int) w, len);
      dev.write(start(z) + w, b);
      w += len;
    }
    return all;
  }

  protected int count(ZoneCondition c) throws ZonedDeviceException {
    int n = 0;
    for (Zone z : dev.report()) {
      n += z.condition() == c ? 1 : 0;
    }
    return n;
  }

  protected int openCount() throws ZonedDeviceException {
    return count(ZoneCondition.IMPLICITLY_OPEN) + count(ZoneCondition.EXPLICITLY_OPEN);
  }

  protected boolean activeRoomBeyondOpenLimit() {
    return geo.maxActive() == 0 || geo.maxActive() > geo.maxOpen();
  }

  protected void assumeZones(int needed) {
    assumeTrue(geo.zoneCount() >= needed, () -> "needs " + needed + " zones: " + geo);
  }

  // ---------------------------------------------------------------- geometry and report

  @Test
  void geometryIsConsistentAndReportDescribesEveryZone() throws Exception {
    assertTrue(lba == 512 || lba == 4096, () -> "block size " + lba);
    assertTrue(geo.zoneCount() > 0);
    assertTrue(cap > 0 && cap <= geo.zoneSize() && cap % lba == 0, geo::toString);
    assertTrue(geo.zoneSize() % lba == 0, geo::toString);
    assertTrue(geo.zasl() >= lba && geo.zasl() % lba == 0, geo::toString);
    if (geo.maxOpen() > 0 && geo.maxActive() > 0) {
      assertTrue(geo.maxOpen() <= geo.maxActive(), geo::toString);
    }
    List<Zone> all = dev.report();
    assertEquals(geo.zoneCount(), all.size());
    for (int i = 0; i < all.size(); i++) {
      Zone z = all.get(i);
      assertEquals(i, z.index());
      assertEquals(geo.zoneStart(i), z.start());
      assertEquals(i * geo.zoneSize(), z.start());
      assertEquals(cap, z.capacity());
      assertEquals(z.start(), z.writePointer());
      assertEquals(0, z.written());
      assertEquals(cap, z.remaining());
      assertEquals(i, geo.zoneOf(z.start()));
      assertEquals(i, geo.zoneOf(z.start() + geo.zoneSize() - 1));
    }
    int last = geo.zoneCount() - 1;
    assertEquals(List.of(all.get(last)), dev.report(last, 10), "a report is cut at the last zone");
    assertEquals(List.of(), dev.report(geo.zoneCount(), 1));
    assertEquals(all.get(last), dev.zone(last));
    assertThrows(IllegalArgumentException.class, () -> dev.report(geo.zoneCount() + 1, 1));
    assertThrows(IllegalArgumentException.class, () -> dev.report(-1, 1));
    assertThrows(IllegalArgumentException.class, () -> dev.zone(geo.zoneCount()));
  }

  // ---------------------------------------------------------------- state transitions

  /** How a test brings a zone into its starting condition. */
  enum Start {
    EMPTY,
    IMPLICITLY_OPEN,
    EXPLICITLY_OPEN_UNWRITTEN,
    EXPLICITLY_OPEN_WRITTEN,
    CLOSED,
    FULL_BY_WRITES,
    FULL_BY_FINISH
  }

  enum Action {
    OPEN,
    CLOSE,
    FINISH,
    RESET
  }

  /** The expected result: a condition, or the status of a refused transition. */
  private record Outcome(ZoneCondition condition, ZnsStatus refused) {
    @Override
    public String toString() {
      return condition != null ? condition.name() : "refused with " + refused.name();
    }
  }

  private static Arguments row(Start s, Action a, ZoneCondition c) {
    return Arguments.of(s, a, new Outcome(c, null));
  }

  private static Arguments refused(Start s, Action a) {
    return Arguments.of(s, a, new Outcome(null, ZnsStatus.INVALID_ZONE_STATE_TRANSITION));
  }

  static Stream<Arguments> transitions() {
    ZoneCondition empty = ZoneCondition.EMPTY;
    ZoneCondition exp = ZoneCondition.EXPLICITLY_OPEN;
    ZoneCondition closed = ZoneCondition.CLOSED;
    ZoneCondition full = ZoneCondition.FULL;
    List<Arguments> rows = new ArrayList<>();
    rows.add(row(Start.EMPTY, Action.OPEN, exp));
    rows.add(refused(Start.EMPTY, Action.CLOSE));
    rows.add(row(Start.EMPTY, Action.FINISH, full));
    rows.add(row(Start.EMPTY, Action.RESET, empty));
    rows.add(row(Start.IMPLICITLY_OPEN, Action.OPEN, exp));
    rows.add(row(Start.IMPLICITLY_OPEN, Action.CLOSE, closed));
    rows.add(row(Start.IMPLICITLY_OPEN, Action.FINISH, full));
    rows.add(row(Start.IMPLICITLY_OPEN, Action.RESET, empty));
    rows.add(row(Start.EXPLICITLY_OPEN_UNWRITTEN, Action.OPEN, exp));
    rows.add(row(Start.EXPLICITLY_OPEN_UNWRITTEN, Action.CLOSE, empty));
    rows.add(row(Start.EXPLICITLY_OPEN_UNWRITTEN, Action.FINISH, full));
    rows.add(row(Start.EXPLICITLY_OPEN_UNWRITTEN, Action.RESET, empty));
    rows.add(row(Start.EXPLICITLY_OPEN_WRITTEN, Action.OPEN, exp));
    rows.add(row(Start.EXPLICITLY_OPEN_WRITTEN, Action.CLOSE, closed));
    rows.add(row(Start.EXPLICITLY_OPEN_WRITTEN, Action.FINISH, full));
    rows.add(row(Start.EXPLICITLY_OPEN_WRITTEN, Action.RESET, empty));
    rows.add(row(Start.CLOSED, Action.OPEN, exp));
    rows.add(row(Start.CLOSED, Action.CLOSE, closed));
    rows.add(row(Start.CLOSED, Action.FINISH, full));
    rows.add(row(Start.CLOSED, Action.RESET, empty));
    for (Start f : List.of(Start.FULL_BY_WRITES, Start.FULL_BY_FINISH)) {
      rows.add(refused(f, Action.OPEN));
      rows.add(refused(f, Action.CLOSE));
      rows.add(row(f, Action.FINISH, full));
      rows.add(row(f, Action.RESET, empty));
    }
    return rows.stream();
  }

  /** Brings zone {@code z} into {@code s}; returns the data written (possibly none). */
  private byte[] bring(int z, Start s) throws ZonedDeviceException {
    byte[] data = new byte[0];
    ZoneCondition expected;
    switch (s) {
      case EMPTY -> expected = ZoneCondition.EMPTY;
      case IMPLICITLY_OPEN -> {
        data = writeAtWp(z, 2, 11);
        expected = ZoneCondition.IMPLICITLY_OPEN;
      }
      case EXPLICITLY_OPEN_UNWRITTEN -> {
        dev.openZone(z);
        expected = ZoneCondition.EXPLICITLY_OPEN;
      }
      case EXPLICITLY_OPEN_WRITTEN -> {
        dev.openZone(z);
        data = writeAtWp(z, 2, 12);
        expected = ZoneCondition.EXPLICITLY_OPEN;
      }
      case CLOSED -> {
        data = writeAtWp(z, 2, 13);
        dev.closeZone(z);
        expected = ZoneCondition.CLOSED;
      }
      case FULL_BY_WRITES -> {
        data = fillZone(z, 14);
        expected = ZoneCondition.FULL;
      }
      case FULL_BY_FINISH -> {
        data = writeAtWp(z, 1, 15);
        dev.finishZone(z);
        expected = ZoneCondition.FULL;
      }
      default -> throw new AssertionError(s);
    }
    assertEquals(expected, cond(z), () -> "bringing zone " + z + " to " + s);
    if (expected != ZoneCondition.FULL) {
      assertEquals(start(z) + data.length, wp(z), "write pointer after " + s);
    }
    return data;
  }

  private void act(int z, Action a) throws ZonedDeviceException {
    switch (a) {
      case OPEN -> dev.openZone(z);
      case CLOSE -> dev.closeZone(z);
      case FINISH -> dev.finishZone(z);
      case RESET -> dev.resetZone(z);
      default -> throw new AssertionError(a);
    }
  }

  @ParameterizedTest(name = "{0} --{1}--> {2}")
  @MethodSource("transitions")
  void zoneManagementTransition(Start from, Action action, Outcome outcome) throws Exception {
    int z = Math.min(1, geo.zoneCount() - 1);
    byte[] data = bring(z, from);
    Zone before = zone(z);
    if (outcome.refused() != null) {
      expectStatus(outcome.refused(), () -> act(z, action));
      assertEquals(before, zone(z), "a refused transition changes nothing");
    } else {
      act(z, action);
      Zone after = zone(z);
      assertEquals(outcome.condition(), after.condition(), () -> from + " " + action);
      switch (outcome.condition()) {
        case EMPTY -> assertEquals(start(z), after.writePointer(), "an empty zone has wp at start");
        case FULL -> assertEquals(0, after.remaining());
        default -> assertEquals(before.writePointer(), after.writePointer(), "wp is kept");
      }
    }
    ZoneCondition now = cond(z);
    // the data: kept unless the zone was reset
    if (now == ZoneCondition.EMPTY) {
      int len = Math.max(data.length, lba);
      assertArrayEquals(new byte[len], readBytes(start(z), len), "a reset zone reads zeros");
    } else if (data.length > 0) {
      assertArrayEquals(data, readBytes(start(z), data.length), "data survives " + action);
    }
    // and the zone goes on as its new condition says
    if (now == ZoneCondition.FULL) {
      expectStatus(ZnsStatus.ZONE_IS_FULL, () -> dev.append(z, pattern(lba, 1)));
    } else {
      long w = wp(z);
      ByteBuffer b = pattern(lba, 99);
      dev.write(w, b);
      assertEquals(w + lba, wp(z));
      assertEquals(
          now == ZoneCondition.EXPLICITLY_OPEN
              ? ZoneCondition.EXPLICITLY_OPEN
              : ZoneCondition.IMPLICITLY_OPEN,
          cond(z),
          "a write keeps an explicit open and opens any other zone implicitly");
      assertArrayEquals(bytes(b.flip()), readBytes(w, lba));
    }
    // a reset always ends in EMPTY with the write pointer at the start
    dev.resetZone(z);
    assertEquals(new Zone(z, start(z), cap, start(z), ZoneCondition.EMPTY), zone(z));
  }

  @Test
  void writesOpenZonesImplicitlyAndFillThemUp() throws Exception {
    dev.write(start(0), pattern(lba, 1));
    assertEquals(ZoneCondition.IMPLICITLY_OPEN, cond(0), "EMPTY --write--> IMPLICITLY_OPEN");
    dev.closeZone(0);
    dev.write(wp(0), pattern(lba, 2));
    assertEquals(ZoneCondition.IMPLICITLY_OPEN, cond(0), "CLOSED --write--> IMPLICITLY_OPEN");
    byte[] data = fillZone(0, 3);
    assertEquals(ZoneCondition.FULL, cond(0), "IMPLICITLY_OPEN --write to capacity--> FULL");
    assertArrayEquals(data, readBytes(start(0), (int) cap));

    if (geo.zoneCount() > 1) {
      dev.openZone(1);
      dev.write(start(1), pattern(lba, 4));
      assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(1), "a write keeps an explicit open");
      fillZone(1, 5);
      assertEquals(ZoneCondition.FULL, cond(1), "EXPLICITLY_OPEN --write to capacity--> FULL");
    }
  }

  // ---------------------------------------------------------------- writes and the write pointer

  @Test
  void writePointerAdvancesWithEachWrite() throws Exception {
    long expected = start(0);
    int[] blocks = {1, 3, 2, 1, 4};
    ByteBuffer all = ByteBuffer.allocateDirect(Arrays.stream(blocks).sum() * lba);
    for (int i = 0; i < blocks.length; i++) {
      ByteBuffer b = pattern(blocks[i] * lba, 100 + i);
      all.put(b.duplicate());
      dev.write(expected, b, i % 2 == 0 ? 0 : ZonedDevice.FUA);
      assertEquals(0, b.remaining(), "the write consumed the buffer");
      expected += blocks[i] * lba;
      Zone z = zone(0);
      assertEquals(expected, z.writePointer());
      assertEquals(expected - start(0), z.written());
      assertEquals(cap - z.written(), z.remaining());
    }
    all.flip();
    assertArrayEquals(bytes(all), readBytes(start(0), all.remaining()));
    dev.flush();
    assertArrayEquals(
        new byte[lba], readBytes(expected, lba), "blocks past the write pointer read zeros");
  }

  @Test
  void writeAndReadUseTheBufferBetweenPositionAndLimit() throws Exception {
    ByteBuffer src = pattern(4 * lba, 7);
    src.position(lba).limit(3 * lba);
    dev.write(start(0), src);
    assertEquals(3 * lba, src.position());
    assertEquals(start(0) + 2L * lba, wp(0));
    ByteBuffer dst = ByteBuffer.allocateDirect(5 * lba);
    dst.position(2 * lba).limit(4 * lba);
    dev.read(start(0), dst);
    assertEquals(4 * lba, dst.position());
    byte[] want = Arrays.copyOfRange(bytes(pattern(4 * lba, 7)), lba, 3 * lba);
    byte[] got = new byte[2 * lba];
    dst.get(2 * lba, got);
    assertArrayEquals(want, got);
    byte[] untouched = new byte[2 * lba];
    dst.get(0, untouched);
    assertArrayEquals(new byte[2 * lba], untouched, "read wrote only between position and limit");
  }

  @Test
  void zoneCapacityEndsTheZone() throws Exception {
    byte[] data = fillZone(0, 20);
    Zone z = zone(0);
    assertEquals(ZoneCondition.FULL, z.condition(), "writing to capacity makes the zone FULL");
    assertEquals(0, z.remaining());
    assertArrayEquals(data, readBytes(start(0), (int) cap));
    if (cap < geo.zoneSize()) { // with capacity = size, start + capacity is the next zone's start
      expectStatus(ZnsStatus.ZONE_IS_FULL, () -> dev.write(start(0) + cap, pattern(lba, 1)));
    }
    expectStatus(ZnsStatus.ZONE_IS_FULL, () -> dev.write(start(0), pattern(lba, 1)));
    expectStatus(ZnsStatus.ZONE_IS_FULL, () -> dev.append(0, pattern(lba, 1)));
    assertEquals(z, zone(0));
    if (geo.zoneCount() > 1) {
      Zone next = zone(1);
      assertEquals(geo.zoneSize(), next.start(), "zones start zoneSize apart, not capacity apart");
      assertEquals(ZoneCondition.EMPTY, next.condition());
    }
  }

  @Test
  void appendsFillAZoneToCapacity() throws Exception {
    int blocks = (int) (cap / lba);
    int per = Math.max(1, Math.min(geo.zasl() / lba, 16));
    long expected = start(0);
    int i = 0;
    while (expected < start(0) + cap) {
      int n = (int) Math.min(per, (start(0) + cap - expected) / lba);
      assertEquals(expected, dev.append(0, pattern(n * lba, i++)));
      expected += (long) n * lba;
    }
    assertEquals(ZoneCondition.FULL, cond(0), () -> blocks + " blocks appended");
    expectStatus(ZnsStatus.ZONE_IS_FULL, () -> dev.append(0, pattern(lba, 1)));
  }

  @Test
  void writesNotAtTheWritePointerAreInvalid() throws Exception {
    expectStatus(ZnsStatus.ZONE_INVALID_WRITE, () -> dev.write(start(0) + lba, pattern(lba, 1)));
    assertEquals(ZoneCondition.EMPTY, cond(0), "a refused write does not open the zone");
    writeAtWp(0, 2, 1);
    long w = wp(0);
    expectStatus(ZnsStatus.ZONE_INVALID_WRITE, () -> dev.write(w + lba, pattern(lba, 2)));
    expectStatus(ZnsStatus.ZONE_INVALID_WRITE, () -> dev.write(w - lba, pattern(lba, 3)));
    expectStatus(ZnsStatus.ZONE_INVALID_WRITE, () -> dev.write(start(0), pattern(lba, 4)));
    assertEquals(w, wp(0), "refused writes leave the write pointer");
    dev.write(w, pattern(lba, 5));
    assertEquals(w + lba, wp(0));
  }

  @Test
  void writesPastCapacityAndReadsAcrossZonesAreBoundaryErrors() throws Exception {
    assumeZones(2);
    if (cap > lba) {
      expectStatus(
          ZnsStatus.ZONE_BOUNDARY_ERROR, () -> dev.write(start(0), pattern((int) cap + lba, 1)));
      assertEquals(ZoneCondition.EMPTY, cond(0));
    }
    long w = start(0);
    while (w < start(0) + cap - lba) {
      int len = (int) Math.min(chunk(), start(0) + cap - lba - w);
      dev.write(w, pattern(len, w));
      w += len;
    }
    assertEquals(start(0) + cap - lba, wp(0));
    expectStatus(
        ZnsStatus.ZONE_BOUNDARY_ERROR, () -> dev.write(start(0) + cap - lba, pattern(2 * lba, 2)));
    if (geo.zasl() >= 2 * lba) {
      expectStatus(ZnsStatus.ZONE_BOUNDARY_ERROR, () -> dev.append(0, pattern(2 * lba, 3)));
    }
    assertEquals(start(0) + cap - lba, wp(0), "refused writes leave the write pointer");
    dev.write(start(0) + cap - lba, pattern(lba, 4));
    assertEquals(ZoneCondition.FULL, cond(0));

    dev.write(start(1), pattern(2 * lba, 5));
    expectStatus(
        ZnsStatus.ZONE_BOUNDARY_ERROR,
        () -> dev.read(start(1) - lba, ByteBuffer.allocateDirect(2 * lba)));
    if (geo.zoneSize() <= (16 << 20)) {
      expectStatus(
          ZnsStatus.ZONE_BOUNDARY_ERROR,
          () -> dev.read(start(0), ByteBuffer.allocateDirect((int) geo.zoneSize() + lba)));
    }
    readBytes(start(1) - lba, lba); // each side alone is fine
    readBytes(start(1), lba);
  }

  @Test
  void invalidFieldsAreRefused() throws Exception {
    int zasl = geo.zasl();
    expectStatus(ZnsStatus.INVALID_FIELD, () -> dev.append(0, pattern(zasl + lba, 1)));
    assertEquals(ZoneCondition.EMPTY, cond(0));
    assertEquals(start(0), dev.append(0, pattern(zasl, 2)), "an append of exactly ZASL is fine");
    long w = wp(0);
    expectStatus(ZnsStatus.INVALID_FIELD, () -> dev.write(w, pattern(lba + 1, 3)));
    expectStatus(ZnsStatus.INVALID_FIELD, () -> dev.write(w, pattern(100, 3)));
    expectStatus(ZnsStatus.INVALID_FIELD, () -> dev.write(w + 1, pattern(lba, 3)));
    expectStatus(ZnsStatus.INVALID_FIELD, () -> dev.append(0, pattern(lba - 1, 4)));
    expectStatus(
        ZnsStatus.INVALID_FIELD, () -> dev.read(start(0), ByteBuffer.allocateDirect(lba + 7)));
    expectStatus(
        ZnsStatus.INVALID_FIELD, () -> dev.read(start(0) + 1, ByteBuffer.allocateDirect(lba)));
    assertEquals(w, wp(0), "refused commands leave the write pointer");
  }

  @Test
  void addressesBeyondTheDeviceAreOutOfRange() throws Exception {
    int n = geo.zoneCount();
    long end = n * geo.zoneSize();
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.write(end, pattern(lba, 1)));
    expectStatus(
        ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.write(end + 10L * geo.zoneSize(), pattern(lba, 1)));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.read(end, ByteBuffer.allocateDirect(lba)));
    expectStatus(
        ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.read(end - lba, ByteBuffer.allocateDirect(2 * lba)));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.append(n, pattern(lba, 1)));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.append(-1, pattern(lba, 1)));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.openZone(n));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.closeZone(n));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.finishZone(n));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.resetZone(n));
    expectStatus(ZnsStatus.LBA_OUT_OF_RANGE, () -> dev.resetZone(-1));
    readBytes(end - lba, lba); // the last block is in range
  }

  // ---------------------------------------------------------------- resource limits

  @Test
  void explicitlyOpenZonesAtTheOpenLimitMakeTooManyOpenZones() throws Exception {
    int maxOpen = geo.maxOpen();
    assumeTrue(maxOpen > 0, "no open limit");
    boolean room = activeRoomBeyondOpenLimit();
    assumeZones(maxOpen + 2);
    int closed = maxOpen + 1; // a CLOSED zone beside maxOpen open ones needs an active resource
    if (room) {
      writeAtWp(closed, 1, 1);
      dev.closeZone(closed);
    }
    for (int z = 0; z < maxOpen; z++) {
      dev.openZone(z);
      assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(z));
    }
    assertEquals(maxOpen, openCount());
    int empty = maxOpen;
    ZnsStatus forEmpty = room ? ZnsStatus.TOO_MANY_OPEN_ZONES : ZnsStatus.TOO_MANY_ACTIVE_ZONES;
    expectStatus(forEmpty, () -> dev.openZone(empty));
    expectStatus(forEmpty, () -> dev.write(start(empty), pattern(lba, 2)));
    expectStatus(forEmpty, () -> dev.append(empty, pattern(lba, 3)));
    assertEquals(ZoneCondition.EMPTY, cond(empty), "refused opens leave the zone EMPTY");
    if (room) {
      long w = wp(closed);
      expectStatus(ZnsStatus.TOO_MANY_OPEN_ZONES, () -> dev.openZone(closed));
      expectStatus(ZnsStatus.TOO_MANY_OPEN_ZONES, () -> dev.write(w, pattern(lba, 4)));
      expectStatus(ZnsStatus.TOO_MANY_OPEN_ZONES, () -> dev.append(closed, pattern(lba, 5)));
      assertEquals(ZoneCondition.CLOSED, cond(closed));
      assertEquals(w, wp(closed));
      dev.finishZone(closed); // finishing a CLOSED zone needs no open resource
      assertEquals(ZoneCondition.FULL, cond(closed));
    }
    // the open zones themselves still take writes, and re-opening one is fine
    dev.write(start(0), pattern(lba, 6));
    dev.openZone(0);
    assertEquals(maxOpen, openCount());
    for (int z = 0; z < maxOpen; z++) {
      assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(z), "no explicitly open zone was closed");
    }
    // closing one makes room (resetting it, when CLOSED zones would exceed the active limit)
    if (room) {
      dev.closeZone(0);
      assertEquals(ZoneCondition.CLOSED, cond(0));
    } else {
      dev.resetZone(0);
    }
    dev.openZone(empty);
    assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(empty));
    assertEquals(maxOpen, openCount());
  }

  @Test
  void implicitOpensCountTowardTheOpenLimitAndGiveWayToNewOpens() throws Exception {
    int maxOpen = geo.maxOpen();
    assumeTrue(maxOpen > 0, "no open limit");
    assumeZones(maxOpen + 2);
    Map<Integer, byte[]> data = new TreeMap<>();
    for (int z = 0; z < maxOpen; z++) {
      data.put(z, writeAtWp(z, 1, z));
      assertEquals(ZoneCondition.IMPLICITLY_OPEN, cond(z));
    }
    assertEquals(maxOpen, openCount());
    int next = maxOpen;
    if (!activeRoomBeyondOpenLimit()) {
      expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.write(start(next), pattern(lba, 1)));
      expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.openZone(next));
      assertEquals(maxOpen, count(ZoneCondition.IMPLICITLY_OPEN));
      return;
    }
    // an implicit open at the limit closes an implicitly open zone
    data.put(next, writeAtWp(next, 1, next));
    assertEquals(ZoneCondition.IMPLICITLY_OPEN, cond(next));
    assertEquals(maxOpen, openCount(), "the open limit holds");
    assertEquals(1, count(ZoneCondition.CLOSED), "one implicitly open zone was closed");
    for (Map.Entry<Integer, byte[]> e : data.entrySet()) {
      int z = e.getKey();
      assertEquals(start(z) + lba, wp(z), "closing kept the write pointer");
      assertArrayEquals(e.getValue(), readBytes(start(z), lba));
    }
    // explicit opens also push implicitly open zones out, one at a time
    for (int round = 0; count(ZoneCondition.IMPLICITLY_OPEN) > 0; round++) {
      assertTrue(round <= maxOpen, "every explicit open must close an implicit one");
      int implicitBefore = count(ZoneCondition.IMPLICITLY_OPEN);
      int c = firstWith(ZoneCondition.CLOSED);
      dev.openZone(c);
      assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(c));
      assertEquals(maxOpen, openCount());
      assertEquals(1, count(ZoneCondition.CLOSED));
      assertEquals(implicitBefore - 1, count(ZoneCondition.IMPLICITLY_OPEN));
    }
    assertEquals(maxOpen, count(ZoneCondition.EXPLICITLY_OPEN));
    // now only explicitly open zones hold the open resources
    int c = firstWith(ZoneCondition.CLOSED);
    long w = wp(c);
    expectStatus(ZnsStatus.TOO_MANY_OPEN_ZONES, () -> dev.write(w, pattern(lba, 7)));
    expectStatus(ZnsStatus.TOO_MANY_OPEN_ZONES, () -> dev.openZone(c));
    for (Map.Entry<Integer, byte[]> e : data.entrySet()) {
      assertArrayEquals(
          e.getValue(), readBytes(start(e.getKey()), lba), "data of zone " + e.getKey());
    }
  }

  private int firstWith(ZoneCondition c) throws ZonedDeviceException {
    for (Zone z : dev.report()) {
      if (z.condition() == c) {
        return z.index();
      }
    }
    throw new AssertionError("no zone is " + c);
  }

  @Test
  void activeZonesAreLimited() throws Exception {
    int maxActive = geo.maxActive();
    assumeTrue(maxActive > 0, "no active limit");
    assumeZones(maxActive + 2);
    for (int z = 0; z < maxActive; z++) {
      writeAtWp(z, 1, z);
      dev.closeZone(z);
    }
    assertEquals(maxActive, count(ZoneCondition.CLOSED));
    int empty = maxActive;
    expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.write(start(empty), pattern(lba, 1)));
    expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.append(empty, pattern(lba, 1)));
    expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.openZone(empty));
    expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.finishZone(empty));
    assertEquals(ZoneCondition.EMPTY, cond(empty));
    // active zones go on: a CLOSED zone takes writes and opens
    int last = maxActive - 1;
    writeAtWp(last, 1, 100);
    assertEquals(ZoneCondition.IMPLICITLY_OPEN, cond(last));
    dev.closeZone(last);
    dev.openZone(last);
    assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(last));
    dev.closeZone(last);
    // finishing one frees its active resource
    dev.finishZone(0);
    assertEquals(ZoneCondition.FULL, cond(0));
    dev.write(start(empty), pattern(lba, 2));
    assertEquals(ZoneCondition.IMPLICITLY_OPEN, cond(empty));
    dev.closeZone(empty);
    int other = empty + 1;
    expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.finishZone(other));
    // and so does a reset
    dev.resetZone(empty);
    dev.finishZone(other);
    assertEquals(ZoneCondition.FULL, cond(other), "EMPTY --finish--> FULL with a resource free");
    dev.resetZone(other);
    dev.openZone(empty);
    assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(empty));
    expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.openZone(other));
    // and closing an unwritten explicitly open zone (it goes back to EMPTY)
    dev.closeZone(empty);
    assertEquals(ZoneCondition.EMPTY, cond(empty));
    dev.openZone(other);
    assertEquals(ZoneCondition.EXPLICITLY_OPEN, cond(other));
    expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> dev.write(start(empty), pattern(lba, 3)));
  }

  // ---------------------------------------------------------------- data

  @Test
  void resetZoneReadsZeros() throws Exception {
    byte[] first = writeAtWp(0, 3, 1);
    assertArrayEquals(first, readBytes(start(0), first.length));
    dev.resetZone(0);
    assertEquals(new Zone(0, start(0), cap, start(0), ZoneCondition.EMPTY), zone(0));
    assertArrayEquals(new byte[first.length], readBytes(start(0), first.length));
    byte[] second = writeAtWp(0, 1, 2);
    assertArrayEquals(second, readBytes(start(0), lba));
    assertArrayEquals(new byte[2 * lba], readBytes(start(0) + lba, 2 * lba), "old data is gone");
    fillZone(0, 3);
    dev.resetZone(0);
    int len = (int) Math.min(cap, chunk());
    assertArrayEquals(new byte[len], readBytes(start(0), len));
    assertArrayEquals(new byte[lba], readBytes(start(0) + cap - lba, lba));
    // the blocks a finish skips read zeros too, whatever the zone held before its reset
    fillZone(0, 4);
    dev.resetZone(0);
    byte[] head = writeAtWp(0, 1, 5);
    dev.finishZone(0);
    assertEquals(ZoneCondition.FULL, cond(0));
    assertArrayEquals(head, readBytes(start(0), lba));
    if (cap > lba) {
      int rest = (int) Math.min(cap - lba, chunk());
      assertArrayEquals(new byte[rest], readBytes(start(0) + lba, rest), "skipped by the finish");
      assertArrayEquals(new byte[lba], readBytes(start(0) + cap - lba, lba));
    }
  }

  @Test
  void appendReturnsTheAssignedOffsets() throws Exception {
    assumeZones(2);
    int z = 1;
    int[] blocks = {1, 2, 3, 1};
    long expected = start(z);
    List<byte[]> data = new ArrayList<>();
    List<Long> at = new ArrayList<>();
    for (int i = 0; i < blocks.length; i++) {
      int n = Math.min(blocks[i], geo.zasl() / lba);
      ByteBuffer b = pattern(n * lba, 200 + i);
      data.add(bytes(b));
      long off = dev.append(z, b, i == 2 ? ZonedDevice.FUA : 0);
      assertEquals(0, b.remaining());
      assertEquals(expected, off, "append " + i);
      at.add(off);
      expected += (long) n * lba;
      assertEquals(expected, wp(z));
      assertEquals(ZoneCondition.IMPLICITLY_OPEN, cond(z));
      if (i == 1) { // a write at the write pointer between appends
        ByteBuffer w = pattern(lba, 300);
        data.add(bytes(w));
        dev.write(expected, w);
        at.add(expected);
        expected += lba;
      }
    }
    for (int i = 0; i < data.size(); i++) {
      assertArrayEquals(data.get(i), readBytes(at.get(i), data.get(i).length), "record " + i);
    }
  }

  @Test
  void dataReadsBackIntactAcrossZones() throws Exception {
    int zones = Math.min(3, geo.zoneCount());
    if (geo.maxActive() > 0) {
      zones = Math.min(zones, geo.maxActive());
    }
    int len = (int) Math.min(cap, 4L * chunk());
    byte[][] data = new byte[zones][];
    for (int z = 0; z < zones; z++) {
      data[z] = new byte[len];
      for (int w = 0; w < len; ) {
        int n = Math.min(len - w, chunk());
        ByteBuffer b = pattern(n, 1000L * z + w);
        b.duplicate().get(data[z], w, n);
        dev.write(start(z) + w, b);
        w += n;
      }
    }
    for (int z = 0; z < zones; z++) {
      assertArrayEquals(data[z], readBytes(start(z), len), "whole zone " + z);
      int off = lba * 3 % len;
      int n = Math.min(len - off, 5 * lba);
      assertArrayEquals(
          Arrays.copyOfRange(data[z], off, off + n), readBytes(start(z) + off, n), "part of " + z);
    }
    dev.flush();
  }

  // ---------------------------------------------------------------- asynchronous queues

  @Test
  @Timeout(30)
  void asyncAppendsAtQueueDepth32GetUniqueContiguousOffsets() throws Exception {
    int qd = 32;
    int maxBlocks = Math.max(1, Math.min(2, geo.zasl() / lba));
    int n = (int) Math.min(256, cap / ((long) maxBlocks * lba));
    int[] len = new int[n];
    int[] pos = new int[n];
    int total = 0;
    for (int i = 0; i < n; i++) {
      len[i] = (1 + (i * 7 % maxBlocks)) * lba;
      pos[i] = total;
      total += len[i];
    }
    ByteBuffer src = ByteBuffer.allocateDirect(total);
    for (int i = 0; i < n; i++) {
      src.put(pos[i], bytes(pattern(len[i], 5000 + i)));
    }
    long[] offset = new long[n];
    Arrays.fill(offset, -1);
    int maxInFlight = 0;
    try (AsyncQueue q = dev.newQueue(qd)) {
      assertEquals(qd, q.depth());
      Completions done = new Completions(qd);
      int next = 0;
      int completed = 0;
      while (completed < n) {
        while (next < n && q.submitAppend(0, src, pos[next], len[next], 0, next)) {
          next++;
        }
        maxInFlight = Math.max(maxInFlight, q.inFlight());
        int got = q.reap(done, 1, 10, TimeUnit.SECONDS);
        assertTrue(got > 0, "completions within 10 s");
        for (int i = 0; i < got; i++) {
          int tag = (int) done.tag(i);
          ZonedDeviceException error = done.error(i);
          assertNull(error, () -> "append " + tag + " failed: " + error);
          assertTrue(done.ok(i));
          assertNull(done.status(i));
          assertEquals(-1, offset[tag], "tag completed twice");
          offset[tag] = done.result(i);
        }
        completed += got;
      }
      assertEquals(0, q.inFlight());
    }
    assertEquals(Math.min(qd, n), maxInFlight, "the queue ran full");
    Integer[] byOffset = new Integer[n];
    for (int i = 0; i < n; i++) {
      byOffset[i] = i;
    }
    Arrays.sort(byOffset, (a, b) -> Long.compare(offset[a], offset[b]));
    long expected = start(0);
    for (int i : byOffset) {
      assertEquals(expected, offset[i], "appends are contiguous and unique");
      expected += len[i];
    }
    assertEquals(expected, wp(0));
    for (int i = 0; i < n; i++) {
      assertArrayEquals(
          bytes(pattern(len[i], 5000 + i)), readBytes(offset[i], len[i]), "append " + i);
    }
  }

  @Test
  @Timeout(30)
  void asyncReadsWritesAndFlushesComplete() throws Exception {
    byte[] data = bytes(pattern(4 * lba, 77));
    ByteBuffer src = ByteBuffer.allocateDirect(4 * lba).put(0, data);
    ByteBuffer dst = ByteBuffer.allocateDirect(4 * lba);
    try (AsyncQueue q = dev.newQueue(4)) {
      Completions done = new Completions(4);
      assertTrue(q.submitWrite(start(0), src, 0, 2 * lba, 0, 1));
      assertEquals(1, reapAll(q, done, 1));
      assertEquals(0, done.result(0));
      assertTrue(q.submitWrite(start(0) + 2L * lba, src, 2 * lba, 2 * lba, ZonedDevice.FUA, 2));
      assertEquals(1, reapAll(q, done, 1));
      assertEquals(2, done.tag(0));
      assertEquals(0, done.result(0));
      assertTrue(q.submitFlush(3));
      assertTrue(q.submitRead(start(0), dst, 0, 4 * lba, 4));
      assertEquals(2, reapAll(q, done, 2));
      for (int i = 0; i < 2; i++) {
        assertEquals(0, done.result(i), "tag " + done.tag(i));
      }
    }
    assertArrayEquals(data, bytes(dst));
    assertEquals(start(0) + 4L * lba, wp(0));
  }

  private static int reapAll(AsyncQueue q, Completions done, int n) {
    int got = q.reap(done, n, 10, TimeUnit.SECONDS);
    assertEquals(n, got, "completions within 10 s");
    return got;
  }

  @Test
  @Timeout(30)
  void asyncErrorsArriveAsCompletions() throws Exception {
    assumeZones(2);
    dev.finishZone(0);
    ByteBuffer b = pattern(geo.zasl() + lba, 1);
    try (AsyncQueue q = dev.newQueue(8)) {
      Completions done = new Completions(8);
      assertTrue(q.submitAppend(0, b, 0, lba, 0, 10), "the append is accepted for execution");
      assertTrue(q.submitWrite(start(1) + lba, b, 0, lba, 0, 11));
      assertTrue(q.submitAppend(1, b, 0, geo.zasl() + lba, 0, 12));
      assertTrue(q.submitRead(start(1) - lba, b, 0, 2 * lba, 13));
      assertTrue(q.submitAppend(1, b, 0, lba, 0, 14));
      int got = 0;
      while (got < 5) {
        if (q.reap(done, 1, 10, TimeUnit.SECONDS) == 0) {
          fail("no completion within 10 s");
        }
        got += checkErrors(done);
      }
      assertEquals(0, q.inFlight());
    }
    assertEquals(start(1) + lba, wp(1));
  }

  private int checkErrors(Completions done) {
    for (int i = 0; i < done.count(); i++) {
      long tag = done.tag(i);
      ZnsStatus expected =
          switch ((int) tag) {
            case 10 -> ZnsStatus.ZONE_IS_FULL;
            case 11 -> ZnsStatus.ZONE_INVALID_WRITE;
            case 12 -> ZnsStatus.INVALID_FIELD;
            case 13 -> ZnsStatus.ZONE_BOUNDARY_ERROR;
            case 14 -> null;
            default -> throw new AssertionError("unknown tag " + tag);
          };
      if (expected == null) {
        ZonedDeviceException error = done.error(i);
        assertNull(error, () -> "tag 14: " + error);
        assertEquals(start(1), done.result(i));
      } else {
        assertFalse(done.ok(i), "tag " + tag + " should fail");
        assertEquals(expected, done.status(i), "tag " + tag);
        ZonedDeviceException e = done.error(i);
        assertNotNull(e);
        assertInstanceOf(ZoneStatusException.class, e);
        assertEquals(done.result(i), e.code());
        assertTrue(e.getMessage().contains(expected.description()), e::getMessage);
      }
    }
    return done.count();
  }

  // ---------------------------------------------------------------- concurrency

  @Test
  @Timeout(60)
  void concurrentAppendsToOneZoneGetUniqueContiguousOffsets() throws Exception {
    int threads = 8;
    int perThread = (int) Math.min(64, cap / lba / threads);
    assumeTrue(perThread > 0, "zone too small for the test");
    int z = geo.zoneCount() - 1;
    long[][] at = new long[threads][perThread];
    Appenders.run(
        threads,
        TimeUnit.SECONDS.toMillis(50),
        id -> {
          ByteBuffer b = ByteBuffer.allocateDirect(lba).order(ByteOrder.LITTLE_ENDIAN);
          for (int s = 0; s < perThread; s++) {
            record(b, id, s, lba);
            at[id][s] = dev.append(z, b);
          }
        });
    long n = (long) threads * perThread;
    assertEquals(start(z) + n * lba, wp(z));
    boolean[] taken = new boolean[(int) n];
    for (int t = 0; t < threads; t++) {
      for (int s = 0; s < perThread; s++) {
        long off = at[t][s];
        assertEquals(0, (off - start(z)) % lba);
        int slot = (int) ((off - start(z)) / lba);
        assertTrue(slot >= 0 && slot < n, "offset inside the appended range");
        assertFalse(taken[slot], "offset " + off + " assigned twice");
        taken[slot] = true;
        if (s > 0) {
          assertTrue(off > at[t][s - 1], "one thread's appends are ordered");
        }
      }
    }
    ByteBuffer all2 = ByteBuffer.allocateDirect((int) (n * lba)).order(ByteOrder.LITTLE_ENDIAN);
    dev.read(start(z), all2);
    ByteBuffer want = ByteBuffer.allocateDirect(lba).order(ByteOrder.LITTLE_ENDIAN);
    for (int t = 0; t < threads; t++) {
      for (int s = 0; s < perThread; s++) {
        int off = (int) (at[t][s] - start(z));
        record(want, t, s, lba);
        ByteBuffer got = all2.duplicate().position(off).limit(off + lba);
        assertEquals(want, got, "record of thread " + t + " seq " + s + " at " + at[t][s]);
      }
    }
  }

  /** A block carrying its writer's thread id and sequence number. */
  private static void record(ByteBuffer b, int thread, int seq, int len) {
    b.clear();
    b.putInt(thread).putInt(seq).putLong(0x5A4B5652_45434F52L);
    while (b.position() < len) {
      b.put((byte) (thread * 131 + seq * 7 + b.position()));
    }
    b.flip();
  }

  // ---------------------------------------------------------------- API contract

  @Test
  void useAfterCloseThrowsAndCloseIsIdempotent() throws Exception {
    AsyncQueue q = dev.newQueue(4);
    ByteBuffer b = pattern(lba, 1);
    dev.close();
    assertTrue(dev.isClosed());
    assertTrue(q.isClosed(), "closing the device closes its queues");
    dev.close();
    q.close();
    assertThrows(IllegalStateException.class, () -> dev.report());
    assertThrows(IllegalStateException.class, () -> dev.zone(0));
    assertThrows(IllegalStateException.class, () -> dev.write(0, b));
    assertThrows(IllegalStateException.class, () -> dev.append(0, b));
    assertThrows(IllegalStateException.class, () -> dev.read(0, b));
    assertThrows(IllegalStateException.class, () -> dev.openZone(0));
    assertThrows(IllegalStateException.class, () -> dev.closeZone(0));
    assertThrows(IllegalStateException.class, () -> dev.finishZone(0));
    assertThrows(IllegalStateException.class, () -> dev.resetZone(0));
    assertThrows(IllegalStateException.class, () -> dev.flush());
    assertThrows(IllegalStateException.class, () -> dev.stats());
    assertThrows(IllegalStateException.class, () -> dev.newQueue(4));
    assertThrows(IllegalStateException.class, () -> q.submitAppend(0, b, 0, lba, 0, 1));
    assertThrows(IllegalStateException.class, () -> q.reap(new Completions(1), 0));
    assertEquals(lba, b.remaining(), "nothing consumed the buffer");
  }

  @Test
  void queueCloseIsIdempotentAndLeavesTheDeviceOpen() throws Exception {
    AsyncQueue q = dev.newQueue(2);
    ByteBuffer b = pattern(lba, 1);
    assertTrue(q.submitAppend(0, b, 0, lba, 0, 1));
    q.close(); // waits for the append
    q.close();
    assertTrue(q.isClosed());
    assertFalse(dev.isClosed());
    assertThrows(IllegalStateException.class, () -> q.submitFlush(2));
    assertEquals(start(0) + lba, wp(0), "the append in flight at close completed");
    assertArrayEquals(bytes(b), readBytes(start(0), lba));
  }

  @Test
  void heapBuffersAreRejected() throws Exception {
    ByteBuffer heap = ByteBuffer.allocate(lba);
    assertThrows(IllegalArgumentException.class, () -> dev.write(start(0), heap));
    assertThrows(IllegalArgumentException.class, () -> dev.write(start(0), heap, ZonedDevice.FUA));
    assertThrows(IllegalArgumentException.class, () -> dev.append(0, heap));
    assertThrows(IllegalArgumentException.class, () -> dev.read(start(0), heap));
    try (AsyncQueue q = dev.newQueue(2)) {
      assertThrows(IllegalArgumentException.class, () -> q.submitAppend(0, heap, 0, lba, 0, 1));
      assertThrows(
          IllegalArgumentException.class, () -> q.submitWrite(start(0), heap, 0, lba, 0, 2));
      assertThrows(IllegalArgumentException.class, () -> q.submitRead(start(0), heap, 0, lba, 3));
      assertEquals(0, q.inFlight());
    }
    assertEquals(0, heap.position());
    assertEquals(ZoneCondition.EMPTY, cond(0), "nothing was written");
  }
}
