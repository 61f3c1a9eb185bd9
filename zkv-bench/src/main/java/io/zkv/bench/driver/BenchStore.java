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

  /** The zone file system's counters now, or null for a store that has none. */
  ZoneCounters counters();

  @Override
  void close();
}
