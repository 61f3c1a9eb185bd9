package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.FaultInjector.Op;
import io.zkv.device.FaultInjector.PowerCut;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Behaviour only the emulator has: its file format, ownership, fault injection, power cuts. */
class EmulatedDeviceTest {
  private static final long KIB = 1024;
  private static final long MIB = 1024 * KIB;
  private static final int LBA = 4096;

  /** 8 zones of 1 MiB with 512 KiB capacity, max open 3, max active 4, ZASL 64 KiB. */
  private static final DeviceGeometry GEO = DeviceGeometry.of(8, MIB, 512 * KIB, 3, 4, 64 * 1024);

  private static final long SEED = Long.getLong("zkv.seed", System.nanoTime());

  private static final int EIO = 5;
  private static final int ENODEV = 19;

  @TempDir Path dir;

  @BeforeAll
  static void printSeed() {
    System.out.println("EmulatedDeviceTest seed=" + SEED + " (rerun with -Dzkv.seed=" + SEED + ")");
  }

  // ---------------------------------------------------------------- helpers

  private Path formatted(String name) throws ZonedDeviceException {
    Path file = dir.resolve(name);
    EmulatedDevice.format(file, GEO);
    return file;
  }

  private static String uri(Path file, String... options) {
    return EmulatedDevice.uri(file, "instant", options);
  }

  private static ByteBuffer pattern(int len, long seed) {
    ByteBuffer b = ByteBuffer.allocateDirect(len);
    Random r = new Random(seed);
    byte[] a = new byte[len];
    r.nextBytes(a);
    return b.put(0, a);
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    return a;
  }

  private static byte[] read(ZonedDevice d, long offset, int len) throws ZonedDeviceException {
    ByteBuffer b = ByteBuffer.allocateDirect(len);
    d.read(offset, b);
    return bytes(b.flip());
  }

  /** Writes {@code blocks} pattern blocks at the zone's write pointer; returns them. */
  private static byte[] write(ZonedDevice d, int zone, int blocks, long seed, int flags)
      throws ZonedDeviceException {
    ByteBuffer b = pattern(blocks * LBA, seed);
    byte[] data = bytes(b);
    d.write(d.zone(zone).writePointer(), b, flags);
    return data;
  }

  private static long start(int zone) {
    return GEO.zoneStart(zone);
  }

  private static ZoneStatusException expectStatus(ZnsStatus status, Executable op) {
    ZoneStatusException e = assertThrows(ZoneStatusException.class, op, () -> "expected " + status);
    assertEquals(status, e.status(), e::getMessage);
    return e;
  }

  /** A host error (not an NVMe status) with the given errno. */
  private static ZonedDeviceException expectHostError(int errno, Executable op) {
    ZonedDeviceException e = assertThrows(ZonedDeviceException.class, op);
    assertFalse(e instanceof ZoneStatusException, () -> "a host error, not " + e);
    assertEquals(-errno, e.code(), e::getMessage);
    return e;
  }

  private static void assertMentions(Throwable e, String... words) {
    for (String w : words) {
      assertTrue(e.getMessage().contains(w), () -> "'" + e.getMessage() + "' should mention " + w);
    }
  }

  private static void flipByte(Path file, long offset) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      assertEquals(1, ch.read(b, offset));
      b.put(0, (byte) (b.get(0) ^ 0x5A)).rewind();
      assertEquals(1, ch.write(b, offset));
    }
  }

  // ---------------------------------------------------------------- format

  static Stream<Arguments> badGeometries() {
    return Stream.of(
        Arguments.of(new DeviceGeometry(1000, 8, MIB, 512 * KIB, 3, 4, 65536), "lba_size"),
        Arguments.of(DeviceGeometry.of(0, MIB, 512 * KIB, 0, 0, 65536), "nr_zones"),
        Arguments.of(DeviceGeometry.of(-1, MIB, 512 * KIB, 0, 0, 65536), "nr_zones"),
        Arguments.of(DeviceGeometry.of(8, MIB + 1, 512 * KIB, 3, 4, 65536), "zone_size"),
        Arguments.of(DeviceGeometry.of(8, 0, 0, 3, 4, 65536), "zone_size"),
        Arguments.of(DeviceGeometry.of(8, -MIB, 512 * KIB, 3, 4, 65536), "zone_size"),
        Arguments.of(DeviceGeometry.of(8, MIB, 2 * MIB, 3, 4, 65536), "zone_cap"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB + 100, 3, 4, 65536), "zone_cap"),
        Arguments.of(DeviceGeometry.of(8, MIB, 0, 3, 4, 65536), "zone_cap"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB, 9, 9, 65536), "max_open"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB, 4, 3, 65536), "max_open"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB, -1, 4, 65536), "max_open"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB, 3, -1, 65536), "max_active"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB, 3, 4, 100), "zasl"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB, 3, 4, 0), "zasl"),
        Arguments.of(DeviceGeometry.of(8, MIB, 512 * KIB, 3, 4, (int) MIB), "zasl"),
        Arguments.of(DeviceGeometry.of(1 << 20, 1L << 40, 1L << 40, 0, 0, 65536), "16 TiB"),
        Arguments.of(DeviceGeometry.of(1, 1L << 45, 1L << 20, 0, 0, 65536), "16 TiB"),
        Arguments.of(DeviceGeometry.of(4, 1L << 62, 4096, 0, 0, 4096), "16 TiB"),
        Arguments.of(DeviceGeometry.of(1 << 20, 1L << 44, 4096, 0, 0, 4096), "16 TiB"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("badGeometries")
  void formatRejectsBadGeometryNamingTheField(DeviceGeometry bad, String field) throws Exception {
    // a failure on this thread first, so a stale message would show
    assertThrows(ZonedDeviceException.class, () -> ZonedDevice.open("emu:" + dir.resolve("none")));
    Path file = dir.resolve("bad.zkvemu");
    ZonedDeviceException e =
        assertThrows(ZonedDeviceException.class, () -> EmulatedDevice.format(file, bad));
    assertMentions(e, field, file.toString());
    assertFalse(e.getMessage().contains("none"), () -> "stale message: " + e.getMessage());
    assertEquals(-22, e.code(), "EINVAL");
    assertFalse(Files.exists(file), "nothing is left behind");
  }

  /**
   * The geometry crosses as a boundary buffer Java writes: one the native side cannot trust fails.
   */
  @Test
  void aDamagedGeometryBufferIsRefused() throws Exception {
    Path file = dir.resolve("damaged.zkvemu");
    int length = GEO.write().capacity();
    for (int at = 0;
        at < 28;
        at++) { // the header and the section entry (its last 4 bytes: reserved)
      java.nio.ByteBuffer b = GEO.write();
      b.put(at, (byte) (b.get(at) ^ 0x40));
      assertEquals(-22, EmulatedDevice.nFormat(file.toString(), b), "byte " + at);
      assertFalse(Files.exists(file), "byte " + at);
    }
    java.nio.ByteBuffer shorter = java.nio.ByteBuffer.allocateDirect(length - 8);
    java.nio.ByteBuffer whole = GEO.write();
    for (int i = 0; i < length - 8; i++) {
      shorter.put(i, whole.get(i));
    }
    assertEquals(-22, EmulatedDevice.nFormat(file.toString(), shorter));
    assertEquals(0, EmulatedDevice.nFormat(file.toString(), GEO.write()));
    assertTrue(Files.exists(file));
  }

  @Test
  void formatOfTheLargestGeometryWorksOrSaysWhyNot() throws Exception {
    // a failure on this thread first, so a stale message would show
    assertThrows(ZonedDeviceException.class, () -> ZonedDevice.open("emu:" + dir.resolve("none")));
    Path file = dir.resolve("huge.zkvemu");
    DeviceGeometry huge = DeviceGeometry.of(1 << 20, 16 * MIB, 16 * MIB, 0, 0, 65536); // 16 TiB
    try {
      EmulatedDevice.format(file, huge); // a sparse file, where the file system allows one
    } catch (ZonedDeviceException e) {
      String m = e.getMessage();
      assertFalse(m.contains("none"), () -> "stale message: " + m);
      assertMentions(e, file.toString());
      String cause = m.substring(m.indexOf(huge.toString()) + huge.toString().length());
      assertTrue(cause.length() > ": cannot format ".length(), () -> "no cause in " + m);
      System.out.println("EmulatedDeviceTest: a 16 TiB device does not fit here: " + m);
      assertFalse(Files.exists(file), "nothing is left behind");
      return;
    }
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      assertEquals(huge, d.geometry());
      assertEquals(ZoneCondition.EMPTY, d.zone((1 << 20) - 1).condition());
    }
  }

  @Test
  void formatRefusesAnExistingFile() throws Exception {
    Path other = dir.resolve("other.txt");
    Files.writeString(other, "precious");
    ZonedDeviceException e =
        assertThrows(ZonedDeviceException.class, () -> EmulatedDevice.format(other, GEO));
    assertMentions(e, other.toString(), "exists");
    assertEquals("precious", Files.readString(other), "the file is untouched");

    Path dev = formatted("dev.zkvemu");
    try (ZonedDevice d = ZonedDevice.open(uri(dev))) {
      write(d, 0, 2, 1, 0);
    }
    ZonedDeviceException again =
        assertThrows(ZonedDeviceException.class, () -> EmulatedDevice.format(dev, GEO));
    assertMentions(again, "exists");
    try (ZonedDevice d = ZonedDevice.open(uri(dev))) {
      assertEquals(GEO, d.geometry());
      assertEquals(start(0) + 2 * LBA, d.zone(0).writePointer(), "the device is untouched");
    }
  }

  @Test
  void formatGivesAnEmptyDeviceOfTheGeometry() throws Exception {
    Path file = formatted("dev.zkvemu");
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      assertEquals(GEO, d.geometry());
      assertEquals("instant", d.profile());
      assertTrue(d.uri().startsWith("emu:"));
      for (Zone z : d.report()) {
        assertEquals(ZoneCondition.EMPTY, z.condition());
      }
      assertArrayEquals(new byte[LBA], read(d, start(7) + GEO.zoneSize() - LBA, LBA));
    }
  }

  // ---------------------------------------------------------------- open

  private static ZonedDeviceException openFails(String uri, String... words) {
    ZonedDeviceException e = assertThrows(ZonedDeviceException.class, () -> ZonedDevice.open(uri));
    assertFalse(e instanceof DeviceInUseException, e::getMessage);
    assertFalse(e instanceof ZoneStatusException, e::getMessage);
    assertMentions(e, words);
    return e;
  }

  @Test
  void openOfAMissingFileFails() {
    Path missing = dir.resolve("missing.zkvemu");
    ZonedDeviceException e = openFails(uri(missing), missing.toString(), "No such file");
    assertEquals(-2, e.code(), "ENOENT");
    assertFalse(Files.exists(missing), "open does not create a device");
  }

  @Test
  void openOfAFileThatIsNoDeviceFails() throws Exception {
    Path junk = dir.resolve("junk.bin");
    Files.write(junk, bytes(pattern(3 * 4096, 1)));
    openFails(uri(junk), junk.toString(), "not a zkv emulated device");
    Path empty = Files.createFile(dir.resolve("empty.bin"));
    openFails(uri(empty), empty.toString(), "not a zkv emulated device");
    openFails(uri(dir), dir.toString());
  }

  @Test
  void openOfACorruptHeaderFails() throws Exception {
    Path a = formatted("a.zkvemu");
    flipByte(a, 20); // nr_zones
    openFails(uri(a), a.toString(), "header checksum");
    Path b = formatted("b.zkvemu");
    flipByte(b, 3); // magic
    openFails(uri(b), b.toString(), "bad magic");
    Path c = formatted("c.zkvemu");
    flipByte(c, 8); // format version
    openFails(uri(c), c.toString(), "version");
    Path d = formatted("d.zkvemu");
    flipByte(d, 72); // the checksum itself
    openFails(uri(d), d.toString(), "header checksum");
  }

  @Test
  void openOfACorruptZoneTableFails() throws Exception {
    Path file = formatted("dev.zkvemu");
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      write(d, 2, 3, 1, 0);
      d.closeZone(2);
    }
    flipByte(file, 4096 + 2 * 16 + 1); // zone 2's write pointer
    openFails(uri(file), file.toString(), "zone table entry 2 is corrupt");

    Path other = formatted("other.zkvemu");
    flipByte(other, 4096 + 5 * 16 + 8); // zone 5's condition
    openFails(uri(other), other.toString(), "zone table entry 5 is corrupt");
  }

  @Test
  void openOfATruncatedFileFails() throws Exception {
    Path file = formatted("dev.zkvemu");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(ch.size() - 4096);
    }
    openFails(uri(file), file.toString(), "truncated");
  }

  @Test
  void badUrisAreRejected() throws Exception {
    Path file = formatted("dev.zkvemu");
    openFails(uri(file, "bogus=1"), "unknown device URI option 'bogus'");
    openFails(EmulatedDevice.uri(file, "warp9"), "unknown timing profile 'warp9'", "zn540");
    openFails(uri(file, "wcache=2"), "wcache");
    openFails(uri(file, "seed=x"), "seed");
    openFails(uri(file, "wcache"), "no value");
    openFails("scsi:" + file, "unsupported device URI");
    openFails("nvme:" + file, "not an NVMe generic character device");
    openFails("emu:", "no path");
    for (String p : EmulatedDevice.PROFILES) {
      try (ZonedDevice d = ZonedDevice.open(EmulatedDevice.uri(file, p, "seed=7", "wcache=1"))) {
        assertEquals(p, d.profile());
      }
    }
  }

  @Test
  void secondOpenIsRefusedWhileTheDeviceIsInUse() throws Exception {
    Path file = formatted("dev.zkvemu");
    try (ZonedDevice first = ZonedDevice.open(uri(file))) {
      byte[] data = write(first, 0, 1, 1, 0);
      DeviceInUseException e =
          assertThrows(DeviceInUseException.class, () -> ZonedDevice.open(uri(file)));
      assertMentions(e, "in use", file.toString(), Long.toString(ProcessHandle.current().pid()));
      assertEquals(-16, e.code(), "EBUSY");
      assertThrows(DeviceInUseException.class, () -> ZonedDevice.open(uri(file, "wcache=1")));
      // the refused opener disturbed nothing
      assertEquals(ZoneCondition.IMPLICITLY_OPEN, first.zone(0).condition());
      assertArrayEquals(data, read(first, start(0), LBA));
      write(first, 0, 1, 2, 0);
    }
    try (ZonedDevice again = ZonedDevice.open(uri(file))) {
      assertEquals(start(0) + 2 * LBA, again.zone(0).writePointer());
    }
  }

  @Test
  void stateSurvivesCloseAndReopenAsAPowerCycle() throws Exception {
    Path file = formatted("dev.zkvemu");
    byte[][] data = new byte[8][];
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      d.finishZone(5); // EMPTY -> FULL while an active resource is free
      data[0] = write(d, 0, 3, 10, 0); // implicitly open
      for (int i = 0; i < GEO.zoneCapacity() / (8 * LBA); i++) { // zone 1 FULL by writes
        write(d, 1, 8, 20 + i, 0);
      }
      data[1] = read(d, start(1), (int) GEO.zoneCapacity());
      d.openZone(2); // explicitly open, unwritten
      d.openZone(3); // explicitly open, written
      data[3] = write(d, 3, 1, 30, 0);
      data[4] = write(d, 4, 2, 40, 0); // the open limit: implicitly open zone 0 is closed
      d.closeZone(4);
      assertEquals(
          List.of(
              ZoneCondition.CLOSED,
              ZoneCondition.FULL,
              ZoneCondition.EXPLICITLY_OPEN,
              ZoneCondition.EXPLICITLY_OPEN,
              ZoneCondition.CLOSED,
              ZoneCondition.FULL,
              ZoneCondition.EMPTY,
              ZoneCondition.EMPTY),
          d.report().stream().map(Zone::condition).toList());
      write(d, 0, 1, 11, 0); // zone 0 implicitly open again (closes nothing: 3 open)
      data[0] = read(d, start(0), 4 * LBA);
      assertEquals(ZoneCondition.IMPLICITLY_OPEN, d.zone(0).condition());
    }
    List<Zone> before;
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      before = d.report();
      assertEquals(
          List.of(
              ZoneCondition.CLOSED,
              ZoneCondition.FULL,
              ZoneCondition.EMPTY,
              ZoneCondition.CLOSED,
              ZoneCondition.CLOSED,
              ZoneCondition.FULL,
              ZoneCondition.EMPTY,
              ZoneCondition.EMPTY),
          before.stream().map(Zone::condition).toList(),
          "open zones come back CLOSED, or EMPTY when unwritten");
      long[] written = {4 * LBA, GEO.zoneCapacity(), 0, LBA, 2 * LBA, GEO.zoneCapacity(), 0, 0};
      for (int z = 0; z < 8; z++) {
        assertEquals(start(z) + written[z], before.get(z).writePointer(), "wp of zone " + z);
        if (data[z] != null) {
          assertArrayEquals(data[z], read(d, start(z), data[z].length), "data of zone " + z);
        }
      }
      // the open and active counters start from the reloaded zones: 3 active (0, 3, 4)
      d.openZone(0);
      d.openZone(3);
      d.openZone(4);
      expectStatus(ZnsStatus.TOO_MANY_OPEN_ZONES, () -> d.openZone(6));
      d.closeZone(4);
      d.openZone(6); // the fourth active zone
      d.closeZone(3);
      expectStatus(ZnsStatus.TOO_MANY_ACTIVE_ZONES, () -> d.openZone(7));
      expectStatus(ZnsStatus.ZONE_IS_FULL, () -> d.append(1, pattern(LBA, 1)));
      write(d, 0, 1, 12, 0);
      assertEquals(start(0) + 5 * LBA, d.zone(0).writePointer());
    }
  }

  // ---------------------------------------------------------------- fault injection

  @Test
  void injectedIoErrorsFailExactlyTheChosenOperations() throws Exception {
    Path file = formatted("dev.zkvemu");
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      FaultInjector f = d.faults();
      f.failWithIoError(EnumSet.of(Op.WRITE), 1, 2, 2);
      write(d, 0, 1, 1, 0); // another zone: not counted
      byte[] a = write(d, 1, 1, 2, 0); // skipped 1
      d.append(1, pattern(LBA, 3)); // another kind: not counted
      read(d, start(1), LBA);
      byte[] b = write(d, 1, 1, 4, 0); // skipped 2
      long wp = d.zone(1).writePointer();
      for (int i = 0; i < 2; i++) {
        ZonedDeviceException e = expectHostError(EIO, () -> write(d, 1, 1, 5, 0));
        assertMentions(e, "write at " + wp, "EIO");
        assertEquals(wp, d.zone(1).writePointer(), "a failed write leaves the write pointer");
      }
      byte[] c = write(d, 1, 1, 6, 0); // the rule is used up
      assertEquals(wp + LBA, d.zone(1).writePointer());
      assertArrayEquals(a, read(d, start(1), LBA));
      assertArrayEquals(b, read(d, start(1) + 2 * LBA, LBA));
      assertArrayEquals(c, read(d, wp, LBA));

      // any zone, two kinds, one failure shared by both
      f.failWithIoError(EnumSet.of(Op.READ, Op.APPEND), -1, 0, 1);
      expectHostError(EIO, () -> d.append(5, pattern(LBA, 7)));
      assertEquals(ZoneCondition.EMPTY, d.zone(5).condition(), "the failed append did nothing");
      read(d, start(5), LBA);
      assertEquals(start(5), d.append(5, pattern(LBA, 8)));

      // reads, with a skip, on one zone
      f.failWithIoError(Set.of(Op.READ), 5, 1, 1);
      read(d, start(5), LBA);
      read(d, start(4), LBA);
      expectHostError(EIO, () -> read(d, start(5), LBA));
      read(d, start(5), LBA);

      // zone management: the zone stays as it was
      f.failWithIoError(Set.of(Op.ZONE_MANAGEMENT), 1, 0, 1);
      expectHostError(EIO, () -> d.resetZone(1));
      assertEquals(wp + LBA, d.zone(1).writePointer());
      assertArrayEquals(a, read(d, start(1), LBA));
      d.resetZone(1);
      assertEquals(ZoneCondition.EMPTY, d.zone(1).condition());

      f.failWithIoError(Set.of(Op.FLUSH), -1, 0, 1);
      expectHostError(EIO, d::flush);
      d.flush();

      // a rule can be cleared before it fires
      f.failWithIoError(Set.of(Op.WRITE), 2, 0, 5);
      f.failWithIoError(Set.of(Op.WRITE), 2, 0, 0);
      write(d, 2, 1, 9, 0);

      // asynchronous requests get the error in their completion
      f.failWithIoError(Set.of(Op.APPEND), 3, 0, 1);
      ByteBuffer buf = pattern(LBA, 10);
      try (AsyncQueue q = d.newQueue(4)) {
        Completions done = new Completions(4);
        assertTrue(q.submitAppend(3, buf, 0, LBA, 0, 1));
        assertEquals(1, q.reap(done, 1, 10, TimeUnit.SECONDS));
        assertEquals(-EIO, done.result(0));
        assertNull(done.status(0), "a host error has no NVMe status");
        assertFalse(done.error(0) instanceof ZoneStatusException);
        assertTrue(q.submitAppend(3, buf, 0, LBA, 0, 2));
        assertEquals(1, q.reap(done, 1, 10, TimeUnit.SECONDS));
        assertEquals(start(3), done.result(0));
      }
      assertThrows(IllegalArgumentException.class, () -> f.setZoneCondition(0, ZoneCondition.FULL));
    }
  }

  @Test
  void readOnlyZonesRefuseWritesAndStillRead() throws Exception {
    Path file = formatted("dev.zkvemu");
    byte[] data;
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      data = write(d, 2, 2, 1, 0);
      d.faults().setZoneCondition(2, ZoneCondition.READ_ONLY);
      checkReadOnly(d, data);
      assertEquals(ZoneCondition.EMPTY, d.zone(3).condition(), "neighbours are fine");
      write(d, 3, 1, 2, 0);
    }
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      checkReadOnly(d, data); // a persistent condition
    }
  }

  private static void checkReadOnly(ZonedDevice d, byte[] data) throws Exception {
    Zone z = d.zone(2);
    assertEquals(ZoneCondition.READ_ONLY, z.condition());
    assertEquals(start(2) + data.length, z.writePointer());
    expectStatus(ZnsStatus.ZONE_IS_READ_ONLY, () -> write(d, 2, 1, 3, 0));
    expectStatus(ZnsStatus.ZONE_IS_READ_ONLY, () -> d.write(start(2), pattern(LBA, 3)));
    expectStatus(ZnsStatus.ZONE_IS_READ_ONLY, () -> d.append(2, pattern(LBA, 4)));
    for (Executable mgmt :
        List.<Executable>of(
            () -> d.openZone(2),
            () -> d.closeZone(2),
            () -> d.finishZone(2),
            () -> d.resetZone(2))) {
      expectStatus(ZnsStatus.INVALID_ZONE_STATE_TRANSITION, mgmt);
    }
    assertArrayEquals(data, read(d, start(2), data.length), "a read-only zone reads");
    assertEquals(z, d.zone(2));
  }

  @Test
  void offlineZonesRefuseReadsWritesAndResets() throws Exception {
    Path file = formatted("dev.zkvemu");
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      write(d, 1, 2, 1, 0);
      d.faults().setZoneCondition(1, ZoneCondition.OFFLINE);
      checkOffline(d);
      byte[] other = write(d, 0, 1, 2, 0);
      assertArrayEquals(other, read(d, start(0), LBA), "neighbours are fine");
      expectStatus(
          ZnsStatus.ZONE_BOUNDARY_ERROR,
          () -> d.read(start(1) - LBA, ByteBuffer.allocateDirect(2 * LBA)));
    }
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      checkOffline(d);
    }
  }

  private static void checkOffline(ZonedDevice d) throws Exception {
    assertEquals(ZoneCondition.OFFLINE, d.zone(1).condition());
    expectStatus(ZnsStatus.ZONE_IS_OFFLINE, () -> read(d, start(1), LBA));
    expectStatus(ZnsStatus.ZONE_IS_OFFLINE, () -> read(d, start(1) + 100 * LBA, LBA));
    expectStatus(ZnsStatus.ZONE_IS_OFFLINE, () -> write(d, 1, 1, 3, 0));
    expectStatus(ZnsStatus.ZONE_IS_OFFLINE, () -> d.append(1, pattern(LBA, 4)));
    expectStatus(ZnsStatus.INVALID_ZONE_STATE_TRANSITION, () -> d.resetZone(1));
    expectStatus(ZnsStatus.INVALID_ZONE_STATE_TRANSITION, () -> d.openZone(1));
    expectStatus(ZnsStatus.INVALID_ZONE_STATE_TRANSITION, () -> d.finishZone(1));
    expectStatus(ZnsStatus.INVALID_ZONE_STATE_TRANSITION, () -> d.closeZone(1));
    assertEquals(ZoneCondition.OFFLINE, d.zone(1).condition());
  }

  // ---------------------------------------------------------------- power cuts

  @Test
  void powerCutLosesUnflushedWritesAndKillsTheDeviceUntilReopen() throws Exception {
    Path file = formatted("dev.zkvemu");
    byte[] a;
    byte[] c;
    try (ZonedDevice d = ZonedDevice.open(uri(file, "wcache=1"))) {
      a = write(d, 0, 2, 1, 0);
      c = bytes(pattern(LBA, 3));
      assertEquals(start(1), d.append(1, pattern(LBA, 3)));
      d.flush();
      write(d, 0, 2, 2, 0); // lost
      assertEquals(start(1) + LBA, d.append(1, pattern(2 * LBA, 4))); // lost
      for (int i = 0; i < GEO.zoneCapacity() / (16 * LBA); i++) { // zone 2 FULL, all lost
        write(d, 2, 16, 50 + i, 0);
      }
      write(d, 3, 1, 5, 0);
      d.resetZone(3); // nothing left to lose in zone 3
      assertArrayEquals(bytes(pattern(2 * LBA, 2)), read(d, start(0) + 2 * LBA, 2 * LBA));
      try (AsyncQueue q = d.newQueue(2)) {
        assertEquals(2 + GEO.zoneCapacity() / (16 * LBA), cut(d, PowerCut.DROP_ALL));
        Completions done = new Completions(2);
        assertTrue(q.submitAppend(4, pattern(LBA, 6), 0, LBA, 0, 1));
        assertEquals(1, q.reap(done, 1, 10, TimeUnit.SECONDS));
        assertEquals(-ENODEV, done.result(0), "a request after the cut fails in its completion");
      }
      ZonedDeviceException e = expectHostError(ENODEV, () -> read(d, start(0), LBA));
      assertMentions(e, "power");
      expectHostError(ENODEV, () -> write(d, 5, 1, 7, 0));
      expectHostError(ENODEV, () -> d.write(start(0) + 2 * LBA, pattern(LBA, 7)));
      expectHostError(ENODEV, () -> d.append(0, pattern(LBA, 8)));
      expectHostError(ENODEV, d::report);
      expectHostError(ENODEV, () -> d.openZone(6));
      expectHostError(ENODEV, () -> d.resetZone(0));
      expectHostError(ENODEV, () -> d.finishZone(0));
      expectHostError(ENODEV, d::flush);
      assertThrows(IllegalStateException.class, () -> cut(d, PowerCut.DROP_ALL), "already dead");
    }
    try (ZonedDevice d = ZonedDevice.open(uri(file, "wcache=1"))) {
      assertEquals(
          new Zone(0, start(0), GEO.zoneCapacity(), start(0) + 2 * LBA, ZoneCondition.CLOSED),
          d.zone(0));
      assertArrayEquals(a, read(d, start(0), 2 * LBA), "flushed data survives");
      assertArrayEquals(
          new byte[2 * LBA], read(d, start(0) + 2 * LBA, 2 * LBA), "unflushed is gone");
      assertEquals(start(1) + LBA, d.zone(1).writePointer(), "the write pointer falls back");
      assertEquals(ZoneCondition.CLOSED, d.zone(1).condition());
      assertArrayEquals(c, read(d, start(1), LBA));
      assertArrayEquals(new byte[2 * LBA], read(d, start(1) + LBA, 2 * LBA));
      assertEquals(ZoneCondition.FULL, d.zone(2).condition(), "FULL is zone metadata, kept");
      assertArrayEquals(
          new byte[(int) GEO.zoneCapacity()], read(d, start(2), (int) GEO.zoneCapacity()));
      assertEquals(ZoneCondition.EMPTY, d.zone(3).condition());
      assertEquals(
          ZoneCondition.EMPTY, d.zone(4).condition(), "the append after the cut did nothing");
      // the device works again
      write(d, 0, 1, 9, 0);
      d.flush();
    }
  }

  private static long cut(ZonedDevice d, PowerCut mode) {
    return d.faults().powerCut(mode, SEED);
  }

  @Test
  void fuaWritesSurviveAPowerCut() throws Exception {
    Path file = formatted("dev.zkvemu");
    byte[] b;
    byte[] c;
    try (ZonedDevice d = ZonedDevice.open(uri(file, "wcache=1"))) {
      write(d, 0, 2, 1, 0); // lost
      b = write(d, 0, 1, 2, ZonedDevice.FUA); // durable
      c = bytes(pattern(3 * LBA, 3));
      assertEquals(start(1), d.append(1, pattern(3 * LBA, 3), ZonedDevice.FUA));
      assertEquals(1, cut(d, PowerCut.DROP_ALL), "only the first write was not durable");
    }
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      assertEquals(start(0) + 3 * LBA, d.zone(0).writePointer(), "durable data ends the zone");
      assertArrayEquals(
          new byte[2 * LBA], read(d, start(0), 2 * LBA), "a lost write below is a hole");
      assertArrayEquals(b, read(d, start(0) + 2 * LBA, LBA));
      assertEquals(start(1) + 3 * LBA, d.zone(1).writePointer());
      assertArrayEquals(c, read(d, start(1), 3 * LBA));
    }
  }

  @Test
  void withoutAWriteCacheCompletedWritesSurviveAPowerCut() throws Exception {
    Path file = formatted("dev.zkvemu");
    byte[] a;
    byte[] b;
    try (ZonedDevice d = ZonedDevice.open(uri(file, "wcache=0"))) {
      a = write(d, 0, 3, 1, 0);
      b = bytes(pattern(2 * LBA, 2));
      assertEquals(start(4), d.append(4, pattern(2 * LBA, 2)));
      assertEquals(0, cut(d, PowerCut.RANDOM), "nothing was volatile");
    }
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      assertEquals(start(0) + 3 * LBA, d.zone(0).writePointer());
      assertArrayEquals(a, read(d, start(0), 3 * LBA));
      assertEquals(start(4) + 2 * LBA, d.zone(4).writePointer());
      assertArrayEquals(b, read(d, start(4), 2 * LBA));
      assertEquals(ZoneCondition.CLOSED, d.zone(0).condition());
    }
  }

  /** What a random power cut left of one append. */
  private record Fate(int zone, long offset, int blocks, int kept) {}

  /** Block {@code j} of append {@code i}: recognisable and different from every other block. */
  private static ByteBuffer appendData(long seed, int i, int blocks) {
    ByteBuffer b = ByteBuffer.allocateDirect(blocks * LBA);
    for (int j = 0; j < blocks; j++) {
      ByteBuffer p = pattern(LBA, seed * 7919 + i * 64L + j);
      p.putInt(0, i).putInt(4, j);
      b.put(j * LBA, bytes(p));
    }
    return b;
  }

  private List<Fate> randomCutScenario(String name, long seed) throws Exception {
    Path file = formatted(name);
    Random r = new Random(seed);
    int appends = 40;
    int[] blocks = new int[appends];
    long[] offset = new long[appends];
    byte[] durable;
    try (ZonedDevice d = ZonedDevice.open(uri(file, "wcache=1", "seed=" + seed))) {
      durable = write(d, 0, 2, seed, 0);
      d.flush();
      for (int i = 0; i < appends; i++) {
        blocks[i] = 1 + r.nextInt(4);
        offset[i] = d.append(i % 2, appendData(seed, i, blocks[i]));
      }
      assertEquals(appends, d.faults().powerCut(PowerCut.RANDOM, seed));
    }
    List<Fate> fates = new ArrayList<>();
    try (ZonedDevice d = ZonedDevice.open(uri(file))) {
      assertArrayEquals(durable, read(d, start(0), 2 * LBA), "flushed data survives");
      long[] highest = {start(0) + 2 * LBA, start(1)};
      for (int i = 0; i < appends; i++) {
        byte[] want = bytes(appendData(seed, i, blocks[i]));
        byte[] got = read(d, offset[i], blocks[i] * LBA);
        int kept = 0;
        while (kept < blocks[i]
            && Arrays.equals(
                got, kept * LBA, (kept + 1) * LBA, want, kept * LBA, (kept + 1) * LBA)) {
          kept++;
        }
        byte[] rest = Arrays.copyOfRange(got, kept * LBA, blocks[i] * LBA);
        String what =
            "seed "
                + seed
                + ": append "
                + i
                + " must be whole, absent or a block prefix; "
                + kept
                + " of "
                + blocks[i]
                + " blocks intact, then not zeros";
        assertArrayEquals(new byte[rest.length], rest, what);
        fates.add(new Fate(i % 2, offset[i], blocks[i], kept));
        if (kept > 0) {
          highest[i % 2] = Math.max(highest[i % 2], offset[i] + (long) kept * LBA);
        }
      }
      for (int z = 0; z < 2; z++) {
        Zone zone = d.zone(z);
        assertEquals(
            highest[z],
            zone.writePointer(),
            "seed " + seed + ": wp of zone " + z + " ends at the last surviving block");
        assertEquals(
            zone.writePointer() == start(z) ? ZoneCondition.EMPTY : ZoneCondition.CLOSED,
            zone.condition());
        // the zone goes on from there
        write(d, z, 1, seed + z, 0);
      }
    }
    return fates;
  }

  @Test
  void randomPowerCutKeepsEachAppendWholeAbsentOrAsABlockPrefix() throws Exception {
    List<Fate> fates = randomCutScenario("a.zkvemu", SEED);
    long whole = fates.stream().filter(f -> f.kept() == f.blocks()).count();
    long absent = fates.stream().filter(f -> f.kept() == 0).count();
    long torn = fates.size() - whole - absent;
    System.out.printf(
        "EmulatedDeviceTest seed=%d random power cut: %d whole, %d absent, %d torn%n",
        SEED, whole, absent, torn);
    assertTrue(whole + torn > 0, () -> "seed " + SEED + ": a random cut kept something");
    assertTrue(absent + torn > 0, () -> "seed " + SEED + ": a random cut lost something");
    assertEquals(fates, randomCutScenario("b.zkvemu", SEED), "a power cut is reproducible by seed");
  }

  @Test
  void faultsNeedAnOpenEmulatedDevice() throws Exception {
    Path file = formatted("dev.zkvemu");
    ZonedDevice d = ZonedDevice.open(uri(file));
    FaultInjector f = d.faults();
    d.close();
    assertThrows(IllegalStateException.class, () -> f.powerCut(PowerCut.DROP_ALL, 1));
    assertThrows(IllegalStateException.class, () -> f.setZoneCondition(0, ZoneCondition.OFFLINE));
    assertThrows(
        IllegalStateException.class, () -> f.failWithIoError(EnumSet.of(Op.READ), -1, 0, 1));
  }

  @Test
  void completionsReapedLongAfterTheirDeadlineWithoutWaitingAreOnTime() throws Exception {
    // nobody waited for them: the host kept no thread from them (docs/timing-model.md)
    Path file = formatted("late.zkvemu");
    try (ZonedDevice d = ZonedDevice.open(EmulatedDevice.uri(file, "zn540"));
        AsyncQueue q = d.newQueue(4)) {
      HostLateness before = EmulatedDevice.lateness();
      ByteBuffer buf = pattern(LBA, 3);
      for (int i = 0; i < 4; i++) {
        assertTrue(q.submitAppend(0, buf, 0, LBA, 0, i));
      }
      Thread.sleep(5); // the modelled deadlines are ~20-40 us away
      Completions done = new Completions(4);
      int got = 0;
      while (got < 4) {
        got += q.reap(done, 1, 10, TimeUnit.SECONDS);
      }
      HostLateness late = EmulatedDevice.lateness().since(before);
      assertTrue(late.completions() >= 4, late.toString());
      assertEquals(0, late.late(), late.toString());
    }
  }

  @Test
  void latenessFiguresOfAnInterval() {
    HostLateness a = new HostLateness(100, 1, 50_000);
    HostLateness b = new HostLateness(300, 4, 90_000);
    assertEquals(new HostLateness(200, 3, 90_000), b.since(a));
    assertEquals(0.015, b.since(a).lateShare(), 1e-12);
    assertTrue(b.since(a).notHonoured());
    assertFalse(new HostLateness(200, 2, 0).notHonoured(), "1% is still honoured");
    assertEquals(0, new HostLateness(0, 0, 0).lateShare());
    assertTrue(b.since(a).describe().contains("3 of 200"), b.since(a).describe());
  }
}
