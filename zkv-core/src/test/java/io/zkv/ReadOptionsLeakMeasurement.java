package io.zkv;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * Measures the native memory RocksJava's per-instance {@code ReadOptions} leak costs (upstream
 * issue 15036) over many database open/close cycles: the resident set of this JVM after {@code
 * cycles} opens and closes of one database on an emulated zoned device, with RocksJava's close
 * alone ("raw"), with that and the leaked {@code ReadOptions} freed ("freed"), and with zkv's
 * {@link ZkvDb#close()} ("zkvdb"). Arguments: the mode, the number of cycles and of warm-up cycles
 * (default 1000). Not a unit test (minutes, and RSS belongs in a doc, not an assertion); run it as
 * {@code docs/kafka-streams.md} says, in a JVM with a fixed, pre-touched heap so that only native
 * memory moves the resident set.
 */
public final class ReadOptionsLeakMeasurement {
  private ReadOptionsLeakMeasurement() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    int cycles = Integer.parseInt(args[1]);
    int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
    Path dir = Files.createTempDirectory("zkv-leak");
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT)) {
      ZkvOptions options = ZkvOptions.builder().writeBufferSize(1L << 20).build();
      cycle(mode, env, options, warmUp); // code, caches and allocator arenas settle
      System.gc();
      long start = rssKib();
      StringBuilder points = new StringBuilder();
      for (int done = 0; done < cycles; ) {
        int step = Math.min(2000, cycles - done);
        cycle(mode, env, options, step);
        done += step;
        System.gc();
        points.append(' ').append(done).append(':').append(rssKib() - start);
      }
      long growth = rssKib() - start;
      System.out.printf(
          "%s: %d cycles after %d of warm-up, resident set %+d KiB (%.1f bytes a cycle);"
              + " KiB over the start after each 2000:%s%n",
          mode, cycles, warmUp, growth, 1024.0 * growth / cycles, points);
    }
  }

  private static void cycle(String mode, ZonedEnv env, ZkvOptions options, int n) throws Exception {
    for (int i = 0; i < n; i++) {
      if (mode.equals("zkvdb")) {
        try (ZkvDb db = ZkvDb.open(env, "/db", options)) {
          db.put(new byte[] {1}, new byte[] {2});
        }
      } else { // RocksJava's own close on the same Env ("raw"), and with the leak freed ("freed")
        try (Options o = new Options().setCreateIfMissing(true).setEnv(env.rocksEnv())) {
          RocksDB db = RocksDB.open(o, "/raw");
          db.put(new byte[] {1}, new byte[] {2});
          db.close();
          if (mode.equals("freed")) {
            RocksDbLeaks.releaseAfterClose(db);
          }
        }
      }
    }
  }

  private static long rssKib() throws Exception {
    for (String line : List.copyOf(Files.readAllLines(Path.of("/proc/self/status")))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no VmRSS in /proc/self/status");
  }
}
