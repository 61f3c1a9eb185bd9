package io.zkv;

import io.zkv.device.DeviceInUseException;
import io.zkv.device.ZonedDevice;
import io.zkv.fs.ZoneFsSettings;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.ZkvEnv;

/**
 * The child JVM of {@link JvmMisuseTest}: what a new user tried, in one process. A {@code ZkvDb} at
 * {@code /same}, then a RocksDB instance opened with the env's {@code rocksEnv()} at {@code
 * /same/.} (the same directory: refused), then one at {@code /other} left open; the {@code ZkvDb}
 * and the {@link ZonedEnv} closed (refused while {@code /other} is open, then closed after it); the
 * device mounted through {@code ZkvEnv.onZones}, written, closed and mounted again. Once crashed
 * the JVM (SIGSEGV in the GC worker, calling a Java trigger whose owner was freed). Each step's
 * outcome goes to stdout; the exit status is 0 unless a step went wrong.
 *
 * <p>Argument: the device URI (an unformatted emulated device).
 */
public final class MisuseWorkload {
  private MisuseWorkload() {}

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    RocksDB.loadLibrary();
    ZonedEnv zoned = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT);
    ZkvDb db = ZkvDb.open(zoned, "/same", TestDevices.small());
    db.put(b("k"), b("v"));
    try (Options o = new Options().setCreateIfMissing(true).setEnv(zoned.rocksEnv())) {
      for (String same : new String[] {"/same/.", "/same/", "//same", "/x/../same"}) {
        try {
          RocksDB.open(o, same).close();
          fail("a second database at " + same + " was accepted");
        } catch (RocksDBException e) {
          System.out.println("refused " + same + ": " + e.getMessage());
        }
      }
      RocksDB other = RocksDB.open(o, "/other");
      other.put(b("o"), b("1"));
      db.close();
      try {
        zoned.close();
        fail("the env closed under an open database");
      } catch (IllegalStateException e) {
        System.out.println("env close refused: " + e.getMessage());
      }
      Thread.sleep(250); // background GC rounds (every 100 ms) run meanwhile
      try (ZonedDevice dev = ZonedDevice.open(uri)) {
        ZkvEnv.onZones(dev, ZoneFsSettings.mount()).close();
        fail("a second mount of a mounted device was accepted");
      } catch (DeviceInUseException e) {
        System.out.println("second mount refused: " + e.getMessage());
      }
      other.close();
    }
    zoned.close();
    Thread.sleep(250);
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      for (int round = 0; round < 2; round++) {
        try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
            Options o = new Options().setCreateIfMissing(true).setEnv(env);
            RocksDB raw = RocksDB.open(o, "/raw")) {
          if (round == 1 && !Arrays.equals(b("r0"), raw.get(b("r")))) {
            fail("/raw lost its key across the remount");
          }
          raw.put(b("r"), b("r" + round));
          if (!Arrays.equals(b("r" + round), raw.get(b("r")))) {
            fail("/raw cannot read its key");
          }
        }
      }
    }
    System.out.println("done");
  }

  private static void fail(String what) {
    System.out.println("FAILED: " + what);
    System.out.flush();
    Runtime.getRuntime().halt(1);
  }
}
