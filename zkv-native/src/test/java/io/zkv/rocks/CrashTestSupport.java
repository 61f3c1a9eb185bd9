package io.zkv.rocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Map;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/** Keys, values and the acknowledged-write check shared by the crash tests. */
final class CrashTestSupport {
  private CrashTestSupport() {}

  /**
   * The WAL written by zone appends for the ZWAL crash runs: 8 KiB write-outs, 8 in flight (a put's
   * synced record is one chunk; the in-flight thread's unsynced ones queue behind it).
   */
  static final io.zkv.wal.WalOptions ZWAL =
      io.zkv.wal.WalOptions.builder()
          .mode(io.zkv.wal.WalMode.ZWAL)
          .buffer(8192)
          .queueDepth(8)
          .build();

  static byte[] key(int k) {
    return String.format("crash-key-%06d", k).getBytes();
  }

  /**
   * Every acknowledged key holds its last acknowledged version, or a newer one (a put that reached
   * RocksDB but whose acknowledgement the crash cut off).
   */
  static void verifyAcknowledged(RocksDB db, Map<Integer, Long> acked, String context)
      throws RocksDBException {
    for (Map.Entry<Integer, Long> e : acked.entrySet()) {
      byte[] v = db.get(key(e.getKey()));
      assertNotNull(v, context + ": acknowledged key " + e.getKey() + " is missing");
      ByteBuffer b = ByteBuffer.wrap(v);
      long version = b.getLong();
      assertEquals((int) e.getKey(), b.getInt(), context + ": value of another key");
      assertTrue(
          version >= e.getValue(),
          context
              + ": key "
              + e.getKey()
              + " has version "
              + version
              + " < acknowledged "
              + e.getValue());
    }
  }
}
