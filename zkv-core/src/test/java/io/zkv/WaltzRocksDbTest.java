package io.zkv;

import static io.zkv.TestDevices.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.FaultInjector;
import io.zkv.device.ZonedDevice;
import io.zkv.wal.WalMode;
import io.zkv.wal.WalOptions;
import io.zkv.waltz.WaltzLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * WALTZ mode end to end, RocksDB on the emulator: writes from four threads survive power cuts that
 * drop, tear or keep the appends in flight (every acknowledged write back with its last value,
 * nothing never written), a write-only run keeps a bounded number of log zones, and bad
 * combinations are refused.
 */
class WaltzRocksDbTest {
  /** 6 MiB zones, 14 active: the log's zone and two spares beside a flush and a compaction. */
  static final DeviceGeometry GEOMETRY = DeviceGeometry.of(40, 8L << 20, 6L << 20, 14, 14, 1 << 20);

  @TempDir Path dir;

  static ZonedEnvOptions envOptions() {
    return ZonedEnvOptions.builder().wal(WalOptions.builder().reservedZones(0).build()).build();
  }

  static ZkvOptions waltz() {
    return TestDevices.small().toBuilder().walMode(WalMode.WALTZ).build();
  }

  private String device(String name) throws Exception {
    Path f = dir.resolve(name + ".zkvemu");
    EmulatedDevice.format(f, GEOMETRY);
    return EmulatedDevice.uri(f, "instant", "wcache=1");
  }

  /** What one writer thread did to its own keys: acknowledged values, and the one in flight. */
  static final class Writer {
    final int id;
    final ConcurrentHashMap<Integer, byte[]> acked =
        new ConcurrentHashMap<>(); // null value: deleted
    final ConcurrentHashMap<Integer, Boolean> deleted = new ConcurrentHashMap<>();
    volatile int inFlightKey = -1;
    volatile byte[] inFlightValue; // null: a delete
    volatile Throwable failure;

    Writer(int id) {
      this.id = id;
    }

    byte[] key(int k) {
      return b("w" + id + "-k" + k);
    }
  }

  private static void runWriter(ZkvDb db, Writer w, long seed, AtomicInteger progress) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed * 31 + w.id);
    try {
      for (int n = 0; ; n++) {
        int k = r.nextInt(300);
        byte[] v = null;
        if (r.nextInt(10) != 0) {
          v = new byte[50 + r.nextInt(3000)];
          r.nextBytes(v);
        }
        w.inFlightKey = k;
        w.inFlightValue = v;
        if (v == null) {
          db.delete(w.key(k));
        } else if (r.nextInt(5) == 0) {
          db.write(new ZkvBatch().put(w.key(k), v).delete(w.key(k + 1000)));
        } else {
          db.put(w.key(k), v);
        }
        if (v == null) {
          w.acked.remove(k);
          w.deleted.put(k, true);
        } else {
          w.acked.put(k, v);
          w.deleted.remove(k);
        }
        w.inFlightKey = -1;
        progress.incrementAndGet();
      }
    } catch (ZkvException | IllegalStateException stopped) {
      // the power cut: this write may or may not have landed
    } catch (Throwable t) {
      w.failure = t;
    }
  }

  /**
   * Cycles of four writers cut by a power loss at a random point: after each, every acknowledged
   * write is back with its last value; the one write per thread in flight may be either way. {@code
   * -Dzkv.test.waltzCuts=N} runs N cycles (default 6; the campaign in docs/wal.md ran 200).
   */
  @Test
  void everyAcknowledgedWriteSurvivesPowerCutsWithFourWriters() throws Exception {
    String uri = device("cuts");
    long seed = Long.getLong("zkv.test.seed", System.nanoTime() % 100_000);
    System.out.println(
        "WaltzRocksDbTest power cuts: seed "
            + seed
            + ", "
            + Integer.getInteger("zkv.test.waltzCuts", 6)
            + " cycles");
    List<Writer> writers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      writers.add(new Writer(t));
    }
    boolean format = true;
    int cycles = Integer.getInteger("zkv.test.waltzCuts", 6);
    int pastAMark = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
      long s = seed + cycle;
      FaultInjector.PowerCut mode =
          cycle % 2 == 0 ? FaultInjector.PowerCut.RANDOM : FaultInjector.PowerCut.DROP_ALL;
      try (ZonedDevice dev = ZonedDevice.open(uri)) {
        ZonedEnv env =
            ZonedEnv.open(dev, format ? ZonedEnv.Mode.FORMAT : ZonedEnv.Mode.MOUNT, envOptions());
        format = false;
        ZkvDb db = ZkvDb.open(env, "/waltz", waltz());
        verify(db, writers, "cycle " + cycle + " seed " + s);
        if (db.waltzRecovery().orElseThrow().flushedThrough() > 0) {
          pastAMark++;
        }
        AtomicInteger progress = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (Writer w : writers) {
          Thread th = new Thread(() -> runWriter(db, w, s, progress));
          threads.add(th);
          th.start();
        }
        int target = 500 + (int) (s % 1500); // past several zone switches and flushes
        long until = System.nanoTime() + 120_000_000_000L;
        while (progress.get() < target && System.nanoTime() < until) {
          Thread.sleep(1);
        }
        assertTrue(progress.get() >= target, "writers stalled at " + progress.get());
        dev.faults().powerCut(mode, s);
        for (Thread th : threads) {
          th.join();
        }
        for (Writer w : writers) {
          assertNull(w.failure, () -> "writer " + w.id + ": " + w.failure);
        }
        try {
          db.close();
        } catch (ZkvException expected) {
          // its flush cannot write any more
        }
        env.close();
      }
    }
    System.out.println(
        "WaltzRocksDbTest power cuts: "
            + pastAMark
            + " of "
            + cycles
            + " recoveries found a flushed-through mark (the records up to it skipped)");
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions());
        ZkvDb db = ZkvDb.open(env, "/waltz", waltz())) {
      verify(db, writers, "last open, seed " + seed);
      assertTrue(
          db.waltzRecovery().orElseThrow().problems().stream()
              .noneMatch(p -> p.contains("database id")));
    }
  }

  /**
   * Each key holds its last acknowledged value, or the value of the write in flight at the cut
   * (which then becomes the acknowledged one: the next cycle must see it again).
   */
  private static void verify(ZkvDb db, List<Writer> writers, String what) {
    for (Writer w : writers) {
      for (int k = 0; k < 300; k++) {
        byte[] got = db.get(w.key(k));
        byte[] want = w.acked.get(k);
        if (k == w.inFlightKey) {
          byte[] maybe = w.inFlightValue;
          if (Arrays.equals(got, maybe)) {
            if (maybe == null) {
              w.acked.remove(k);
            } else {
              w.acked.put(k, maybe);
            }
            continue;
          }
        }
        assertArrayEquals(want, got, what + ": writer " + w.id + " key " + k);
      }
      w.inFlightKey = -1;
    }
  }

  /**
   * SIGKILL cycles: a child JVM's four writers ({@link WaltzKillWorkload}) are killed at a random
   * point; every write acknowledged before is back with its last value, each key's one write in
   * flight may be either way, and nothing else appears. {@code -Dzkv.test.waltzKills=N} runs N
   * cycles (default 4).
   */
  @Test
  void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
    String uri = device("kill");
    long seed = Long.getLong("zkv.test.seed", System.nanoTime() % 100_000);
    int cycles = Integer.getInteger("zkv.test.waltzKills", 4);
    System.out.println("WaltzRocksDbTest SIGKILL cycles: seed " + seed + ", " + cycles + " cycles");
    java.util.Map<Integer, long[]> acked = new java.util.HashMap<>(); // key: {version, deleted}
    java.util.Map<Integer, long[]> tried = new java.util.HashMap<>(); // in flight at the kill
    long firstVersion = 1;
    for (int cycle = 0; cycle < cycles; cycle++) {
      long s = seed + cycle;
      Path err = dir.resolve("child-" + cycle + ".err");
      // The child's lines go to a file, not a pipe: a pipe's last lines can be lost when the
      // JVM that reads it sees the child exit (the stream is drained and closed under the reader)
      Path out = dir.resolve("child-" + cycle + ".out");
      Process child =
          new ProcessBuilder(
                  ChildJvm.command(
                      dir,
                      List.of(),
                      WaltzKillWorkload.class,
                      uri,
                      Long.toString(s),
                      Long.toString(firstVersion)))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      int target = 300 + (int) (s % 1200);
      long until = System.nanoTime() + 120_000_000_000L;
      while (child.isAlive() && System.nanoTime() < until && acksIn(out) < target) {
        Thread.sleep(20);
      }
      child.destroyForcibly(); // SIGKILL
      child.waitFor();
      String text = java.nio.file.Files.readString(out);
      // a line the kill cut short announced nothing that started
      List<String> lines = new ArrayList<>(text.lines().toList());
      if (!text.isEmpty() && !text.endsWith("\n")) {
        lines.remove(lines.size() - 1);
      }
      int acks = 0;
      for (String line : lines) {
        String[] p = line.split(" ");
        if (p.length < 3) {
          continue;
        }
        int k = Integer.parseInt(p[1]);
        long[] w = {Long.parseLong(p[2]), p.length > 3 ? 1 : 0};
        if (p[0].equals("try")) {
          tried.put(k, w);
        } else if (p[0].equals("ack")) {
          acked.put(k, w);
          tried.remove(k);
          acks++;
        }
      }
      assertTrue(
          acks >= target,
          "cycle "
              + cycle
              + ": "
              + acks
              + " acks; child's stderr: "
              + java.nio.file.Files.readString(err));
      try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions());
          ZkvDb db = ZkvDb.open(env, WaltzKillWorkload.DB, waltz())) {
        String what = "cycle " + cycle + " seed " + s;
        for (int k = 0; k < WaltzKillWorkload.WRITERS * WaltzKillWorkload.KEYS_PER_WRITER; k++) {
          byte[] got = db.get(WaltzKillWorkload.key(k));
          long[] a = acked.get(k);
          long[] t = tried.get(k);
          if (got == null) {
            if (t != null && t[1] == 1 && (a == null || a[1] == 0)) {
              acked.put(k, t); // the delete in flight landed
            } else {
              int key = k;
              assertTrue(
                  a == null || a[1] == 1,
                  () -> what + ": key " + key + " lost its value " + a[0] + diagnose(db, key));
            }
            continue;
          }
          long v = WaltzKillWorkload.versionOf(k, got);
          if (t != null && t[1] == 0 && v == t[0]) {
            acked.put(k, t); // the write in flight landed
            continue;
          }
          int key = k;
          assertTrue(
              a != null && a[1] == 0,
              () ->
                  what
                      + ": key "
                      + key
                      + " has version "
                      + v
                      + ", never acknowledged"
                      + diagnose(db, key));
          assertEquals(a[0], v, () -> what + ": key " + key + diagnose(db, key));
        }
      }
      tried.clear();
      firstVersion += 1_000_000_000L;
    }
  }

  /** Acknowledgements in the child's output so far. */
  private static int acksIn(Path out) throws java.io.IOException {
    if (!java.nio.file.Files.exists(out)) {
      return 0;
    }
    int n = 0;
    for (String line : java.nio.file.Files.readAllLines(out)) {
      n += line.startsWith("ack ") ? 1 : 0;
    }
    return n;
  }

  /** What recovery found of a key: its records (sequence, version or delete), and the problems. */
  private static String diagnose(ZkvDb db, int key) {
    io.zkv.waltz.WaltzRecovery.Result r = db.waltzRecovery().orElseThrow();
    StringBuilder b =
        new StringBuilder(
            "; recovery: "
                + r.records().size()
                + " records in "
                + r.zones()
                + " zones, problems "
                + r.problems()
                + ", zero blocks "
                + r.zeroBlocks()
                + "; records of the key:");
    byte[] k = WaltzKillWorkload.key(key);
    for (io.zkv.waltz.WaltzRecovery.Record rec : r.records()) {
      for (io.zkv.waltz.WaltzOp op : rec.ops()) {
        if (Arrays.equals(op.a(), k)) {
          b.append(" seq ")
              .append(rec.seq())
              .append(op.b() == null ? " delete" : " v" + WaltzKillWorkload.versionOf(key, op.b()));
        }
      }
    }
    return b.toString();
  }

  /**
   * A write-only run whose log (60,000 one-block records, 245 MB) is larger than the device (37
   * data zones of 6 MiB, 222 MiB): it completes only if the log gives zones back as flushes catch
   * up; at the end, flushed, every zone it left goes back.
   */
  @Test
  void aLongWriteOnlyRunKeepsABoundedNumberOfLogZones() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(device("long"), ZonedEnv.Mode.FORMAT, envOptions());
        ZkvDb db = ZkvDb.open(env, "/waltz", waltz())) {
      byte[] v = new byte[3000];
      int records = 60_000;
      int maxHeld = 0;
      for (int i = 0; i < records; i++) {
        Arrays.fill(v, (byte) i);
        db.put(b("key" + (i % 2000)), v);
        if (i % 500 == 0) {
          maxHeld = Math.max(maxHeld, db.waltzStats().orElseThrow().zonesHeld());
        }
      }
      db.flush();
      WaltzLog.Stats s = db.waltzStats().orElseThrow();
      for (int ms = 0; s.releases() < s.switches() && ms < 60_000; ms += 10) {
        Thread.sleep(10); // the manager gives zones back in its rounds
        s = db.waltzStats().orElseThrow();
      }
      assertEquals(records, s.appends());
      assertTrue(s.switches() >= 37, s.toString()); // more zones than the device has
      assertEquals(s.switches(), s.releases(), s.toString());
      System.out.println("WaltzRocksDbTest long run: log zones held at most " + maxHeld + ", " + s);
      Arrays.fill(v, (byte) (records - 1));
      assertArrayEquals(v, db.get(b("key" + ((records - 1) % 2000))));
    }
  }

  /**
   * A clean close gives the zones back but the reserve (one empty zone); a reopen finds none to
   * replay and the data in SSTs; a database opened without WALTZ gives the reserve back.
   */
  @Test
  void aCleanCloseLeavesNothingToReplay() throws Exception {
    String uri = device("clean");
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, envOptions())) {
      try (ZkvDb db = ZkvDb.open(env, "/waltz", waltz())) {
        db.put(b("a"), b("1"));
        db.deleteRange(b("a"), b("b"));
        db.put(b("a2"), b("2"));
        db.syncWal(); // a no-op: every write is durable already
      }
      long owner = WaltzMode.ownerOf("/waltz");
      int[] kept = env.zoneFs().leasedZones(owner); // the reserve: one empty zone
      assertEquals(1, kept.length);
      assertEquals(0, env.zoneFs().leaseWritten(owner, kept[0]));
      try (ZkvDb db = ZkvDb.open(env, "/waltz", waltz())) {
        assertEquals(0, db.waltzRecovery().orElseThrow().zones());
        assertNull(db.get(b("a")));
        assertArrayEquals(b("2"), db.get(b("a2")));
      }
      ZkvDb.destroy(env, "/waltz");
      assertEquals(0, env.zoneFs().leasedZones(owner).length);
      // Opened without WALTZ after a clean close: the reserve goes back, nothing to replay.
      try (ZkvDb db = ZkvDb.open(env, "/other", waltz())) {
        db.put(b("x"), b("1"));
      }
      assertEquals(1, env.zoneFs().leasedZones(WaltzMode.ownerOf("/other")).length);
      try (ZkvDb db = ZkvDb.open(env, "/other", TestDevices.small())) {
        assertArrayEquals(b("1"), db.get(b("x")));
      }
      assertEquals(0, env.zoneFs().leasedZones(WaltzMode.ownerOf("/other")).length);
    }
  }

  interface DbWork {
    void run(ZkvDb db) throws Exception;
  }

  /**
   * Formats a device, does {@code work} on a WALTZ database there, then cuts the power: what is in
   * the log and the memtable only is then in the log only. Returns the device's URI.
   */
  private String crashAfter(String name, long seed, DbWork work) throws Exception {
    String uri = device(name);
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      ZonedEnv env = ZonedEnv.open(dev, ZonedEnv.Mode.FORMAT, envOptions());
      ZkvDb db = ZkvDb.open(env, "/waltz", waltz());
      work.run(db);
      dev.faults().powerCut(FaultInjector.PowerCut.DROP_ALL, seed);
      assertThrows(ZkvException.class, db::close);
      env.close();
    }
    return uri;
  }

  /** A crash leaves the log's zones: opening without WALTZ would drop them, so it is refused. */
  @Test
  void aDatabaseWithALogLeftOpensInWaltzModeOnly() throws Exception {
    String uri = crashAfter("left", 1, db -> db.put(b("k"), b("v")));
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions())) {
      IllegalStateException e =
          assertThrows(
              IllegalStateException.class, () -> ZkvDb.open(env, "/waltz", TestDevices.small()));
      assertTrue(e.getMessage().contains("WALTZ log of 1 zone(s) not replayed"), e.getMessage());
      try (ZkvDb db = ZkvDb.open(env, "/waltz", waltz())) {
        assertArrayEquals(b("v"), db.get(b("k")));
        assertEquals(1, db.waltzRecovery().orElseThrow().records().size());
      }
      try (ZkvDb db = ZkvDb.open(env, "/waltz", TestDevices.small())) { // replayed: now it may
        assertArrayEquals(b("v"), db.get(b("k")));
      }
    }
  }

  /**
   * A range whose end comes before its start is refused before it is logged (RocksDB would refuse
   * it, then its later writes too: facebook/rocksdb#8239), in a batch as well; writes go on, and a
   * crash's replay brings back exactly the acknowledged ones.
   */
  @Test
  void anInvertedRangeIsRefusedBeforeItIsLogged() throws Exception {
    String uri =
        crashAfter(
            "refused",
            3,
            db -> {
              db.put(b("a"), b("1"));
              assertThrows(IllegalArgumentException.class, () -> db.deleteRange(b("z"), b("b")));
              assertThrows(
                  IllegalArgumentException.class, () -> new ZkvBatch().deleteRange(b("z"), b("b")));
              db.put(b("c"), b("3"));
              db.deleteRange(b("c"), b("d"));
              db.deleteRange(b("e"), b("e")); // empty: deletes nothing
              db.put(b("e"), b("5"));
            });
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions());
        ZkvDb db = ZkvDb.open(env, "/waltz", waltz())) {
      assertEquals(5, db.waltzRecovery().orElseThrow().records().size());
      assertArrayEquals(b("1"), db.get(b("a")));
      assertNull(db.get(b("c")));
      assertArrayEquals(b("5"), db.get(b("e")));
    }
  }

  @Test
  void badCombinationsAreRefused() throws Exception {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ZkvOptions.builder().walMode(WalMode.WALTZ).disableWal(true).build());
    assertTrue(e.getMessage().contains("disableWal"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> WalOptions.builder().mode(WalMode.WALTZ));
    assertTrue(e.getMessage().contains("per database"), e.getMessage());
    // 6 active zones leave the file system 4: the log's two, the env's two reserved WAL zones and
    // a flush and a compaction do not fit
    DeviceGeometry six = DeviceGeometry.of(16, 8L << 20, 6L << 20, 6, 6, 1 << 20);
    String uri = TestDevices.format(dir, "six", six);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      e = assertThrows(IllegalArgumentException.class, () -> ZkvDb.open(env, "/w", waltz()));
      assertTrue(e.getMessage().contains("reservedZones(0)"), e.getMessage());
      e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  ZkvDb.open(
                      env, "/w", TestDevices.small().toBuilder().walMode(WalMode.ZWAL).build()));
      assertTrue(e.getMessage().contains("mounted with FILE"), e.getMessage());
    }
    // without the env's reserved WAL zones the log fits, with one spare
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions());
        ZkvDb db = ZkvDb.open(env, "/w", waltz())) {
      db.put(b("k"), b("v"));
      assertEquals(1 + 1, db.waltzStats().orElseThrow().zonesHeld());
    }
  }
}
