package io.zkv;

import static io.zkv.TestDevices.b;
import static io.zkv.TestDevices.small;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.Zone;
import io.zkv.device.ZoneCondition;
import io.zkv.device.ZonedDevice;
import io.zkv.fs.NotFormattedException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class ZonedEnvTest {
  @TempDir Path dir;

  @Test
  void mountOfAnUnformattedDeviceSaysHowToFormatIt() throws Exception {
    String uri = TestDevices.medium(dir);
    ZkvException e =
        assertThrows(ZkvException.class, () -> ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT));
    assertTrue(
        e.getMessage().startsWith("cannot mount " + uri + ": the device holds no zkv file system"),
        e.getMessage());
    assertTrue(e.getCause() instanceof NotFormattedException, String.valueOf(e.getCause()));
    assertEquals(-NotFormattedException.ENODATA, ((NotFormattedException) e.getCause()).code());
    assertTrue(
        e.getMessage()
            .endsWith("open it with Mode.FORMAT or Mode.FORMAT_IF_UNFORMATTED to create one"),
        e.getMessage());
    // the failed mount released the device
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      assertTrue(env.formatted());
    }
  }

  @Test
  void createEmulatedCreatesFormatsAndOpensInOneCall() throws Exception {
    Path file = dir.resolve("created.zkvemu");
    String uri;
    ZonedEnv closed;
    try (ZonedEnv env = ZonedEnv.createEmulated(file, "instant", TestDevices.MEDIUM);
        ZkvDb db = ZkvDb.open(env, "/created", small())) {
      assertTrue(env.formatted());
      assertEquals(EmulatedDevice.uri(file, "instant"), env.uri());
      assertEquals(TestDevices.MEDIUM, env.geometry());
      db.put(b("k"), b("v"));
      uri = env.uri();
      List<Zone> report = env.zoneReport();
      assertEquals(TestDevices.MEDIUM.zoneCount(), report.size());
      assertTrue(report.stream().anyMatch(z -> z.condition() == ZoneCondition.EMPTY), "data zones");
      closed = env;
    }
    assertThrows(ZkvClosedException.class, closed::zoneReport);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb db = ZkvDb.open(env, "/created", small())) {
      assertArrayEquals(b("v"), db.get(b("k")));
    }
  }

  @Test
  void createEmulatedRefusesAnExistingFileAndLeavesIt() throws Exception {
    Path file = dir.resolve("existing.zkvemu");
    Files.writeString(file, "not a device");
    ZkvException e =
        assertThrows(
            ZkvException.class, () -> ZonedEnv.createEmulated(file, "instant", TestDevices.MEDIUM));
    assertTrue(
        e.getMessage().startsWith("cannot create emulated device " + file + ": "), e.getMessage());
    assertEquals("not a device", Files.readString(file));
  }

  @Test
  void createEmulatedDeletesTheFileWhenTheFileSystemCannotBeMade() {
    // The emulator accepts 4 zones; the zone file system needs its metadata zones plus 3.
    Path file = dir.resolve("tiny.zkvemu");
    DeviceGeometry tiny = DeviceGeometry.of(4, 8L << 20, 6L << 20, 4, 4, 1 << 20);
    ZkvException e =
        assertThrows(ZkvException.class, () -> ZonedEnv.createEmulated(file, "instant", tiny));
    assertTrue(e.getMessage().startsWith("cannot mount zkv file system on "), e.getMessage());
    assertFalse(Files.exists(file), "the file this call created is gone");
  }

  @Test
  void openOrCreateEmulatedCreatesOnceThenMounts() throws Exception {
    Path file = dir.resolve("not/yet/there.zkvemu");
    try (ZonedEnv env = ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM);
        ZkvDb db = ZkvDb.open(env, "/runs", small())) {
      assertTrue(env.formatted(), "the first call creates and formats");
      assertEquals(EmulatedDevice.uri(file, "instant"), env.uri());
      db.put(b("k"), b("v"));
    }
    for (int run = 2; run <= 3; run++) {
      try (ZonedEnv env = ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM);
          ZkvDb db = ZkvDb.open(env, "/runs", small())) {
        assertFalse(env.formatted(), "run " + run + " mounts what is there");
        assertArrayEquals(b("v"), db.get(b("k")));
      }
    }
  }

  @Test
  void openOrCreateEmulatedFormatsADeviceCreatedButNeverFormatted() throws Exception {
    Path file = dir.resolve("half-made.zkvemu");
    EmulatedDevice.format(file, TestDevices.MEDIUM); // a first run that died before mkfs
    try (ZonedEnv env = ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM);
        ZkvDb db = ZkvDb.open(env, "/runs", small())) {
      assertTrue(env.formatted());
      db.put(b("k"), b("v"));
    }
  }

  @Test
  void openOrCreateEmulatedRefusesAnotherGeometryAndLeavesTheDevice() throws Exception {
    Path file = dir.resolve("kept.zkvemu");
    try (ZonedEnv env = ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM);
        ZkvDb db = ZkvDb.open(env, "/runs", small())) {
      db.put(b("k"), b("v"));
    }
    DeviceGeometry other = DeviceGeometry.small();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ZonedEnv.openOrCreateEmulated(file, "instant", other));
    assertTrue(e.getMessage().contains(TestDevices.MEDIUM.toString()), e.getMessage());
    assertTrue(e.getMessage().contains(other.toString()), e.getMessage());
    // The refused call closed the device it opened: the data is there for the right geometry.
    try (ZonedEnv env = ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM);
        ZkvDb db = ZkvDb.open(env, "/runs", small())) {
      assertArrayEquals(b("v"), db.get(b("k")));
    }
  }

  /** Racing callers: one creates, the others mount it or hear it is in use; nothing is lost. */
  @Test
  void openOrCreateEmulatedCallersRacingForANewFile() throws Exception {
    for (int round = 0; round < 10; round++) {
      Path file = dir.resolve("race-" + round + ".zkvemu");
      int callers = 3;
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(callers);
      java.util.List<java.util.concurrent.Future<String>> results = new java.util.ArrayList<>();
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(callers);
      try {
        for (int c = 0; c < callers; c++) {
          results.add(
              pool.submit(
                  () -> {
                    start.await();
                    try (ZonedEnv env =
                            ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM);
                        ZkvDb db = ZkvDb.open(env, "/race", small())) {
                      db.put(b(Thread.currentThread().getName()), b("here"));
                      return "opened";
                    } catch (ZkvException e) {
                      assertTrue(e.getMessage().contains("in use"), e.getMessage());
                      return "in use";
                    }
                  }));
        }
        int opened = 0;
        for (java.util.concurrent.Future<String> r : results) {
          opened += r.get().equals("opened") ? 1 : 0;
        }
        assertTrue(opened >= 1, "round " + round + ": nobody got the device");
      } finally {
        pool.shutdownNow();
      }
      assertTrue(Files.exists(file), "round " + round + ": the device was deleted");
      try (Stream<Path> left = Files.list(dir)) {
        assertFalse(
            left.anyMatch(p -> p.getFileName().toString().contains(".creating-")),
            "no temporary file is left");
      }
      try (ZonedEnv env = ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM)) {
        assertFalse(env.formatted(), "round " + round + ": formatted once, by its creator");
      }
    }
  }

  @Test
  void openOrCreateEmulatedReportsAFileThatIsNoDevice() throws Exception {
    Path file = dir.resolve("text.zkvemu");
    Files.writeString(file, "not a device");
    assertThrows(
        ZkvException.class,
        () -> ZonedEnv.openOrCreateEmulated(file, "instant", TestDevices.MEDIUM));
    assertEquals("not a device", Files.readString(file));
  }

  @Test
  void formatIfUnformattedFormatsOnceThenMounts() throws Exception {
    String uri = TestDevices.medium(dir);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED);
        ZkvDb db = ZkvDb.open(env, "/kept", small())) {
      assertTrue(env.formatted());
      assertEquals(uri, env.uri());
      assertEquals(TestDevices.MEDIUM, env.geometry());
      db.put(b("k"), b("v"));
    }
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED);
        ZkvDb db = ZkvDb.open(env, "/kept", small())) {
      assertFalse(env.formatted(), "a formatted device is mounted, not formatted again");
      assertArrayEquals(b("v"), db.get(b("k")));
    }
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      assertTrue(env.formatted());
      ZkvOptions mustExist = small().toBuilder().createIfMissing(false).build();
      ZkvException gone =
          assertThrows(ZkvException.class, () -> ZkvDb.open(env, "/kept", mustExist));
      assertTrue(gone.getMessage().contains("does not exist"), gone.getMessage());
      assertEquals(List.of(), env.openDatabases());
    }
  }

  @Test
  void aDamagedFileSystemIsReportedAndNeverFormattedOver() throws Exception {
    String uri = TestDevices.medium(dir);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      assertTrue(env.formatted());
    }
    // overwrite every superblock with garbage: reset the written meta zones, write 0xAB blocks
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      for (Zone z : dev.report(0, 3)) {
        if (z.condition() != ZoneCondition.EMPTY) {
          dev.resetZone(z.index());
          ByteBuffer junk = ByteBuffer.allocateDirect(8192);
          while (junk.hasRemaining()) {
            junk.put((byte) 0xAB);
          }
          dev.write(z.start(), junk.flip());
        }
      }
    }
    for (int attempt = 0; attempt < 2; attempt++) {
      ZkvCorruptionException e =
          assertThrows(
              ZkvCorruptionException.class,
              () -> ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED));
      assertTrue(
          e.getMessage().startsWith("cannot mount zkv file system on " + uri), e.getMessage());
      assertTrue(e.getMessage().contains("no valid superblock"), e.getMessage());
    }
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      ByteBuffer first = ByteBuffer.allocateDirect(4096);
      Zone written =
          dev.report(0, 3).stream()
              .filter(z -> z.condition() != ZoneCondition.EMPTY)
              .findFirst()
              .orElseThrow();
      dev.read(written.start(), first);
      assertEquals((byte) 0xAB, first.get(0), "FORMAT_IF_UNFORMATTED did not format over it");
    }
  }

  @Test
  void aDeviceInUseOrMissingGetsAClearError() throws Exception {
    String uri = TestDevices.medium(dir);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      ZkvException e =
          assertThrows(ZkvException.class, () -> ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT));
      assertTrue(
          e.getMessage().startsWith("cannot open zoned device " + uri + ": it is in use"),
          e.getMessage());
      assertFalse(env.isClosed());
    }
    String missing = EmulatedDevice.uri(dir.resolve("nope.zkvemu"), "instant");
    ZkvException e =
        assertThrows(
            ZkvException.class, () -> ZonedEnv.open(missing, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED));
    assertTrue(
        e.getMessage().startsWith("cannot open zoned device " + missing + ": "), e.getMessage());
    assertFalse(Files.exists(dir.resolve("nope.zkvemu")));
  }

  @Test
  void severalDatabasesShareOneEnvAndTheEnvClosesLast() throws Exception {
    String uri = TestDevices.medium(dir);
    ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT);
    ZkvDb[] dbs = new ZkvDb[5];
    for (int i = 0; i < dbs.length; i++) {
      dbs[i] = ZkvDb.open(env, "/stores/s" + i, small());
      for (int k = 0; k < 2000; k++) {
        dbs[i].put(b("key" + k), b("store " + i + " value " + k));
      }
    }
    dbs[2].flush();
    dbs[3].compactRange();
    assertEquals(
        List.of("/stores/s0", "/stores/s1", "/stores/s2", "/stores/s3", "/stores/s4"),
        env.openDatabases());
    IllegalStateException busy = assertThrows(IllegalStateException.class, env::close);
    assertEquals(
        "cannot close the ZonedEnv of "
            + uri
            + ": 5 database(s) still open: /stores/s0,"
            + " /stores/s1, /stores/s2, /stores/s3, /stores/s4; close those first",
        busy.getMessage());
    assertFalse(env.isClosed());
    for (int i = 0; i < dbs.length; i++) {
      assertArrayEquals(b("store " + i + " value 1234"), dbs[i].get(b("key1234")));
      int n = 0;
      try (ZkvIterator it = dbs[i].iterator()) {
        while (it.hasNext()) {
          assertTrue(TestDevices.s(it.next().value()).startsWith("store " + i + " "));
          n++;
        }
      }
      assertEquals(2000, n, "store " + i + " sees only its own keys");
    }
    dbs[0].close();
    dbs[1].close();
    busy = assertThrows(IllegalStateException.class, env::close);
    assertTrue(
        busy.getMessage().contains("3 database(s) still open: /stores/s2, /stores/s3, /stores/s4"),
        busy.getMessage());
    for (int i = 2; i < dbs.length; i++) {
      dbs[i].close();
    }
    assertTrue(env.stats().files() > 10, env.stats().toString());
    env.close();
    assertTrue(env.isClosed());
    env.close(); // idempotent
    try (ZonedEnv again = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT)) {
      for (int i = 0; i < dbs.length; i++) {
        try (ZkvDb db = ZkvDb.open(again, "/stores/s" + i, small())) {
          assertArrayEquals(b("store " + i + " value 1999"), db.get(b("key1999")));
        }
      }
    }
  }

  @Test
  void rocksJavaUsersAttachTheirDatabases() throws Exception {
    String uri = TestDevices.medium(dir);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      ZonedEnv.Attachment a = env.attach("/raw");
      try (Options o =
              new Options()
                  .setCreateIfMissing(true)
                  .setEnv(env.rocksEnv())
                  .setWriteBufferSize(1L << 20);
          RocksDB db = RocksDB.open(o, "/raw")) {
        db.put(b("k"), b("v"));
        IllegalStateException busy = assertThrows(IllegalStateException.class, env::close);
        assertTrue(busy.getMessage().contains("1 database(s) still open: /raw"), busy.getMessage());
        assertArrayEquals(b("v"), db.get(b("k")));
      }
      assertEquals("/raw", a.name());
      a.close();
      a.close(); // idempotent
      assertEquals(List.of(), env.openDatabases());
      // Kafka Streams style: the same store name from several tasks, detached by name
      env.attach("store");
      env.attach("store");
      assertEquals(List.of("store", "store"), env.openDatabases());
      assertTrue(env.detach("store"));
      assertTrue(env.detach("store"));
      assertFalse(env.detach("store"));
    }
  }

  @Test
  void sharedIsOneInstancePerUri() throws Exception {
    String uri = TestDevices.medium(dir);
    ZonedEnv a = ZonedEnv.shared(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED);
    try {
      assertTrue(a.isShared());
      assertSame(a, ZonedEnv.shared(uri, ZonedEnv.Mode.MOUNT));
      assertSame(a, ZonedEnv.shared(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED));
      try (ZkvDb db = ZkvDb.open(a, "/s", small())) {
        db.put(b("k"), b("v"));
        IllegalStateException e =
            assertThrows(
                IllegalStateException.class, () -> ZonedEnv.shared(uri, ZonedEnv.Mode.FORMAT));
        assertEquals(
            "the shared env of "
                + uri
                + " is already mounted in this process; Mode.FORMAT would"
                + " erase the databases of its users [/s]",
            e.getMessage());
      }
    } finally {
      a.close();
    }
    ZonedEnv b = ZonedEnv.shared(uri, ZonedEnv.Mode.MOUNT);
    try (ZkvDb db = ZkvDb.open(b, "/s", small())) {
      assertNotSame(a, b, "a closed shared env is replaced");
      assertFalse(b.formatted());
      assertArrayEquals(b("v"), db.get(b("k")));
    } finally {
      b.close();
    }
  }

  @Test
  void anEnvOnAnOpenDeviceLeavesTheDeviceToItsOwner() throws Exception {
    String uri = TestDevices.medium(dir);
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      ZonedEnv env = ZonedEnv.open(dev, ZonedEnv.Mode.FORMAT);
      assertThrows(
          IllegalStateException.class, dev::close, "the device refuses to close under the env");
      try (ZkvDb db = ZkvDb.open(env, "/d", small())) {
        db.put(b("k"), b("v"));
      }
      env.close();
      assertFalse(dev.isClosed());
      assertEquals(TestDevices.MEDIUM.zoneCount(), dev.report().size());
    }
  }

  @Test
  void useAfterCloseThrowsZkvClosedException() throws Exception {
    String uri = TestDevices.medium(dir);
    ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT);
    env.close();
    String closed = "ZonedEnv of " + uri + " is closed";
    assertEquals(closed, assertThrows(ZkvClosedException.class, env::stats).getMessage());
    assertEquals(closed, assertThrows(ZkvClosedException.class, env::rocksEnv).getMessage());
    assertEquals(
        closed, assertThrows(ZkvClosedException.class, () -> env.attach("x")).getMessage());
    assertEquals(
        closed,
        assertThrows(ZkvClosedException.class, () -> ZkvDb.open(env, "/x", small())).getMessage());
    ZonedDevice dev = ZonedDevice.open(uri);
    dev.close();
    ZkvClosedException e =
        assertThrows(ZkvClosedException.class, () -> ZonedEnv.open(dev, ZonedEnv.Mode.MOUNT));
    assertEquals("zoned device " + uri + " is closed", e.getMessage());
  }

  @Test
  void aSecondMountOfAnOpenDeviceIsRefusedAndTheFirstKeepsWorking() throws Exception {
    String uri = TestDevices.medium(dir);
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      ZonedEnv first = ZonedEnv.open(dev, ZonedEnv.Mode.FORMAT);
      try (ZkvDb db = ZkvDb.open(first, "/d", small().toBuilder().syncWrites(true).build())) {
        db.put(b("before"), b("1"));
        for (ZonedEnv.Mode mode : ZonedEnv.Mode.values()) {
          ZkvException e = assertThrows(ZkvException.class, () -> ZonedEnv.open(dev, mode));
          assertTrue(
              e.getMessage().contains("already mounted by a ZoneFs in this process"),
              mode + ": " + e.getMessage());
        }
        db.put(b("after"), b("2")); // the first mount's syncs still work
        db.flush();
      }
      first.close();
      try (ZonedEnv again = ZonedEnv.open(dev, ZonedEnv.Mode.MOUNT);
          ZkvDb db = ZkvDb.open(again, "/d", small())) {
        assertArrayEquals(b("1"), db.get(b("before")));
        assertArrayEquals(b("2"), db.get(b("after")));
      }
    }
  }
}
