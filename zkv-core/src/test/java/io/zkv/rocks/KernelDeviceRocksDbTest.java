package io.zkv.rocks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.zkv.device.ZonedDevice;
import io.zkv.fs.ZoneFsSettings;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.rocksdb.ZkvEnv;

/**
 * Stock RocksJava end to end on a real zoned device through zkv's zone file system: formats the
 * device named by {@code -Dzkv.test.device} (the QEMU guest's {@code nvme:/dev/ng0n1}, see
 * docs/guest.md), writes, overwrites, flushes and compacts tens of thousands of keys, then mounts
 * the device again and reads every key back. Guest only: it erases the device it is given.
 */
@Tag("guest")
class KernelDeviceRocksDbTest {
  private static final String DB = "/guest-db";
  private static final int KEYS = 40_000;
  private static final int BATCH = 1000;

  private static byte[] key(int i) {
    return String.format("key%08d", i).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * 100 to 300 bytes that depend on the key and the round that wrote them; random, so compression
   * does not shrink the ~10 MB each round writes.
   */
  private static byte[] value(int i, int round) {
    byte[] v = new byte[100 + (i * 37) % 200];
    new SplittableRandom(i * 2L + round).nextBytes(v);
    return v;
  }

  /** Round 1 overwrites every third key, so reads must see the newest version. */
  private static int lastRound(int i) {
    return i % 3 == 0 ? 1 : 0;
  }

  /** Small memtables and SST files, so the run flushes and compacts on a 96 MiB device. */
  private static Options options(ZkvEnv env) {
    return new Options()
        .setCreateIfMissing(true)
        .setEnv(env)
        .setWriteBufferSize(1L << 20)
        .setTargetFileSizeBase(1L << 20)
        .setMaxBytesForLevelBase(4L << 20)
        .setLevel0FileNumCompactionTrigger(4);
  }

  @Test
  void writesFlushesReopensAndReadsEveryKeyBack() throws Exception {
    String uri = System.getProperty("zkv.test.device", "");
    assumeFalse(uri.isEmpty(), "-Dzkv.test.device=nvme:/dev/ngXnY (or zbd:) not given");
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format())) {
        try (Options o = options(env);
            RocksDB db = RocksDB.open(o, DB);
            WriteOptions w = new WriteOptions();
            FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
          for (int round = 0; round < 2; round++) {
            for (int i = 0; i < KEYS; i += BATCH) {
              try (WriteBatch b = new WriteBatch()) {
                for (int k = i; k < i + BATCH; k++) {
                  if (round == 0 || lastRound(k) == 1) {
                    b.put(key(k), value(k, round));
                  }
                }
                db.write(w, b);
              }
            }
            db.flush(f);
          }
          db.compactRange();
        }
        io.zkv.fs.ZoneStats s = env.zoneFs().stats();
        System.out.println(uri + ": " + s);
        assertTrue(s.hostBytes() > KEYS * 100L, "the data went to the device's zones: " + s);
        assertTrue(s.files() > 1, "RocksDB files live in zones: " + s);
      }
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
          Options o = options(env);
          RocksDB db = RocksDB.open(o, DB)) {
        for (int i = 0; i < KEYS; i++) {
          assertArrayEquals(value(i, lastRound(i)), db.get(key(i)), "key " + i);
        }
        int n = 0;
        try (RocksIterator it = db.newIterator()) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            n++;
          }
        }
        assertEquals(KEYS, n);
        assertNull(db.get("absent".getBytes(StandardCharsets.US_ASCII)));
      }
    }
  }
}
