package io.zkv.bench.driver;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long RocksDB held its writers back (delays and stops), and why: read from its own statistics
 * ({@code rocksdb.dbstats}' "Cumulative stall" and {@code rocksdb.cfstats}' "Write Stall (count)"
 * lines), which cost nothing to keep, unlike a {@code Statistics} object. A phase's figures are the
 * difference across it. They explain a throughput that stays below the host's: a write path whose
 * memtables fill faster than flushes drain them stops on {@code memtable-limit-stops}.
 *
 * @param seconds time writers spent delayed or stopped (RocksDB's write stall micros)
 * @param counts per cause (RocksDB's names, e.g. {@code memtable-limit-stops}), only causes seen
 */
public record WriteStalls(double seconds, Map<String, Long> counts) {
  private static final Pattern CUMULATIVE =
      Pattern.compile("Cumulative stall: (\\d+):(\\d+):(\\d+(?:\\.\\d+)?) H:M:S");
  private static final Pattern CF_LINE = Pattern.compile("Write Stall \\(count\\): (.*)");
  private static final Pattern COUNT = Pattern.compile("([a-z0-9-]+): (\\d+)");

  public WriteStalls {
    counts = Map.copyOf(counts);
  }

  /** The store's figures so far, or null for a store without RocksDB's statistics. */
  static WriteStalls read(BenchStore store) {
    String db = store.stringProperty("rocksdb.dbstats");
    String cf = store.stringProperty("rocksdb.cfstats-no-file-histogram");
    return db == null || cf == null ? null : parse(db, cf);
  }

  /**
   * Parses RocksDB's DB stats and column-family stats texts.
   *
   * @throws IllegalArgumentException if the DB stats have no "Cumulative stall" line (another
   *     RocksDB's format: the figure would silently read 0)
   */
  static WriteStalls parse(String dbStats, String cfStats) {
    Matcher m = CUMULATIVE.matcher(dbStats);
    if (!m.find()) {
      throw new IllegalArgumentException("no \"Cumulative stall\" line in RocksDB's DB stats");
    }
    double seconds =
        Long.parseLong(m.group(1)) * 3600.0
            + Long.parseLong(m.group(2)) * 60.0
            + Double.parseDouble(m.group(3));
    Map<String, Long> counts = new LinkedHashMap<>();
    Matcher line = CF_LINE.matcher(cfStats);
    while (line.find()) {
      Matcher c = COUNT.matcher(line.group(1));
      while (c.find()) {
        long n = Long.parseLong(c.group(2));
        if (!c.group(1).startsWith("total-")) {
          counts.merge(c.group(1), n, Long::sum);
        }
      }
    }
    return new WriteStalls(seconds, counts);
  }

  /** What happened since {@code before}; causes that did not occur in between are left out. */
  WriteStalls since(WriteStalls before) {
    Map<String, Long> delta = new LinkedHashMap<>();
    counts.forEach(
        (cause, n) -> {
          long d = n - before.counts.getOrDefault(cause, 0L);
          if (d > 0) {
            delta.put(cause, d);
          }
        });
    return new WriteStalls(Math.max(0, seconds - before.seconds), delta);
  }
}
