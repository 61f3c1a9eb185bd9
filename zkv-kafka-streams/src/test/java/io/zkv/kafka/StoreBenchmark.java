package io.zkv.kafka;

import io.zkv.device.EmulatedDevice;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * Kafka Streams' own RocksDB key-value store (Streams' default options) on zkv and on the host file
 * system, side by side in one run, in alternating order (A B C, C B A, ...): puts of random 16-byte
 * keys with 100-byte values, a store flush every 10,000 puts (what a commit does in Streams 4.1),
 * then random gets of written keys. A shorter warm-up run of each target comes first and is not
 * counted. Prints the medians over the repeats of each target. Not a test: {@code
 * docs/kafka-streams.md} says how to run it.
 *
 * <p>Arguments: {@code <dir> [puts=200000] [repeats=3]}; the host target's files go to {@code dir}.
 */
public final class StoreBenchmark {
  private static final List<String> TARGETS =
      List.of("zkv:instant", "zkv:zn540", "rocksdb-default");

  private StoreBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int puts = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    System.out.printf(
        Locale.ROOT,
        "load average at start: %.2f; %d puts, %d gets, %d repeats%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        puts,
        puts,
        repeats);
    for (String target : TARGETS) { // warm-up (JIT), not counted
      run(dir.resolve("warmup-" + target.replace(':', '-')), target, puts / 4);
    }
    Map<String, List<double[]>> results = new TreeMap<>();
    for (int r = 0; r < repeats; r++) {
      List<String> order = new ArrayList<>(TARGETS);
      if (r % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (String target : order) {
        double[] figures = run(dir.resolve("r" + r + "-" + target.replace(':', '-')), target, puts);
        results.computeIfAbsent(target, k -> new ArrayList<>()).add(figures);
        System.out.printf(Locale.ROOT, "run %d %s: %s%n", r, target, Arrays.toString(figures));
      }
    }
    System.out.printf(
        Locale.ROOT,
        "load average at end: %.2f%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    System.out.println(
        "| target | put ops/s | put p50 us | put p99 us | put p99.9 us | get ops/s | get p50 us | get p99 us | get p99.9 us |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (String t : TARGETS) {
      List<double[]> runs = results.get(t);
      StringBuilder b = new StringBuilder("| " + t + " |");
      for (int i = 0; i < 8; i++) {
        double[] v = new double[runs.size()];
        for (int j = 0; j < v.length; j++) {
          v[j] = runs.get(j)[i];
        }
        Arrays.sort(v);
        double median =
            v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        b.append(String.format(Locale.ROOT, i % 4 == 0 ? " %,.0f |" : " %.1f |", median));
      }
      System.out.println(b);
    }
  }

  /** put ops/s, p50, p99, p99.9 (us), then the same for gets. */
  private static double[] run(Path dir, String target, int puts) throws Exception {
    Files.createDirectories(dir);
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "bench");
    p.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString());
    String uri = null;
    if (target.startsWith("zkv:")) {
      Path dev = dir.resolve("dev.zkvemu");
      EmulatedDevice.format(dev, StreamsFixture.GEOMETRY);
      uri = EmulatedDevice.uri(dev, target.substring(4));
      p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, ZkvRocksDBConfigSetter.class);
      p.put(ZkvStreamsConfig.DEVICE, uri);
    }
    File taskDir = dir.resolve("state/bench/0_0").toFile();
    Files.createDirectories(taskDir.toPath());
    Random rnd = new Random(7);
    byte[][] keys = new byte[puts][16];
    for (byte[] k : keys) {
      rnd.nextBytes(k);
    }
    byte[] value = new byte[100];
    long[] putNanos = new long[puts];
    long[] getNanos = new long[puts];
    long putWall;
    long getWall;
    KeyValueStore<Bytes, byte[]> store = Stores.persistentKeyValueStore("store").get();
    try (StoreHarness h = new StoreHarness(store, p, new TaskId(0, 0), taskDir)) {
      long start = System.nanoTime();
      for (int i = 0; i < puts; i++) {
        rnd.nextBytes(value);
        long t = System.nanoTime();
        h.keyValueStore().put(Bytes.wrap(keys[i]), value);
        putNanos[i] = System.nanoTime() - t;
        if (i % 10_000 == 9_999) {
          h.keyValueStore().flush();
        }
      }
      h.keyValueStore().flush();
      putWall = System.nanoTime() - start;
      start = System.nanoTime();
      for (int i = 0; i < puts; i++) {
        long t = System.nanoTime();
        byte[] v = h.keyValueStore().get(Bytes.wrap(keys[rnd.nextInt(puts)]));
        getNanos[i] = System.nanoTime() - t;
        if (v == null) {
          throw new IllegalStateException("a written key is missing on " + target);
        }
      }
      getWall = System.nanoTime() - start;
    }
    if (uri != null) {
      long end = System.nanoTime() + 10_000_000_000L;
      while (ZkvRocksDBConfigSetter.isDeviceOpen(uri) && System.nanoTime() < end) {
        Thread.sleep(1);
      }
    }
    StreamsFixture.deleteTree(dir);
    double[] put = percentiles(putNanos);
    double[] get = percentiles(getNanos);
    return new double[] {
      puts * 1e9 / putWall, put[0], put[1], put[2], puts * 1e9 / getWall, get[0], get[1], get[2]
    };
  }

  private static double[] percentiles(long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return new double[] {
      s[(int) (s.length * 0.50)] / 1e3,
      s[(int) (s.length * 0.99)] / 1e3,
      s[(int) (s.length * 0.999)] / 1e3
    };
  }
}
