package io.zkv.bench.driver;

import io.zkv.ZkvDb;
import io.zkv.ZkvIterator;
import io.zkv.ZonedEnv;
import io.zkv.ZonedEnvOptions;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
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

  private final ZonedDevice device;
  private final ZonedEnv env;
  private final ZkvDb db;
  private final Path scratchFile;

  private ZkvStore(ZonedDevice device, ZonedEnv env, ZkvDb db, Path scratchFile) {
    this.device = device;
    this.env = env;
    this.db = db;
    this.scratchFile = scratchFile;
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
      env =
          ZonedEnv.open(
              device,
              ZonedEnv.Mode.FORMAT,
              ZonedEnvOptions.builder()
                  .placement(c.placement())
                  .windowScheduler(c.windowScheduler())
                  .wal(c.wal())
                  .build());
      return new ZkvStore(device, env, ZkvDb.open(env, DB_PATH, s.dbOptions(c.sync())), file);
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
  public boolean settle() throws InterruptedException {
    db.flush();
    return Settling.awaitIdle(this::longProperty, Settling.TIMEOUT_MILLIS);
  }

  @Override
  public long longProperty(String name) {
    return Long.parseLong(
        db.property(name)
            .orElseThrow(() -> new IllegalStateException("RocksDB has no property " + name))
            .trim());
  }

  @Override
  public ZoneCounters counters() {
    return ZoneCounters.of(env.stats());
  }

  @Override
  public void close() {
    try {
      db.close();
      env.close();
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
