package io.zkv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.PlmArray;
import io.zkv.device.ZonedDevice;
import java.nio.charset.StandardCharsets;

/** Checks of a {@code plmarray:} device shared by the host's and the QEMU guest's tests. */
final class PlmArrayChecks {
  private PlmArrayChecks() {}

  /**
   * The window schedulers that ask for windows are refused at open on an array whose device has no
   * PLM, saying so and that Base runs on it.
   */
  static void schedulersNeedingPlmRefused(String uri) {
    for (String scheduler : new String[] {"plm", "r-vigil", "o-vigil"}) {
      ZonedEnvOptions options = ZonedEnvOptions.builder().windowScheduler(scheduler).build();
      ZkvException e =
          assertThrows(ZkvException.class, () -> ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, options));
      System.out.println("[" + uri + "] " + scheduler + ": " + e.getMessage());
      String m = e.getMessage();
      assertTrue(m.contains("cannot start window scheduler " + scheduler), m);
      assertTrue(m.contains("does not support Predictable Latency Mode"), m);
      assertTrue(m.contains("base (PLM off) runs on it"), m);
    }
  }

  /**
   * RocksDB on the array through the zone file system: formats it, writes and flushes {@code keys}
   * keys, checks that the WAL and metadata reached the meta set and SST data the kv-sets, then
   * mounts it again and reads every {@code step}-th key back.
   */
  static void roundTrip(String uri, ZonedEnvOptions options, int keys, int step) throws Exception {
    try (ZonedDevice device = ZonedDevice.open(uri);
        ZonedEnv zoned = ZonedEnv.open(device, ZonedEnv.Mode.FORMAT, options);
        ZkvDb db =
            ZkvDb.open(zoned, "/db", ZkvOptions.builder().writeBufferSize(1 << 20).build())) {
      for (int i = 0; i < keys; i++) {
        db.put(key(i), value(i));
      }
      db.flush();
      for (int i = 0; i < keys; i += step) {
        assertArrayEquals(value(i), db.get(key(i)));
      }
      PlmArray array = device.plmArray();
      assertTrue(array.set(1).writesDirect() > 0, "nothing reached the meta set");
      long striped = 0;
      for (int s = 2; s <= 4; s++) {
        striped += array.set(s).writesDirect() + array.set(s).writesHeld();
      }
      assertTrue(striped > 0, "no SST data on the kv-sets");
    }
    try (ZonedEnv zoned = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, options);
        ZkvDb db = ZkvDb.open(zoned, "/db")) {
      for (int i = 0; i < keys; i += step) {
        assertArrayEquals(value(i), db.get(key(i)));
      }
    }
  }

  private static byte[] key(int i) {
    return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    return ("value-" + i + "-" + "x".repeat(100)).getBytes(StandardCharsets.UTF_8);
  }
}
