package io.zkv;

import java.lang.reflect.Field;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;

/**
 * Frees what RocksJava leaves behind when a database is closed. RocksJava 8.10.0 and later (9.7.3
 * and 10.1.3 included) create a {@code ReadOptions} per {@code RocksDB} instance ({@code
 * defaultReadOptions_}, used by {@code newIterator()}) and never close it: every open leaks one
 * native {@code ReadOptions} for the JVM's life (upstream facebook/rocksdb issue 15036, fix pending
 * at the time of writing). Kafka Streams opens a database per store and per segment, so the loss
 * grows with every segment roll. Reflection, guarded: a RocksJava without the field (older, or one
 * that fixed it by dropping the field) or one that already closed it is left alone.
 */
final class RocksDbLeaks {
  private static final Field DEFAULT_READ_OPTIONS = defaultReadOptionsField();

  private RocksDbLeaks() {}

  private static Field defaultReadOptionsField() {
    try {
      Field f = RocksDB.class.getDeclaredField("defaultReadOptions_");
      if (!ReadOptions.class.isAssignableFrom(f.getType())) {
        return null;
      }
      f.setAccessible(true);
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // absent or inaccessible: nothing to free
    }
  }

  /** The per-instance read options of a database, if this RocksJava has them (for tests). */
  static ReadOptions defaultReadOptions(RocksDB db) {
    try {
      return DEFAULT_READ_OPTIONS == null ? null : (ReadOptions) DEFAULT_READ_OPTIONS.get(db);
    } catch (IllegalAccessException e) {
      return null;
    }
  }

  /** Call after {@code db} is closed: frees its per-instance read options. Idempotent. */
  static void releaseAfterClose(RocksDB db) {
    ReadOptions r = defaultReadOptions(db);
    if (r != null && r.isOwningHandle()) {
      r.close();
    }
  }
}
