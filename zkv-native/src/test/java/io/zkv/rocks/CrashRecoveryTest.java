package io.zkv.rocks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.FaultInjector;
import io.zkv.device.ZonedDevice;
import io.zkv.fs.ZoneFsSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;
import org.rocksdb.ZkvEnv;

/**
 * Crash safety of RocksDB on zones: (a) a child JVM killed with SIGKILL at random points of a
 * synced write workload; (b) emulated power cuts with the volatile write cache on. After each, the
 * database opens and every acknowledged write is there. Cycles: {@code -Dzkv.crash.cycles} (default
 * 50 kills), {@code -Dzkv.crash.powercuts} (default 20 power cuts); the same with the WAL in ZWAL
 * mode on a device that completes appends out of order ({@code reorder=1}), the database reopened
 * in the FILE mode: {@code -Dzkv.crash.zwal.cycles} and {@code -Dzkv.crash.zwal.powercuts} (default
 * 20 each); seed: {@code -Dzkv.seed}.
 */
class CrashRecoveryTest {
  private static final String DB = "/crash/db";
  private static final int KEYS = 2000;
  private static final long SEED = Long.getLong("zkv.seed", System.nanoTime());

  @TempDir Path dir;

  private Path newDevice() throws Exception {
    Path file = dir.resolve("crash.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(40, 8L << 20, 6L << 20, 14, 14, 1 << 20));
    return file;
  }

  @Test
  void killedProcessesLoseNoAcknowledgedWrite() throws Exception {
    kills(Integer.getInteger("zkv.crash.cycles", 50), false);
  }

  @Test
  void killedZwalProcessesLoseNoAcknowledgedWrite() throws Exception {
    kills(Integer.getInteger("zkv.crash.zwal.cycles", 20), true);
  }

  @Test
  void powerCutsLoseNoAcknowledgedWrite() throws Exception {
    powerCuts(Integer.getInteger("zkv.crash.powercuts", 20), false);
  }

  @Test
  void zwalPowerCutsLoseNoAcknowledgedWrite() throws Exception {
    powerCuts(Integer.getInteger("zkv.crash.zwal.powercuts", 20), true);
  }

  private void kills(int cycles, boolean zwal) throws Exception {
    System.out.println(
        "CrashRecoveryTest.kill seed=" + SEED + " cycles=" + cycles + (zwal ? " wal=zwal" : ""));
    SplittableRandom rnd = new SplittableRandom(SEED);
    Path file = newDevice();
    String uri =
        zwal
            ? EmulatedDevice.uri(file, "instant", "reorder=1")
            : EmulatedDevice.uri(file, "instant");
    Map<Integer, Long> acked = new HashMap<>();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int c = 0; c < cycles; c++) {
      final int cycle = c;
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  java,
                  // RocksJava extracts its library there; a killed child cannot delete its copy
                  "-Djava.io.tmpdir=" + dir,
                  "-cp",
                  System.getProperty("java.class.path")));
      cmd.addAll(
          List.of(
              CrashWorkload.class.getName(),
              uri,
              DB,
              Long.toString(rnd.nextLong()),
              Integer.toString(KEYS),
              Boolean.toString(cycle == 0),
              zwal ? "zwal" : "file"));
      Process child =
          new ProcessBuilder(cmd).redirectError(dir.resolve("child.err").toFile()).start();
      long killAfterAcks = 20 + rnd.nextInt(400);
      long seen = 0;
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          if (line.startsWith("ack ")) {
            String[] p = line.split(" ");
            acked.put(Integer.parseInt(p[1]), Long.parseLong(p[2]));
            if (++seen == killAfterAcks) {
              child.destroyForcibly(); // SIGKILL, mid-write
              break; // acknowledgements printed after this are not needed: the check is >=
            }
          }
        }
      } catch (java.io.IOException closedByExit) {
        // the child exited on its own: reported below with its stderr
      }
      int exit = child.waitFor();
      long acks = seen;
      assertTrue(
          seen >= killAfterAcks,
          () ->
              "cycle "
                  + cycle
                  + ": the child exited with "
                  + exit
                  + " after "
                  + acks
                  + " acks: "
                  + readQuietly(dir.resolve("child.err")));
      verify(uri, acked, "kill cycle " + cycle + " (seed " + SEED + ")");
    }
  }

  private void powerCuts(int cycles, boolean zwal) throws Exception {
    System.out.println(
        "CrashRecoveryTest.powercut seed="
            + SEED
            + " cycles="
            + cycles
            + (zwal ? " wal=zwal" : ""));
    SplittableRandom rnd = new SplittableRandom(SEED ^ 0x5EED);
    Path file = newDevice();
    String uri =
        zwal
            ? EmulatedDevice.uri(file, "instant", "wcache=1", "reorder=1")
            : EmulatedDevice.uri(file, "instant", "wcache=1");
    Map<Integer, Long> acked = new HashMap<>();
    long version = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
      ZonedDevice dev = ZonedDevice.open(uri);
      ZkvEnv env =
          ZkvEnv.onZones(
              dev,
              ZoneFsSettings.builder()
                  .format(cycle == 0)
                  .wal(zwal ? CrashTestSupport.ZWAL : io.zkv.wal.WalOptions.defaults())
                  .build());
      Options o = new Options().setCreateIfMissing(true).setEnv(env).setWriteBufferSize(256 << 10);
      RocksDB db = RocksDB.open(o, DB);
      WriteOptions sync = new WriteOptions().setSync(true);
      AtomicBoolean stop = new AtomicBoolean();
      int writes = 20 + rnd.nextInt(300);
      byte[] value = new byte[300];
      for (int i = 0; i < writes; i++) {
        int k = rnd.nextInt(KEYS);
        version++;
        ByteBuffer.wrap(value).putLong(version).putInt(k);
        db.put(sync, CrashTestSupport.key(k), value);
        acked.put(k, version);
      }
      // unacknowledged writes in flight while the power goes (newer versions: allowed to survive)
      AtomicLong next = new AtomicLong(version);
      SplittableRandom inFlightKeys = rnd.split();
      Thread inFlight =
          new Thread(
              () -> {
                byte[] v = new byte[300];
                try {
                  while (!stop.get()) {
                    int k = inFlightKeys.nextInt(KEYS);
                    ByteBuffer.wrap(v).putLong(next.incrementAndGet()).putInt(k);
                    db.put(sync, CrashTestSupport.key(k), v);
                  }
                } catch (Exception expected) {
                  // the device lost power
                }
              });
      long before = version;
      inFlight.start();
      Thread.sleep(rnd.nextInt(5));
      dev.faults().powerCut(FaultInjector.PowerCut.RANDOM, rnd.nextLong());
      stop.set(true);
      inFlight.join();
      version = next.get();
      sync.close();
      db.close();
      o.close();
      env.close();
      dev.close();
      verify(
          uri, acked, "power cut cycle " + cycle + " (seed " + SEED + ", version " + before + ")");
    }
  }

  private static String readQuietly(Path p) {
    try {
      return java.nio.file.Files.readString(p);
    } catch (java.io.IOException e) {
      return "(no stderr: " + e.getMessage() + ")";
    }
  }

  private static void verify(String uri, Map<Integer, Long> acked, String context)
      throws Exception {
    try (ZonedDevice dev = ZonedDevice.open(uri);
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
        Options o = new Options().setEnv(env);
        RocksDB db = RocksDB.open(o, DB)) {
      CrashTestSupport.verifyAcknowledged(db, acked, context);
    }
  }
}
