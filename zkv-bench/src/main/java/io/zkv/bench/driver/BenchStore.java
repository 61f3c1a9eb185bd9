package io.zkv.bench.driver;

import java.util.StringJoiner;

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
   * Settling}); returns false if that did not happen within {@code timeoutMillis}.
   */
  boolean settle(long timeoutMillis) throws InterruptedException;

  /**
   * What the store runs on, when the configuration did not fix it (the geometry read from a {@code
   * device=} URI), for the report's notes; null otherwise.
   */
  default String deviceNote() {
    return null;
  }

  /**
   * RocksDB's integer property {@code name} (such as {@code rocksdb.num-files-at-level0}), or -1
   * for a store without RocksDB.
   */
  default long longProperty(String name) {
    return -1;
  }

  /** RocksDB's string property {@code name} (such as {@code rocksdb.dbstats}), or null. */
  default String stringProperty(String name) {
    return null;
  }

  /**
   * The zones in use by the level of the data they hold ({@link ZoneLevels#describe()}), for the
   * report's notes: where the space a placement leaves unused sits. Null for a store without zones.
   */
  default String zoneLevels() {
    return null;
  }

  /**
   * The LSM tree's files per level, L0 to L6 ("2/0/0/0/3/12/4"), for the report's notes: read
   * figures of two targets compare only on equal shapes. Null for a store without RocksDB.
   */
  default String lsmShape() {
    StringJoiner levels = new StringJoiner("/");
    for (int level = 0; level < 7; level++) {
      long files = longProperty("rocksdb.num-files-at-level" + level);
      if (files < 0) {
        return null;
      }
      levels.add(Long.toString(files));
    }
    return levels.toString();
  }

  /**
   * The {@code plmarray:} device the store runs on (docs/plm.md), for the ablation ladder's figures
   * and window timeline; null on any other.
   */
  default io.zkv.device.ZonedDevice plmArray() {
    return null;
  }

  /**
   * Whether the store runs on an emulated device whose timing profile takes time, so that a client
   * thread's modelled device time ({@link io.zkv.device.ThreadModelTime}) is worth a figure.
   */
  default boolean modelTimed() {
    return false;
  }

  /**
   * Closes the store without flushing (its memtables' data only in the WAL, as a crash leaves it),
   * opens it again and flushes the replayed memtable, measuring each part; then the store is open
   * again for the next phase. Fails if the reopened store holds another number of entries.
   */
  RecoveryFigures reopen();

  /** The zone file system's counters now, or null for a store that has none. */
  ZoneCounters counters();

  @Override
  void close();
}
