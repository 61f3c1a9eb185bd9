package io.zkv.bench.driver;

/**
 * The store operations a benchmark issues; implementations are thread-safe. Errors are unchecked
 * exceptions naming the store.
 */
public interface BenchStore extends AutoCloseable {
  void put(byte[] key, byte[] value);

  /** The value, or null. */
  byte[] get(byte[] key);

  /** Seeks to {@code from} and reads up to {@code count} entries; returns how many it read. */
  int scan(byte[] from, int count);

  /**
   * Flushes the memtable and waits until no flush or compaction is pending or running ({@link
   * Settling}); returns false if that did not happen within {@link Settling#TIMEOUT_MILLIS}.
   */
  boolean settle() throws InterruptedException;

  /**
   * What the store runs on, when the configuration did not fix it (the geometry read from a {@code
   * device=} URI), for the report's notes; null otherwise.
   */
  default String deviceNote() {
    return null;
  }

  /** The zone file system's counters now, or null for a store that has none. */
  ZoneCounters counters();

  @Override
  void close();
}
