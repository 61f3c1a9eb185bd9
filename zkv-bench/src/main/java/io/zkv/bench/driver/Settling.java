package io.zkv.bench.driver;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Waits until a RocksDB database has no flush or compaction pending or running, by polling its
 * properties. Both targets settle this way after the unmeasured prefill and after every phase that
 * writes, so the background work a phase caused is neither measured as the next phase's stalls nor
 * counted in its device bytes.
 */
final class Settling {
  /** The properties that are 0 when RocksDB has no flush or compaction to do or doing. */
  static final List<String> BUSY_PROPERTIES =
      List.of(
          "rocksdb.mem-table-flush-pending",
          "rocksdb.num-running-flushes",
          "rocksdb.compaction-pending",
          "rocksdb.num-running-compactions");

  /** Upper bound of one wait, so that a database that never settles cannot hang a run. */
  static final long TIMEOUT_MILLIS = 60_000;

  /**
   * The bound after a phase that ran {@code phaseSeconds}: at least {@link #TIMEOUT_MILLIS}, and as
   * long as the phase itself, so that a long phase's compaction debt (ZoneKV's fillrandom of 8
   * times the fill: minutes) settles before its zone figures are read. Assumes RocksDB's background
   * jobs clear a phase's debt in no longer than the phase took to build it.
   */
  static long timeoutAfter(double phaseSeconds) {
    return Math.max(TIMEOUT_MILLIS, (long) (phaseSeconds * 1000));
  }

  private static final long POLL_MILLIS = 10;

  private Settling() {}

  /**
   * Polls {@code property} (a RocksDB integer property by name) until all {@link #BUSY_PROPERTIES}
   * are 0 or {@code timeoutMillis} passed; returns whether the database settled.
   */
  static boolean awaitIdle(ToLongFunction<String> property, long timeoutMillis)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    while (true) {
      if (BUSY_PROPERTIES.stream().allMatch(p -> property.applyAsLong(p) == 0)) {
        return true;
      }
      if (System.nanoTime() >= deadline) {
        return false;
      }
      Thread.sleep(POLL_MILLIS);
    }
  }
}
