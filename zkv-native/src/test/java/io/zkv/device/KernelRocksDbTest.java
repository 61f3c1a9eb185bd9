package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.rocksdb.ZkvEnv;

/**
 * Stock RocksJava on zkv's zone file system on a real device ({@code -Dzkv.test.device}, either
 * kernel backend): format, write with flushes and compactions, remount, read everything back. Sized
 * for the QEMU guest (32 zones of 3 MiB capacity, software-emulated CPU).
 */
@Tag("guest")
@EnabledIfSystemProperty(named = KernelDevices.PROPERTY, matches = "(nvme|zbd):.+")
class KernelRocksDbTest {
  private static final String DB = "/guest-e2e/db";
  private static final int KEYS = 40_000;

  private static byte[] key(int i) {
    return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    return ("value-" + i + "-" + "z".repeat(100 + i % 50)).getBytes(StandardCharsets.UTF_8);
  }

  private static Options options(ZkvEnv env) {
    return new Options()
        .setCreateIfMissing(true)
        .setEnv(env)
        .setWriteBufferSize(2L << 20)
        .setTargetFileSizeBase(2L << 20)
        .setMaxBytesForLevelBase(8L << 20)
        .setLevel0FileNumCompactionTrigger(2);
  }

  @Test
  @Timeout(300)
  void rocksDbWritesFlushesRemountsAndReadsBack() throws Exception {
    String uri = KernelDevices.anyUri();
    long t0 = System.nanoTime();
    try (ZonedDevice dev = KernelDevices.openReset(uri)) {
      try (ZkvEnv env = ZkvEnv.onZones(dev, true);
          Options o = options(env);
          RocksDB db = RocksDB.open(o, DB);
          WriteOptions w = new WriteOptions();
          FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        for (int i = 0; i < KEYS; i += 500) {
          try (WriteBatch b = new WriteBatch()) {
            for (int k = i; k < i + 500; k++) {
              b.put(key(k), value(k));
            }
            db.write(w, b);
          }
        }
        db.flush(f);
      }
      try (ZkvEnv env = ZkvEnv.onZones(dev, false);
          Options o = options(env);
          RocksDB db = RocksDB.open(o, DB)) {
        for (int k = 0; k < KEYS; k++) {
          assertArrayEquals(value(k), db.get(key(k)), "key " + k);
        }
      }
      DeviceStats s = dev.stats();
      assertTrue(s.bytesWritten() + s.bytesAppended() > 0, s::toString);
      System.out.printf(
          "[%s] RocksDB: %d keys written, flushed, remounted and read back in %.1f s; %s%n",
          uri, KEYS, (System.nanoTime() - t0) / 1e9, s);
    }
  }
}
