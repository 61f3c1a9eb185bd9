package io.zkv;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;

/**
 * RocksJava's per-instance {@code ReadOptions} (upstream issue 15036): a plain close leaks it, and
 * {@link ZkvDb#close()} frees it.
 */
class RocksDbLeaksTest {
  @TempDir Path dir;

  @Test
  void rocksJavasCloseLeavesItsReadOptionsAndTheHelperFreesThem() throws Exception {
    try (Options o = new Options().setCreateIfMissing(true)) {
      RocksDB db = RocksDB.open(o, dir.resolve("plain").toString());
      ReadOptions leaked = RocksDbLeaks.defaultReadOptions(db);
      assertNotNull(leaked, "this RocksJava has defaultReadOptions_ (8.10.0 and later)");
      db.close();
      assertTrue(leaked.isOwningHandle(), "RocksJava now frees it itself: drop RocksDbLeaks");
      RocksDbLeaks.releaseAfterClose(db);
      assertFalse(leaked.isOwningHandle());
      RocksDbLeaks.releaseAfterClose(db); // idempotent
    }
  }

  @Test
  void zkvDbCloseFreesTheReadOptionsOfItsDatabase() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT)) {
      ZkvDb zdb = ZkvDb.open(env, "/db", ZkvOptions.builder().writeBufferSize(1L << 20).build());
      Field f = ZkvDb.class.getDeclaredField("db");
      f.setAccessible(true);
      ReadOptions r = RocksDbLeaks.defaultReadOptions((RocksDB) f.get(zdb));
      assertNotNull(r);
      zdb.close();
      assertFalse(r.isOwningHandle(), "ZkvDb.close left RocksJava's ReadOptions allocated");
    }
  }
}
