package io.zkv.rocks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.DeviceInUseException;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZoneCondition;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.fs.ZoneFsInspector;
import io.zkv.fs.ZoneFsSettings;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.rocksdb.ZkvEnv;

/**
 * Stock RocksJava (each supported release, see zkv-native/pom.xml) runs on zkv's zone file system
 * on the emulated device.
 */
class ZoneFileSystemRocksDbTest {
  private static final String DB = "/zkv-test-db/main";
  private static final int KEYS = 1_000_000;

  @TempDir Path dir;

  private static byte[] key(int i) {
    return String.format("key%09d", i).getBytes();
  }

  private static byte[] value(int i, int round) {
    return ("v" + round + "-" + i + "-" + "x".repeat(20 + i % 40)).getBytes();
  }

  private ZonedDevice device() throws ZonedDeviceException {
    Path file = dir.resolve("dev.zkvemu");
    if (!Files.exists(file)) {
      EmulatedDevice.format(file, DeviceGeometry.of(64, 32L << 20, 24L << 20, 14, 14, 1 << 20));
    }
    return ZonedDevice.open(EmulatedDevice.uri(file, "instant"));
  }

  private static Options options(ZkvEnv env) {
    return new Options()
        .setCreateIfMissing(true)
        .setEnv(env)
        .setWriteBufferSize(4L << 20)
        .setTargetFileSizeBase(4L << 20)
        .setMaxBytesForLevelBase(16L << 20)
        .setLevel0FileNumCompactionTrigger(4);
  }

  @Test
  void millionKeysWithFlushesCompactionsAndReopen() throws Exception {
    try (ZonedDevice dev = device()) {
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format())) {
        try (Options o = options(env);
            RocksDB db = RocksDB.open(o, DB);
            WriteOptions w = new WriteOptions();
            FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
          for (int round = 0; round < 2; round++) {
            for (int i = 0; i < KEYS; i += 1000) {
              try (WriteBatch b = new WriteBatch()) {
                for (int k = i; k < i + 1000; k++) {
                  if (round == 0 || k % 3 == 0) {
                    b.put(key(k), value(k, round));
                  }
                }
                db.write(w, b);
              }
            }
            db.flush(f);
          }
          db.compactRange();
        }
        io.zkv.fs.ZoneStats s = env.zoneFs().stats();
        assertTrue(s.hostBytes() > 50L << 20, "data went to zones: " + s);
        assertTrue(s.resets() > 0, "compaction freed zones that were reset: " + s);
        assertTrue(s.files() > 3, s.toString());
      }
      // a second mount of the same device: everything is still there
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
          Options o = options(env);
          RocksDB db = RocksDB.open(o, DB)) {
        for (int i = 0; i < KEYS; i += 997) {
          assertArrayEquals(value(i, i % 3 == 0 ? 1 : 0), db.get(key(i)), "key " + i);
        }
        int n = 0;
        try (RocksIterator it = db.newIterator()) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            n++;
          }
        }
        assertEquals(KEYS, n);
        assertNull(db.get("absent".getBytes()));
      }
    }
    // nothing of the database on the host: only the device's backing file is in the temp dir
    assertFalse(Files.exists(Path.of(DB)), "the database path must not exist on the host");
    assertFalse(Files.exists(Path.of("/zkv-test-db")));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(dir.resolve("dev.zkvemu")), files.toList());
    }
  }

  /**
   * Overwrites a 30 MB key space until three times the device's capacity went through RocksDB: zone
   * resets and GC keep it going without NoSpace; prints device WA and space amplification.
   */
  /**
   * Clean open / write / close cycles of RocksDB on a small device whose zones' capacity equals
   * their size: each cycle's MANIFEST, WAL, OPTIONS and LOG files are created, synced and deleted,
   * so the metadata log rolls often, also on a delete (which once wrote a snapshot holding the
   * nameless file: the device stopped mounting within 12 to 25 cycles); with capacity equal to
   * size, files once got extents across zone boundaries. Every cycle remounts.
   */
  @Test
  void cleanCyclesOnZonesWithCapacityEqualToSizeStayMountable() throws Exception {
    Path file = dir.resolve("small.zkvemu");
    // zones of 512 KiB: a meta zone holds 128 records; with a memtable flush every 100 puts (SST,
    // MANIFEST edit, new WAL, deleted WAL: records) the log rolls within cycles, not only at each
    // mount (WAL syncs write no records: a WAL is a sparse file)
    EmulatedDevice.format(file, DeviceGeometry.of(160, 512L << 10, 512L << 10, 8, 8, 256 << 10));
    String uri = EmulatedDevice.uri(file, "instant");
    int keysPerCycle = 2000;
    int cycles = 40;
    long rolls = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
      try (ZonedDevice dev = ZonedDevice.open(uri);
          ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.builder().format(cycle == 0).build());
          Options o = options(env).setWriteBufferSize(1L << 20).setTargetFileSizeBase(1L << 20);
          RocksDB db = RocksDB.open(o, DB);
          WriteOptions w = new WriteOptions().setSync(cycle % 2 == 0);
          FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        for (int i = 0; i < keysPerCycle; i++) {
          int k = cycle * keysPerCycle + i;
          db.put(w, key(k), value(k, cycle));
          if (i % 100 == 99) {
            db.flush(f);
          }
        }
        rolls += env.zoneFs().stats().metaRolls();
      }
    }
    assertTrue(rolls > cycles, "the log rolled beyond the one roll of each mount: " + rolls);
    try (ZonedDevice dev = ZonedDevice.open(uri);
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
        Options o = options(env);
        RocksDB db = RocksDB.open(o, DB)) {
      for (int k = 0; k < cycles * keysPerCycle; k++) {
        assertArrayEquals(value(k, k / keysPerCycle), db.get(key(k)), "key " + k);
      }
    }
  }

  @Test
  void overwritingThreeTimesTheCapacityNeverRunsOutOfSpace() throws Exception {
    Path file = dir.resolve("small.zkvemu");
    DeviceGeometry g = DeviceGeometry.of(24, 8L << 20, 6L << 20, 14, 14, 1 << 20);
    EmulatedDevice.format(file, g);
    long capacity = (g.zoneCount() - 3) * g.zoneCapacity();
    long written = 0;
    int keys = 150_000;
    byte[] val = new byte[200];
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "instant"));
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format());
        Options o = options(env).setWriteBufferSize(2L << 20).setTargetFileSizeBase(2L << 20);
        RocksDB db = RocksDB.open(o, DB);
        WriteOptions w = new WriteOptions()) {
      int[] version = new int[keys];
      while (written < 3 * capacity) {
        try (WriteBatch b = new WriteBatch()) {
          for (int k = 0; k < 1000; k++) {
            int i = rnd.nextInt(keys);
            version[i]++;
            ByteBuffer.wrap(val).putInt(i).putInt(version[i]);
            b.put(key(i), val);
            written += key(i).length + val.length;
          }
          db.write(w, b);
        }
      }
      for (int i = 0; i < keys; i += 101) {
        byte[] got = db.get(key(i));
        if (version[i] == 0) {
          assertNull(got);
        } else {
          ByteBuffer bb = ByteBuffer.wrap(got);
          assertEquals(i, bb.getInt());
          assertEquals(version[i], bb.getInt(), "latest version of key " + i);
        }
      }
      io.zkv.fs.ZoneStats s = env.zoneFs().stats();
      double wa = (double) (s.hostBytes() + s.gcBytes()) / s.hostBytes();
      System.out.printf(
          "overwrite %d MiB through RocksDB on %d MiB of zones (%s): host %d MiB, GC copy %d MiB,"
              + " device WA %.3f, resets %d (%d without copy), space amplification %.2f%n",
          written >> 20,
          capacity >> 20,
          g,
          s.hostBytes() >> 20,
          s.gcBytes() >> 20,
          wa,
          s.resets(),
          s.resetsWithoutCopy(),
          s.spaceAmplification());
      assertTrue(s.resets() > 3 * (g.zoneCount() - 3), "zones were reused many times: " + s);
      assertTrue(wa >= 1.0);
    }
  }

  /**
   * RocksDB's direct-I/O options (ZenFS recommends them for flush and compaction): aligned
   * positioned appends that rewrite the last block, Truncate at close, aligned reads. A kept pad or
   * a lost block would break the SST footers, which the reopen and the reads check.
   */
  @Test
  void directIoForFlushCompactionAndReads() throws Exception {
    int keys = 200_000;
    try (ZonedDevice dev = device()) {
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format());
          Options o =
              options(env).setUseDirectReads(true).setUseDirectIoForFlushAndCompaction(true);
          RocksDB db = RocksDB.open(o, DB);
          FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        for (int i = 0; i < keys; i++) {
          db.put(key(i), value(i, 0));
          if (i % 50_000 == 49_999) {
            db.flush(f);
          }
        }
        db.flush(f);
        db.compactRange();
        for (int i = 0; i < keys; i += 101) {
          assertArrayEquals(value(i, 0), db.get(key(i)));
        }
      }
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
          Options o = options(env).setUseDirectReads(true);
          RocksDB db = RocksDB.open(o, DB);
          RocksIterator it = db.newIterator()) {
        int n = 0;
        for (it.seekToFirst(); it.isValid(); it.next()) {
          assertArrayEquals(key(n), it.key());
          assertArrayEquals(value(n, 0), it.value());
          n++;
        }
        assertEquals(keys, n);
      }
    }
  }

  @Test
  void severalDatabasesShareOneDevice() throws Exception {
    try (ZonedDevice dev = device();
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format())) {
      try (Options o = options(env);
          RocksDB a = RocksDB.open(o, "/stores/a");
          RocksDB b = RocksDB.open(o, "/stores/b")) {
        a.put("k".getBytes(), "from a".getBytes());
        b.put("k".getBytes(), "from b".getBytes());
        assertArrayEquals("from a".getBytes(), a.get("k".getBytes()));
        assertArrayEquals("from b".getBytes(), b.get("k".getBytes()));
      }
      try (Options o = options(env);
          RocksDB a = RocksDB.open(o, "/stores/a")) {
        assertArrayEquals("from a".getBytes(), a.get("k".getBytes()));
      }
    }
  }

  @Test
  void deviceRefusesToCloseUnderAnEnvAndMountNeedsAFileSystem() throws Exception {
    try (ZonedDevice dev = device()) {
      ZonedDeviceException e =
          assertThrows(
              ZonedDeviceException.class, () -> ZkvEnv.onZones(dev, ZoneFsSettings.mount()));
      assertTrue(e.getMessage().contains("run mkfs"), e.getMessage());
      ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format());
      IllegalStateException busy = assertThrows(IllegalStateException.class, dev::close);
      assertTrue(busy.getMessage().contains("close those first"), busy.getMessage());
      env.close();
      dev.append(10, ByteBuffer.allocateDirect(4096)); // the device is still usable
    }
  }

  @Test
  void aSecondMountOfAnOpenDeviceIsRefusedAndTheFirstKeepsWorking() throws Exception {
    try (ZonedDevice dev = device()) {
      ZkvEnv first = ZkvEnv.onZones(dev, ZoneFsSettings.format());
      try (Options o = options(first);
          RocksDB db = RocksDB.open(o, DB);
          WriteOptions sync = new WriteOptions().setSync(true)) {
        db.put(sync, "before".getBytes(), "1".getBytes());
        for (boolean format : new boolean[] {false, true}) {
          DeviceInUseException e =
              assertThrows(
                  DeviceInUseException.class,
                  () -> ZkvEnv.onZones(dev, ZoneFsSettings.builder().format(format).build()));
          assertTrue(
              e.getMessage().contains("already mounted by a ZoneFs in this process"),
              e.getMessage());
        }
        DeviceInUseException inspect =
            assertThrows(DeviceInUseException.class, () -> ZoneFsInspector.open(dev));
        assertTrue(inspect.getMessage().contains("already mounted"), inspect.getMessage());
        assertThrows(DeviceInUseException.class, () -> ZoneFsInspector.mkfs(dev, 3));
        db.put(sync, "after".getBytes(), "2".getBytes()); // the first mount's syncs still work
      }
      first.close();
      try (ZkvEnv again = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
          Options o = options(again);
          RocksDB db = RocksDB.open(o, DB)) {
        assertArrayEquals("1".getBytes(), db.get("before".getBytes()));
        assertArrayEquals("2".getBytes(), db.get("after".getBytes()));
      }
      try (ZoneFsInspector fs = ZoneFsInspector.open(dev)) {
        assertEquals(List.of(), fs.check());
      }
    }
  }

  /** A device status reaches RocksDB's status message by name, not as "Unknown error 65978". */
  @Test
  void zoneStatusesReachRocksDbByName() throws Exception {
    try (ZonedDevice dev = device();
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format());
        Options o = options(env);
        RocksDB db = RocksDB.open(o, DB);
        WriteOptions sync = new WriteOptions().setSync(true)) {
      db.put(sync, "k".getBytes(), "v".getBytes());
      for (int z = 3; z < dev.geometry().zoneCount(); z++) {
        dev.faults().setZoneCondition(z, ZoneCondition.READ_ONLY);
      }
      org.rocksdb.RocksDBException e =
          assertThrows(
              org.rocksdb.RocksDBException.class,
              () -> db.put(sync, "k2".getBytes(), new byte[8192]));
      assertTrue(
          e.getMessage().contains("Zone Is Read Only (NVMe status 0x1BA): the device made"),
          e.getMessage());
      assertFalse(e.getMessage().contains("Unknown error"), e.getMessage());
    }
  }
}
