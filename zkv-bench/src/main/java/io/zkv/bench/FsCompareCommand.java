package io.zkv.bench;

import io.zkv.bench.driver.BenchInvocation;
import io.zkv.cli.Arguments;
import io.zkv.cli.Option;
import io.zkv.cli.ZkvCommand;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import io.zkv.fs.ZoneFsSettings;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.rocksdb.ZkvEnv;

/**
 * {@code zkv fs-compare}: db_bench's fillrandom, overwrite and readrandom through RocksJava, on
 * zkv's zone file system (emulated device) and on RocksJava's default Env, with the same options,
 * in one run, alternating which goes first; prints throughput and the zkv / default ratio.
 */
public final class FsCompareCommand implements ZkvCommand {
  @Override
  public String name() {
    return "fs-compare";
  }

  @Override
  public String summary() {
    return "RocksDB fillrandom/overwrite/readrandom: zkv zone file system vs the default Env";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.of("keys", "N", "1000000", "keys per phase"),
        Option.of("value", "BYTES", "100", "value size"),
        Option.of("rounds", "N", "2", "rounds, alternating which file system goes first"),
        BenchInvocation.PROFILE,
        Option.of("dir", "DIR", "a temporary directory", "where the databases and device go"),
        Option.of("out", "FILE", "none", "also write the results as Markdown to FILE"));
  }

  private static final String[] PHASES = {"fillrandom", "overwrite", "readrandom"};

  @Override
  public int run(Arguments args, PrintStream out) throws Exception {
    int keys = (int) args.number("keys", 1_000_000, 1000, 100_000_000);
    int valueSize = (int) args.number("value", 100, 1, 1 << 20);
    int rounds = (int) args.number("rounds", 2, 1, 20);
    String profile = args.string("profile", "instant");
    String dirArg = args.string("dir", null);
    String outFile = args.string("out", null);
    args.requireAllUsed();
    Path dir =
        dirArg != null
            ? Files.createDirectories(Path.of(dirArg))
            : Files.createTempDirectory("zkv-fs");
    // Zones for about 8x the data set, so that space is never the limit in this comparison.
    long dataBytes = (long) keys * (16 + valueSize);
    int zones = (int) Math.max(32, Math.min(4096, 8 * dataBytes / (48L << 20)));
    DeviceGeometry geometry = DeviceGeometry.of(zones, 64L << 20, 48L << 20, 14, 14, 1 << 20);
    out.printf(
        "fs-compare: %,d keys x %d B values, %d round(s); zkv on emulated %s (%s);"
            + " default Env in %s%n",
        keys, valueSize, rounds, geometry, profile, dir);
    Map<String, List<Double>> zkv = new LinkedHashMap<>();
    Map<String, List<Double>> def = new LinkedHashMap<>();
    for (int r = 0; r < rounds; r++) {
      boolean zkvFirst = r % 2 == 0;
      for (int leg = 0; leg < 2; leg++) {
        boolean onZones = (leg == 0) == zkvFirst;
        Map<String, Double> result =
            onZones
                ? runOnZones(dir, geometry, profile, keys, valueSize, r)
                : runOnDefault(dir, keys, valueSize, r);
        result.forEach(
            (k, v) -> (onZones ? zkv : def).computeIfAbsent(k, x -> new ArrayList<>()).add(v));
        out.printf("  round %d %-8s %s%n", r + 1, onZones ? "zkv" : "default", format(result));
      }
    }
    StringBuilder table = new StringBuilder();
    table.append(String.format("%n| workload | zkv ops/s | default Env ops/s | zkv / default |%n"));
    table.append("|---|---|---|---|\n");
    for (String p : PHASES) {
      double a = mean(zkv.get(p)), b = mean(def.get(p));
      table.append(String.format("| %s | %,.0f | %,.0f | %.2f |%n", p, a, b, a / b));
    }
    out.print(table);
    if (outFile != null) {
      Files.writeString(Path.of(outFile), table.toString());
    }
    if (dirArg == null) {
      deleteTree(dir);
    }
    return 0;
  }

  private static String format(Map<String, Double> r) {
    StringBuilder b = new StringBuilder();
    r.forEach((k, v) -> b.append(String.format("%s %,.0f ops/s  ", k, v)));
    return b.toString();
  }

  private static double mean(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  private static Options options(Env env) {
    return new Options().setCreateIfMissing(true).setEnv(env);
  }

  private static Map<String, Double> runOnZones(
      Path dir, DeviceGeometry g, String profile, int keys, int valueSize, int round)
      throws Exception {
    Path file = dir.resolve("fs-compare.zkvemu");
    Files.deleteIfExists(file);
    EmulatedDevice.format(file, g);
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, profile));
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format());
        Options o = options(env);
        RocksDB db = RocksDB.open(o, "/fs-compare/db")) {
      return phases(db, keys, valueSize, round);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static Map<String, Double> runOnDefault(Path dir, int keys, int valueSize, int round)
      throws Exception {
    Path db = dir.resolve("default-db");
    deleteTree(db);
    try (Options o = options(Env.getDefault());
        RocksDB rdb = RocksDB.open(o, db.toString())) {
      return phases(rdb, keys, valueSize, round);
    } finally {
      deleteTree(db);
    }
  }

  private static Map<String, Double> phases(RocksDB db, int keys, int valueSize, int round)
      throws Exception {
    Map<String, Double> r = new LinkedHashMap<>();
    SplittableRandom rnd = new SplittableRandom(1234 + round);
    byte[] value = new byte[valueSize];
    byte[] key = new byte[16];
    try (WriteOptions w = new WriteOptions()) {
      for (String phase : new String[] {"fillrandom", "overwrite"}) {
        long t0 = System.nanoTime();
        for (int i = 0; i < keys; i += 100) {
          try (WriteBatch b = new WriteBatch()) {
            for (int k = 0; k < 100; k++) {
              fillKey(key, rnd.nextInt(keys));
              rnd.nextBytes(value);
              b.put(key, value);
            }
            db.write(w, b);
          }
        }
        r.put(phase, keys / ((System.nanoTime() - t0) / 1e9));
      }
    }
    long t0 = System.nanoTime();
    for (int i = 0; i < keys; i++) {
      fillKey(key, rnd.nextInt(keys));
      db.get(key);
    }
    r.put("readrandom", keys / ((System.nanoTime() - t0) / 1e9));
    return r;
  }

  private static void fillKey(byte[] key, int i) {
    for (int b = 0; b < 8; b++) {
      key[15 - b] = (byte) (i >>> (8 * b));
    }
  }

  private static void deleteTree(Path p) throws java.io.IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
