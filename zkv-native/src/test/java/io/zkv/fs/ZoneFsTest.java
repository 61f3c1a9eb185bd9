package io.zkv.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.ZkvEnv;

/**
 * The zone file system as its own object: mounted without RocksDB, an Env built over it, and the
 * order they close in (an Env keeps its file system from closing; one Env per file system).
 */
class ZoneFsTest {
  @TempDir Path dir;

  private String uri() throws Exception {
    Path file = dir.resolve("dev.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(16, 8L << 20, 6L << 20, 8, 8, 1 << 20));
    return EmulatedDevice.uri(file, "instant");
  }

  @Test
  void aMountedFileSystemServesLeasesAndCountersWithoutRocksDb() throws Exception {
    try (ZonedDevice dev = ZonedDevice.open(uri());
        ZoneFs fs = ZoneFs.mount(dev, ZoneFsSettings.format())) {
      int zone = fs.leaseZone(7);
      assertTrue(zone > 0, "a leased zone: " + zone);
      assertArrayEquals(new int[] {zone}, fs.leasedZones(7));
      assertEquals(0, fs.returnLease(7, zone));
      assertEquals(0, fs.stats().files());
      assertEquals(16, fs.zoneTable().zoneCount());
      assertEquals(new PathUsage(0, 0, 0, 0), fs.pathUsage("/db/"));
    }
  }

  @Test
  void anEnvOverItKeepsItOpenAndOneIsAllowed() throws Exception {
    try (ZonedDevice dev = ZonedDevice.open(uri())) {
      ZoneFs fs = ZoneFs.mount(dev, ZoneFsSettings.format());
      ZkvEnv env = ZkvEnv.over(fs);
      assertThrows(IllegalStateException.class, () -> ZkvEnv.over(fs), "a second Env");
      try (Options o = new Options().setCreateIfMissing(true).setEnv(env);
          RocksDB db = RocksDB.open(o, "/db")) {
        db.put("k".getBytes(), "v".getBytes());
        assertThrows(IllegalStateException.class, fs::close, "closed under its Env");
        assertThrows(IllegalStateException.class, env::close, "closed under its database");
      }
      assertTrue(fs.pathUsage("/db/").files() > 0, "the database's files");
      env.close();
      fs.close();
      fs.close(); // idempotent
      assertThrows(IllegalStateException.class, fs::stats);
      try (ZkvEnv again = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
          Options o = new Options().setEnv(again);
          RocksDB db = RocksDB.open(o, "/db")) {
        assertArrayEquals("v".getBytes(), db.get("k".getBytes()));
      }
    }
  }

  /** Callers of the entry points and counters ZkvEnv had before the file system's own type. */
  @Test
  @SuppressWarnings("deprecation")
  void theDeprecatedEnvMethodsStillWork() throws Exception {
    try (ZonedDevice dev = ZonedDevice.open(uri())) {
      try (ZkvEnv env = ZkvEnv.onZones(dev, true)) {
        assertEquals(env.zoneFs().stats().dataZones(), env.zoneStats().dataZones());
        assertEquals(0, env.compactionZones().compactions());
        assertEquals(new PathUsage(0, 0, 0, 0), env.pathUsage("/db/"));
        assertTrue(env.reclaim(0) > 0);
      }
      try (ZkvEnv env =
          ZkvEnv.onZones(
              dev,
              false,
              new io.zkv.placement.LizaPolicy(),
              new io.zkv.placement.GreedyVictimPolicy(),
              0)) {
        assertEquals(16, env.zoneTable().zoneCount());
      }
    }
  }
}
