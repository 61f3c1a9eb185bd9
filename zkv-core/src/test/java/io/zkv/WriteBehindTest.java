package io.zkv;

import static io.zkv.TestDevices.b;
import static io.zkv.TestDevices.small;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SST write-behind (ZonedEnvOptions.writeBehind): on by default, off on request; flushed tables
 * written either way read back after a remount with the other setting. The mechanism (a write-out
 * in flight while the writer goes on, a sync waiting for it) is tested in test_zonefs_chunks.c.
 */
class WriteBehindTest {
  @TempDir Path dir;

  @Test
  void optionsCarryTheSetting() {
    assertTrue(ZonedEnvOptions.defaults().writeBehind());
    ZonedEnvOptions off = ZonedEnvOptions.builder().writeBehind(false).build();
    assertFalse(off.writeBehind());
    assertFalse(off.toZoneFsSettings(false).writeBehind());
    assertTrue(ZonedEnvOptions.defaults().toZoneFsSettings(false).writeBehind());
    assertNotEquals(ZonedEnvOptions.defaults(), off);
    assertEquals(off, ZonedEnvOptions.builder().writeBehind(false).build());
    assertTrue(off.toString().contains("writeBehind=false"), off.toString());
    assertFalse(ZonedEnvOptions.defaults().toString().contains("writeBehind"));
  }

  @Test
  void tablesWrittenEitherWayReadBackAfterARemount() throws Exception {
    String uri = TestDevices.medium(dir);
    boolean[] settings = {true, false};
    for (int round = 0; round < settings.length; round++) {
      ZonedEnvOptions options = ZonedEnvOptions.builder().writeBehind(settings[round]).build();
      try (ZonedEnv env =
              ZonedEnv.open(uri, round == 0 ? ZonedEnv.Mode.FORMAT : ZonedEnv.Mode.MOUNT, options);
          ZkvDb db = ZkvDb.open(env, "/db", small())) {
        byte[] value = new byte[3000];
        for (int i = 0; i < 2000; i++) { // about 6 MB: several 512 KiB write-outs per table
          value[0] = (byte) i;
          value[1] = (byte) round;
          db.put(b("key-" + round + "-" + i), value);
        }
        db.flush();
      }
    }
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb db = ZkvDb.open(env, "/db", small())) {
      for (int round = 0; round < settings.length; round++) {
        for (int i = 0; i < 2000; i += 97) {
          byte[] got = db.get(b("key-" + round + "-" + i));
          assertEquals(3000, got.length);
          assertArrayEquals(new byte[] {(byte) i, (byte) round}, new byte[] {got[0], got[1]});
        }
      }
    }
  }
}
