package io.zkv.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.Zone;
import io.zkv.device.ZoneCondition;
import io.zkv.device.ZonedDevice;
import io.zkv.fs.FsFile;
import io.zkv.fs.ZoneFsInspector;
import io.zkv.fs.ZoneFsSettings;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.ZkvEnv;

/** mkfs, ls, df, zones, dump and fsck on an emulated device, healthy and deliberately damaged. */
class FsCommandsTest {
  @TempDir Path dir;
  private final CliRun cli = new CliRun();

  @Test
  void mkfsCreatesTheEmulatedDeviceBehindAPlmArray() throws Exception {
    String array =
        "plmarray:chunk=64k@emu:"
            + dir.resolve("array.zkvemu").toAbsolutePath()
            + "?profile=plm&sets=4";
    assertEquals(
        0,
        cli.run(
            "mkfs",
            "--device",
            array,
            "--zones",
            "48",
            "--zone-size",
            "8M",
            "--zone-cap",
            "8M",
            "--max-open",
            "0",
            "--max-active",
            "0"),
        cli.err());
    try (ZonedDevice dev = ZonedDevice.open(array)) {
      assertTrue(dev.isPlmArray());
      // (12 zones per set - 2 journal zones) / 2 = 5 meta groups, 12 stripe groups
      assertEquals(5 + 12, dev.geometry().zoneCount());
    }
    assertEquals(0, cli.run("ls", "--device", array), cli.err());
  }

  /** --zones creates one emulated file: the devices a plmarray: lists, one per set, must exist. */
  @Test
  void mkfsDoesNotCreateTheDevicesAPlmArrayLists() throws Exception {
    String list = "plmarray:emu:" + dir.resolve("ns1.zkvemu") + ",emu:" + dir.resolve("ns2.zkvemu");
    assertEquals(2, cli.run("mkfs", "--device", list, "--zones", "16"));
    assertTrue(cli.err().contains("the devices a plmarray: lists"), cli.err());
    assertTrue(java.nio.file.Files.notExists(dir.resolve("ns1.zkvemu")));
  }

  /** A zone leased to a WALTZ log shows as such, its blocks neither a file's nor garbage. */
  @Test
  void zonesShowsLeasedZones() throws Exception {
    assertEquals(
        0,
        cli.run(
            "mkfs", "--device", uri(), "--zones", "16", "--zone-size", "8M", "--zone-cap", "6M"),
        cli.err());
    int zone;
    try (ZonedDevice dev = ZonedDevice.open(uri());
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount())) {
      zone = env.zoneFs().leaseZone(42);
      assertTrue(zone > 0, "lease: " + zone);
      java.nio.ByteBuffer block = java.nio.ByteBuffer.allocateDirect(8192).alignedSlice(4096);
      block.put(0, (byte) 7);
      assertEquals(0, env.zoneFs().leaseAppend(42, zone, block, 4096, true));
    }
    assertEquals(0, cli.run("zones", "--device", uri()));
    String row =
        cli.out()
            .lines()
            .filter(l -> l.trim().startsWith(zone + " "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(cli.out()));
    assertTrue(row.endsWith("leased (WALTZ log)"), row);
    assertTrue(row.matches(".* 4,096 +0 +0 .*"), row); // written 4 KiB, no live, no garbage
    assertEquals(0, cli.run("fsck", "--device", uri()));
    assertTrue(cli.out().contains("0 problem(s)"), cli.out());
  }

  private String uri() {
    return "emu:" + dir.resolve("dev.zkvemu");
  }

  private void createWithData() throws Exception {
    assertEquals(
        0,
        cli.run(
            "mkfs", "--device", uri(), "--zones", "16", "--zone-size", "8M", "--zone-cap", "6M"),
        cli.err());
    try (ZonedDevice dev = ZonedDevice.open(uri());
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
        Options o = new Options().setCreateIfMissing(true).setEnv(env);
        RocksDB db = RocksDB.open(o, "/cli/db");
        FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
      for (int i = 0; i < 20_000; i++) {
        db.put(("key" + i).getBytes(), ("value" + i).getBytes());
      }
      db.flush(f);
      db.put("after-flush".getBytes(), "in the WAL only".getBytes()); // a WAL chunk at close
    }
  }

  @Test
  void healthyFileSystem() throws Exception {
    createWithData();
    assertEquals(0, cli.run("ls", "--device", uri(), "--prefix", "/cli/db/"));
    assertTrue(cli.out().contains("/cli/db/CURRENT"), cli.out());
    assertTrue(cli.out().matches("(?s).*\\d+ file\\(s\\).*"), cli.out());
    assertTrue(cli.out().contains(".sst"), cli.out());
    assertEquals(0, cli.run("df", "--device", uri()));
    assertTrue(cli.out().contains("capacity     78.0 MiB"), cli.out());
    assertEquals(0, cli.run("df", "--device", uri(), "--bytes"));
    assertTrue(
        cli.out().contains("capacity     " + (78L << 20) + " bytes (data zones)"), cli.out());
    assertTrue(cli.out().contains("space amplification"), cli.out());
    // the run above had LIZA decide its allocations: the log kept the count for df
    assertTrue(
        cli.out().matches("(?s).*placement    [1-9]\\d* decisions by the policy, 0 overridden.*"),
        cli.out());
    assertTrue(cli.out().contains("overrides    none (by reason, since format)"), cli.out());
    // the small database never needed GC (the log kept GC's counters for df)
    assertTrue(
        cli.out()
            .matches(
                "(?s).*GC           0 runs emptied 0 zones copying 0 bytes; \\d+ zone"
                    + " resets, .* zones finished \\(since format.*"),
        cli.out());
    assertEquals(0, cli.run("zones", "--device", uri()));
    assertTrue(cli.out().contains("metadata") && cli.out().contains("data"), cli.out());
    assertTrue(cli.out().matches("(?s).* wal\\R.*"), cli.out()); // the zone of the WAL's chunk
    assertEquals(0, cli.run("dump", "--device", uri(), "--json"));
    assertTrue(
        cli.out().startsWith("{")
            && cli.out().contains("\"files\": [")
            && cli.out().contains("\"problems\": []"),
        cli.out());
    assertTrue(cli.out().contains("\"wal\": true, \"chunks\": [{\"header\": "), cli.out());
    assertEquals(0, cli.run("fsck", "--device", uri()));
    assertTrue(cli.out().contains("0 problem(s)"), cli.out());
    assertTrue(cli.out().contains("metadata log: ends cleanly"), cli.out());
    // mkfs refuses to erase a file system unless forced
    assertEquals(1, cli.run("mkfs", "--device", uri()));
    assertTrue(cli.out().contains("pass --force"), cli.out());
    assertEquals(0, cli.run("mkfs", "--device", uri(), "--force"));
    assertEquals(0, cli.run("ls", "--device", uri()));
    assertTrue(cli.out().contains("0 file(s)"), cli.out());
  }

  /** Damage inside the metadata log: fsck reports it (exit 1), mounting refuses, no crash. */
  /**
   * Damage to the last record of the log (before the end record a clean unmount writes) is damage,
   * not a torn tail: fsck exits 1 instead of accepting the log without it (which silently lost the
   * operation: synced data vanished with fsck clean).
   */
  @Test
  void fsckReportsDamageAtTheTailOfTheLog() throws Exception {
    createWithData();
    flip(metaLogZone().writePointer() - 2 * 4096 + 30, -1); // the record before the end record
    assertEquals(1, cli.run("fsck", "--device", uri()));
    assertTrue(cli.out().contains("valid records follow it"), cli.out());
  }

  @Test
  void fsckReportsACorruptMetadataZone() throws Exception {
    createWithData();
    long logStart = metaLogZone().start();
    flip(logStart + 4096 + 30, -1); // inside the snapshot after the superblock
    assertEquals(1, cli.run("fsck", "--device", uri()));
    assertTrue(cli.out().contains("metadata log damaged at device offset"), cli.out());
    assertTrue(cli.out().contains("nothing was changed"), cli.out());
    assertEquals(1, cli.run("ls", "--device", uri()));
    assertTrue(cli.err().contains("damaged"), cli.err());
    // a damaged superblock is named too
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("dev.zkvemu").toFile(), "rw")) {
      f.seek(DATA_OFFSET + logStart + 8);
      f.write(0x77);
    }
    assertEquals(1, cli.run("fsck", "--device", uri()));
    assertTrue(cli.out().contains("superblock"), cli.out());
  }

  @Test
  void clearErrorsForBadDevices() throws Exception {
    assertEquals(2, cli.run("fsck"));
    assertTrue(cli.err().contains("--device is required"));
    assertEquals(1, cli.run("fsck", "--device", "emu:" + dir.resolve("missing")));
    assertTrue(cli.err().contains("No such file"), cli.err());
    assertEquals(2, cli.run("fsck", "--device", "scsi:/dev/sda")); // a bad command line
    assertTrue(cli.err().contains("unsupported device URI"));
    java.nio.file.Files.writeString(dir.resolve("foreign"), "not a device");
    // a file that is no emulated device: the URI is wrong (EINVAL), a bad command line
    assertEquals(2, cli.run("ls", "--device", "emu:" + dir.resolve("foreign")));
    assertTrue(cli.err().contains("not a zkv emulated device"));
    // an unformatted device
    assertEquals(
        0,
        cli.run(
            "mkfs", "--device", uri(), "--zones", "16", "--zone-size", "8M", "--zone-cap", "6M"));
    try (ZonedDevice dev = ZonedDevice.open(uri())) {
      dev.resetZone(0);
    }
    assertEquals(1, cli.run("ls", "--device", uri()));
    assertTrue(cli.err().contains("run mkfs"), cli.err());
    // a device in use by another opener
    try (ZonedDevice busy = ZonedDevice.open(uri())) {
      assertTrue(busy.geometry().zoneCount() > 0);
      assertEquals(1, cli.run("df", "--device", uri()));
      assertTrue(cli.err().contains("in use"), cli.err());
    }
  }

  /** Geometries the file system cannot use are refused with the minimum, leaving no file. */
  @Test
  void mkfsRefusesUnusableGeometriesAndLeavesNoHalfMadeDevice() {
    String[][] cases = {
      {"--max-active", "1", "--max-open", "1"},
      {"--max-active", "2", "--max-open", "0"},
      {"--max-active", "4", "--max-open", "2"},
      {"--zones", "5", "--max-active", "4", "--max-open", "4"},
      {"--meta-zones", "4", "--zones", "6", "--max-active", "4", "--max-open", "4"},
    };
    String[] expected = {
      "max active zones 1 is too low: the file system needs no limit (0) or at least 3",
      "max active zones 2 is too low",
      "max open zones 2 is too low: zkv needs no limit (0) or at least 4",
      "5 zones are too few: the file system needs at least 6 (3 meta zones plus 3 data zones",
      "6 zones are too few: the file system needs at least 7",
    };
    for (int i = 0; i < cases.length; i++) {
      java.util.List<String> args =
          new java.util.ArrayList<>(
              java.util.List.of(
                  "mkfs",
                  "--device",
                  uri(),
                  "--zones",
                  "16",
                  "--zone-size",
                  "8M",
                  "--zone-cap",
                  "6M"));
      args.addAll(java.util.List.of(cases[i]));
      assertEquals(
          2, cli.run(args.toArray(String[]::new)), String.join(" ", cases[i]) + ": " + cli.out());
      assertTrue(cli.err().contains(expected[i]), cli.err());
      assertFalse(Files.exists(dir.resolve("dev.zkvemu")), "a half-made device file is left");
    }
    // the smallest usable geometry formats and mounts
    assertEquals(
        0,
        cli.run(
            "mkfs",
            "--device",
            uri(),
            "--zones",
            "6",
            "--zone-size",
            "8M",
            "--zone-cap",
            "6M",
            "--max-active",
            "3",
            "--max-open",
            "0"),
        cli.err());
    assertEquals(0, cli.run("fsck", "--device", uri()), cli.out());
  }

  /** A damaged file system is protected like a healthy one; device statuses are named. */
  @Test
  void mkfsRefusesADamagedFileSystemWithoutForceAndNamesDeviceStatuses() throws Exception {
    createWithData();
    try (ZonedDevice dev = ZonedDevice.open(uri())) {
      dev.resetZone(0);
      dev.resetZone(1);
      dev.resetZone(2);
      dev.write(dev.zone(0).start(), java.nio.ByteBuffer.allocateDirect(4096).put(0, (byte) 7));
    }
    assertEquals(1, cli.run("mkfs", "--device", uri()));
    assertTrue(
        cli.out().contains("does not mount as a zkv file system") && cli.out().contains("--force"),
        cli.out());
    try (ZonedDevice dev = ZonedDevice.open(uri())) {
      dev.faults().setZoneCondition(9, ZoneCondition.OFFLINE);
    }
    assertEquals(1, cli.run("mkfs", "--device", uri(), "--force"));
    assertTrue(
        cli.err()
            .contains(
                "cannot reset zone 9: Invalid Zone State Transition (NVMe status 0x1BF): the zone's"
                    + " condition does not allow this action"),
        cli.err());
    assertFalse(cli.err().contains("Unknown error") || cli.err().contains("error -"), cli.err());
    assertTrue(Files.exists(dir.resolve("dev.zkvemu")), "an existing device is never deleted");
  }

  /** Emulated-device format: where device offset 0 lies in the file (header + zone table). */
  private static final long DATA_OFFSET = 1L << 20;

  /** The meta zone holding the metadata log (the one written). */
  private Zone metaLogZone() throws Exception {
    try (ZonedDevice dev = ZonedDevice.open(uri())) {
      return dev.report(0, 3).stream()
          .filter(z -> z.condition() != ZoneCondition.EMPTY)
          .findFirst()
          .orElseThrow();
    }
  }

  /**
   * Flips a byte of the emulated device's data at device offset {@code at} (or writes {@code old}
   * back when it is not negative); returns the old one.
   */
  private int flip(long at, int old) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("dev.zkvemu").toFile(), "rw")) {
      f.seek(DATA_OFFSET + at);
      int b = f.read();
      f.seek(DATA_OFFSET + at);
      f.write(old >= 0 ? old : b ^ 0x5A);
      return b;
    }
  }

  private FsFile file(String suffix) throws Exception {
    try (ZonedDevice dev = ZonedDevice.open(uri());
        ZoneFsInspector fs = ZoneFsInspector.open(dev)) {
      return fs.files().stream()
          .filter(f -> f.names().get(0).endsWith(suffix) && f.size() > 8192)
          .findFirst()
          .orElseThrow(() -> new AssertionError("no " + suffix + " file"));
    }
  }

  /**
   * fsck --verify-data reads every SST block and WAL record with RocksDB's checksums: damage to a
   * data extent, which the metadata check cannot see, fails it and names the file.
   */
  @Test
  void fsckVerifyDataFindsDamagedSstAndWalData() throws Exception {
    createWithData();
    try (ZonedDevice dev = ZonedDevice.open(uri());
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
        Options o = new Options().setEnv(env);
        RocksDB db = RocksDB.open(o, "/cli/db")) {
      for (int i = 0; i < 5_000; i++) { // stays in the WAL (and the memtable) at close
        db.put(("wal" + i).getBytes(), ("value" + i).getBytes());
      }
    }
    assertEquals(0, cli.run("fsck", "--device", uri(), "--verify-data"), cli.out());
    assertTrue(
        cli.out().contains("1 database(s) verified (SST blocks and WAL records), 0 damaged"),
        cli.out());

    FsFile sst = file(".sst");
    long at = sst.extents().get(0).start() + 100; // inside the first data block
    int old = flip(at, -1);
    assertEquals(
        0, cli.run("fsck", "--device", uri()), "the metadata check cannot see it: " + cli.out());
    assertEquals(1, cli.run("fsck", "--device", uri(), "--verify-data"), cli.out());
    String name = sst.names().get(0);
    assertTrue(
        cli.out().contains("problem: database /cli/db: ") && cli.out().contains(name), cli.out());
    flip(at, old);
    assertEquals(0, cli.run("fsck", "--device", uri(), "--verify-data"), cli.out());

    FsFile wal = file(".log");
    long walAt = wal.extents().get(0).start() + wal.size() / 2; // a record in the middle
    flip(walAt, -1);
    assertEquals(0, cli.run("fsck", "--device", uri()), cli.out());
    assertEquals(1, cli.run("fsck", "--device", uri(), "--verify-data"), cli.out());
    assertTrue(cli.out().contains("problem: database /cli/db: "), cli.out());
    assertTrue(cli.out().contains(" [" + wal.names().get(0) + ": dropping "), cli.out());
  }
}
