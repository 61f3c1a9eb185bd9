package io.zkv.bench.driver;

import io.zkv.ZkvDb;
import io.zkv.ZkvException;
import io.zkv.ZkvIterator;
import io.zkv.ZkvOptions;
import io.zkv.ZonedEnv;
import io.zkv.ZonedEnvOptions;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.DeviceStats;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.FaultInjector;
import io.zkv.device.HostLateness;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@link ZkvDb} on a freshly formatted zoned device: a scratch emulated device in the scratch
 * directory (deleted on close), or the configuration's device URI (formatted: its contents are
 * lost).
 */
final class ZkvStore implements BenchStore {
  static final String DB_PATH = "/bench/db";

  // Replaced by a reopen (the recover workload), between phases only.
  private ZonedDevice device;
  private ZonedEnv env;
  private ZkvDb db;
  private final Path scratchFile;
  private final String uri;
  private final ZonedEnvOptions envOptions;
  private final ZkvOptions reopenOptions; // the recover workload's: no flush while replaying

  private ZkvStore(
      ZonedDevice device,
      ZonedEnv env,
      ZkvDb db,
      Path scratchFile,
      String uri,
      ZonedEnvOptions envOptions,
      ZkvOptions reopenOptions) {
    this.device = device;
    this.env = env;
    this.db = db;
    this.scratchFile = scratchFile;
    this.uri = uri;
    this.envOptions = envOptions;
    this.reopenOptions = reopenOptions;
  }

  static ZkvStore open(TargetConfig c, BenchSettings s, Path scratchDir) {
    Path file = null;
    String uri = c.device();
    if (uri == null) {
      file = scratchDir.resolve("bench-" + System.nanoTime() + ".zkvemu");
      DeviceGeometry g = c.deviceGeometry();
      if (c.windows() != null) { // a plmarray: divides limits by its sets: none
        g = DeviceGeometry.of(g.zoneCount(), g.zoneSize(), g.zoneCapacity(), 0, 0, g.zasl());
      }
      try {
        EmulatedDevice.format(file, g);
      } catch (ZonedDeviceException e) {
        throw new IllegalStateException(
            "cannot create the scratch device " + file + ": " + e.getMessage(), e);
      }
      uri = c.windows() != null ? c.plmArrayUri(file) : EmulatedDevice.uri(file, c.profile());
    }
    ZonedDevice device;
    try {
      device = ZonedDevice.open(uri);
    } catch (ZonedDeviceException e) {
      deleteQuietly(file);
      throw new IllegalStateException("cannot open " + uri + ": " + e.getMessage(), e);
    }
    ZonedEnv env = null;
    try {
      ZonedEnvOptions envOptions = c.policies().wal(c.wal()).writeBehind(c.writeBehind()).build();
      env = ZonedEnv.open(device, ZonedEnv.Mode.FORMAT, envOptions);
      ZkvOptions dbOptions = c.withWalMode(s.dbOptions(c.sync(), c.lsm()));
      ZkvOptions reopen =
          c.withWalMode(s.dbOptions(c.sync(), c.lsm(), o -> o.setAvoidFlushDuringRecovery(true)));
      return new ZkvStore(
          device, env, ZkvDb.open(env, DB_PATH, dbOptions), file, uri, envOptions, reopen);
    } catch (RuntimeException e) {
      if (env != null) {
        env.close();
      }
      device.close();
      deleteQuietly(file);
      throw e;
    }
  }

  @Override
  public boolean modelTimed() {
    return !"instant".equals(device.profile()) && !"device".equals(device.profile());
  }

  @Override
  public ZonedDevice plmArray() {
    return device.isPlmArray() ? device : null;
  }

  @Override
  public void put(byte[] key, byte[] value) {
    db.put(key, value);
  }

  @Override
  public byte[] get(byte[] key) {
    return db.get(key);
  }

  @Override
  public int scan(byte[] from, int count) {
    int n = 0;
    try (ZkvIterator it = db.iterator(from, null)) {
      while (n < count && it.hasNext()) {
        it.next(); // a fresh copy of key and value, as RocksDefaultStore makes
        n++;
      }
    }
    return n;
  }

  @Override
  public String deviceNote() {
    // A scratch device has the configuration's geometry; a device URI has its own.
    return scratchFile == null ? "device " + env.uri() + ": " + env.geometry() : null;
  }

  @Override
  public boolean settle(long timeoutMillis) throws InterruptedException {
    db.flush();
    return Settling.awaitIdle(this::longProperty, timeoutMillis);
  }

  @Override
  public long longProperty(String name) {
    return Long.parseLong(
        db.property(name)
            .orElseThrow(() -> new IllegalStateException("RocksDB has no property " + name))
            .trim());
  }

  @Override
  public String stringProperty(String name) {
    return db.property(name).orElse(null);
  }

  /**
   * Leaves database, file system and device as a crash would (the memtables' data only in the WAL,
   * the WAL's last chunks unknown to the metadata log), then opens the device again, mounts, opens
   * the database with {@code avoid_flush_during_recovery} and flushes. The crash: the WAL synced
   * (every write durable, so nothing may be missing after), then on an emulated device a power cut
   * and closes that write nothing; on any other device clean closes (RocksDB's close with the WAL
   * on flushes no memtable, but the file system records the WAL's chunks, so its mount scans none).
   */
  @Override
  public RecoveryFigures reopen() {
    long entries = count();
    io.zkv.fs.PathUsage usage = env.usage(DB_PATH);
    long walBytes = usage.bytes() - usage.sstBytes();
    db.syncWal();
    if (uri.startsWith("emu:")) {
      device.faults().powerCut(FaultInjector.PowerCut.DROP_ALL, 0);
    }
    try {
      db.close();
    } catch (ZkvException e) {
      if (!uri.startsWith("emu:")) {
        throw e;
      } // else: the device lost power, as intended
    }
    env.close();
    device.close();
    db = null;
    env = null;
    HostLateness lateAtStart = EmulatedDevice.lateness();
    long start = System.nanoTime();
    try {
      device = ZonedDevice.open(uri);
    } catch (ZonedDeviceException e) {
      throw new IllegalStateException("cannot reopen " + uri + ": " + e.getMessage(), e);
    }
    env = ZonedEnv.open(device, ZonedEnv.Mode.MOUNT, envOptions);
    long mounted = System.nanoTime();
    DeviceStats afterMount = device.stats();
    io.zkv.fs.ZoneStats mount = env.stats();
    db = ZkvDb.open(env, DB_PATH, reopenOptions);
    long opened = System.nanoTime();
    HostLateness lateAtOpen = EmulatedDevice.lateness();
    DeviceStats afterReplay = device.stats();
    db.flush();
    long flushed = System.nanoTime();
    HostLateness flushLate = EmulatedDevice.lateness().since(lateAtOpen);
    long after = count();
    if (after != entries) {
      throw new IllegalStateException(
          "recovery lost data: " + entries + " entries before the reopen, " + after + " after");
    }
    return new RecoveryFigures(
        (opened - start) / 1e9,
        (mounted - start) / 1e9,
        mount.mountChunkScanNanos() / 1e9,
        mount.mountChunks(),
        mount.mountChunkBytes(),
        mount.mountChunkReads(),
        afterMount.reads(),
        (opened - mounted) / 1e9,
        afterReplay.bytesRead() - afterMount.bytesRead(),
        afterReplay.reads() - afterMount.reads(),
        (flushed - opened) / 1e9,
        walBytes,
        entries,
        lateAtOpen.since(lateAtStart),
        flushLate);
  }

  private long count() {
    long n = 0;
    try (ZkvIterator it = db.iterator(null, null)) {
      while (it.hasNext()) {
        it.next();
        n++;
      }
    }
    return n;
  }

  @Override
  public String zoneLevels() {
    return ZoneLevels.of(env.zoneTable()).describe();
  }

  @Override
  public ZoneCounters counters() {
    ZoneCounters z =
        ZoneCounters.of(
            env.stats(), env.compactionZones(), env.hintOverlaps(), env.geometry().zoneCapacity());
    return db.waltzStats().map(z::withWaltz).orElse(z);
  }

  @Override
  public void close() {
    try {
      if (db != null) {
        db.close();
      }
      if (env != null) {
        env.close();
      }
      device.close();
    } finally {
      deleteQuietly(scratchFile);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete scratch device " + file, e);
      }
    }
  }
}
