package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import io.zkv.fs.FsFile;
import io.zkv.fs.ZoneFsInspector;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;

/**
 * An emulated device (profile instant) and a state directory in a temporary directory, and file
 * helpers (also used by the example's test).
 */
public final class StreamsFixture {
  /** 32 zones of 32 MiB: room for Streams' 16 MiB memtables. */
  static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(32, 32L << 20, 32L << 20, 14, 14, 1 << 20);

  final Path dir;
  final Path stateDir;
  final Path deviceFile;
  final String uri;

  StreamsFixture(Path dir) throws Exception {
    this.dir = dir;
    java.nio.file.Files.createDirectories(dir);
    this.stateDir = dir.resolve("state");
    this.deviceFile = dir.resolve("streams.zkvemu");
    EmulatedDevice.format(deviceFile, GEOMETRY);
    this.uri = EmulatedDevice.uri(deviceFile, "instant");
  }

  /** Streams properties with the zkv config setter on this fixture's device. */
  Properties props(String appId) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, ZkvRocksDBConfigSetter.class);
    p.put(ZkvStreamsConfig.DEVICE, uri);
    return p;
  }

  /**
   * The value of Streams' RocksDB metric {@code name} (group {@code stream-state-metrics}) whose
   * tags are {@code tags}.
   */
  static BigInteger stateStoreMetric(
      Map<MetricName, ? extends Metric> metrics, String name, Map<String, String> tags) {
    return stateStoreMetric(metrics, name, n -> n.tags().equals(tags));
  }

  /** The value of Streams' RocksDB metric {@code name} of the first store {@code store} accepts. */
  static BigInteger stateStoreMetric(
      Map<MetricName, ? extends Metric> metrics, String name, Predicate<MetricName> store) {
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (n.group().equals("stream-state-metrics") && n.name().equals(name) && store.test(n)) {
        Object v = e.getValue().metricValue();
        return v instanceof BigInteger b
            ? b
            : BigInteger.valueOf(Math.round(((Number) v).doubleValue()));
      }
    }
    throw new AssertionError(
        "no stream-state-metrics " + name + " of that store in " + metrics.keySet());
  }

  /** Waits until the last store has released the device (a moment after its database closed). */
  void awaitDeviceClosed() throws InterruptedException {
    awaitDeviceClosed(uri);
  }

  /** Waits until the last store has released the device at {@code uri}. */
  public static void awaitDeviceClosed(String uri) throws InterruptedException {
    long end = System.nanoTime() + 10_000_000_000L;
    while (ZkvRocksDBConfigSetter.isDeviceOpen(uri) && System.nanoTime() < end) {
      Thread.sleep(1);
    }
    assertFalse(ZkvRocksDBConfigSetter.isDeviceOpen(uri), "the device is still open");
  }

  /** The zone file system's files (after the device closed): name to size. */
  List<FsFile> zoneFiles() throws Exception {
    try (ZonedDevice d = ZonedDevice.open(uri);
        ZoneFsInspector fs = ZoneFsInspector.open(d)) {
      return fs.files();
    }
  }

  /** Directories in the zone file system holding files, outside zkv's own catalog. */
  TreeSet<String> zoneStoreDirs() throws Exception {
    TreeSet<String> dirs = new TreeSet<>();
    for (FsFile f : zoneFiles()) {
      for (String n : f.names()) {
        String d = n.substring(0, n.lastIndexOf('/'));
        if (!d.equals(StoreCatalog.PATH)) {
          dirs.add(d);
        }
      }
    }
    return dirs;
  }

  /** A copy of the host state directory (Streams' own files; the stores' data is on the device). */
  Path saveHostState() throws IOException {
    Path copy = dir.resolve("state-copy-" + System.nanoTime());
    copyTree(stateDir, copy);
    return copy;
  }

  /** Puts a saved host state directory back, replacing the current one. */
  void restoreHostState(Path copy) throws IOException {
    deleteTree(stateDir);
    copyTree(copy, stateDir);
  }

  /** Copies a directory tree ({@code to} must not exist). */
  public static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }

  /** Deletes a directory tree if it exists. */
  public static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    List<Path> all = new ArrayList<>();
    try (Stream<Path> s = Files.walk(root)) {
      s.forEach(all::add);
    }
    for (int i = all.size() - 1; i >= 0; i--) {
      Files.delete(all.get(i));
    }
  }
}
