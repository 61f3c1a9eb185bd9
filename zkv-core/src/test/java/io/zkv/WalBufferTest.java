package io.zkv;

import static io.zkv.TestDevices.b;
import static io.zkv.TestDevices.small;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.wal.WalMode;
import io.zkv.wal.WalOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WAL buffer (ZonedEnvOptions.wal): a WAL writes a chunk to the device each time its buffer's
 * worth has gathered, so with 4 KiB a few KB of unsynced writes reach the device while with the
 * default 1 MiB they stay in the buffer; and the database reads back the same either way.
 */
class WalBufferTest {
  @TempDir Path dir;

  private long walBytesOnDeviceAfterUnsyncedPuts(String uri, WalOptions wal) {
    ZonedEnvOptions options = ZonedEnvOptions.builder().wal(wal).build();
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, options);
        ZkvDb db = ZkvDb.open(env, "/db", small())) {
      long before = env.stats().hostBytes();
      for (int i = 0; i < 200; i++) {
        db.put(b("key-" + i), new byte[100]); // about 25 KB of WAL, no sync, no flush
      }
      long reached = env.stats().hostBytes() - before;
      db.put(b("last"), b("v"));
      return reached;
    }
  }

  @Test
  void aSmallBufferWritesChunksAsItFillsAndTheDataReadsBack() throws Exception {
    String uri = TestDevices.medium(dir);
    long small = walBytesOnDeviceAfterUnsyncedPuts(uri, WalOptions.withBuffer(4096));
    assertTrue(small >= 20_000, "4 KiB buffer: " + small + " WAL bytes reached the device");
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb db = ZkvDb.open(env, "/db", small())) {
      assertArrayEquals(new byte[100], db.get(b("key-199")));
      assertArrayEquals(b("v"), db.get(b("last")));
    }
    long large = walBytesOnDeviceAfterUnsyncedPuts(uri, WalOptions.defaults());
    assertEquals(0, large, "1 MiB buffer: nothing written out yet");
  }

  @Test
  void zwalWritesTheWalByAppendsAndTheDatabaseReopensInEitherMode() throws Exception {
    String uri = TestDevices.medium(dir);
    WalOptions zwal = WalOptions.builder().mode(WalMode.ZWAL).buffer(8192).queueDepth(8).build();
    try (ZonedEnv env =
            ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, ZonedEnvOptions.builder().wal(zwal).build());
        ZkvDb db = ZkvDb.open(env, "/db", small())) {
      for (int i = 0; i < 500; i++) {
        db.put(b("key-" + i), b("value-" + i));
      }
      assertTrue(env.stats().hostBytes() > 0, "the WAL's appends reached the device");
    }
    // written by ZWAL, reopened in the FILE mode (the WAL's chunks are the same format)
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb db = ZkvDb.open(env, "/db", small())) {
      assertArrayEquals(b("value-499"), db.get(b("key-499")));
      db.put(b("file"), b("mode"));
    }
    try (ZonedEnv env =
            ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, ZonedEnvOptions.builder().wal(zwal).build());
        ZkvDb db = ZkvDb.open(env, "/db", small())) {
      assertArrayEquals(b("value-0"), db.get(b("key-0")));
      assertArrayEquals(b("mode"), db.get(b("file")));
    }
  }

  @Test
  void optionsCarryTheBuffer() {
    ZonedEnvOptions o = ZonedEnvOptions.builder().wal(WalOptions.withBuffer(8192)).build();
    assertEquals(8192, o.wal().bufferBytes());
    assertEquals(o, ZonedEnvOptions.builder().wal(WalOptions.withBuffer(8192)).build());
    assertTrue(o.toString().contains("wal=WalOptions[mode=FILE, buffer=8192]"), o.toString());
    assertEquals(WalOptions.defaults(), ZonedEnvOptions.defaults().wal());
    assertThrows(IllegalArgumentException.class, () -> WalOptions.withBuffer(1000));
  }

  /**
   * syncWal makes the unsynced puts durable without a flush: after a power cut that loses every
   * write not yet durable, each of them is back (they were in the default 1 MiB buffer before).
   */
  @Test
  void syncWalMakesEarlierUnsyncedPutsSurviveAPowerCut() throws Exception {
    String uri = TestDevices.medium(dir);
    for (WalMode mode : new WalMode[] {WalMode.FILE, WalMode.ZWAL}) { // the file system's modes
      WalOptions wal = WalOptions.builder().mode(mode).build();
      ZonedEnvOptions options = ZonedEnvOptions.builder().wal(wal).build();
      try (io.zkv.device.ZonedDevice dev = io.zkv.device.ZonedDevice.open(uri)) {
        ZonedEnv env = ZonedEnv.open(dev, ZonedEnv.Mode.FORMAT, options);
        ZkvDb db = ZkvDb.open(env, "/db", small());
        for (int i = 0; i < 300; i++) {
          db.put(b("key-" + i), b("value-" + i)); // no sync: in the WAL's buffer
        }
        db.syncWal();
        db.put(b("after"), b("lost")); // never synced: gone with the power
        dev.faults().powerCut(io.zkv.device.FaultInjector.PowerCut.DROP_ALL, 1);
        assertThrows(ZkvException.class, db::close); // its close cannot write any more
        env.close();
      }
      try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, options);
          ZkvDb db = ZkvDb.open(env, "/db", small())) {
        for (int i = 0; i < 300; i++) {
          assertArrayEquals(b("value-" + i), db.get(b("key-" + i)), mode + " key-" + i);
        }
        assertEquals(null, db.get(b("after")), mode.toString());
      }
    }
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb db = ZkvDb.open(env, "/other", small().toBuilder().disableWal(true).build())) {
      assertThrows(IllegalStateException.class, db::syncWal);
    }
  }
}
