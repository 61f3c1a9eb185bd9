package io.zkv;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.FaultInjector;
import io.zkv.device.ZonedDevice;
import io.zkv.wal.WalMode;
import io.zkv.wal.WalOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * WALTZ on small devices (issue 42): fill-and-overwrite cycles of 3-4 writers ended by SIGKILL or a
 * power cut, on geometries of a few dozen 4 MiB zones with a capacity below the zone size and an
 * active limit. After every cycle the database reopens, every acknowledged write is there with its
 * last value (the one write per key in flight either way), and no write failed for want of space
 * while the file system held more than one zone of reclaimable garbage ("never NoSpace while space
 * can be reclaimed", for the log's leases as for data writers).
 *
 * <p>{@code -Dzkv.test.waltzSmallKills=N} and {@code -Dzkv.test.waltzSmallCuts=N} set the cycles
 * per geometry (default 3 and 3; the acceptance campaign of issue 42 ran 50 and 30).
 */
class WaltzSmallDeviceTest {
  @TempDir Path dir;

  /** One small device: its geometry, writers, and whether the env keeps its default options. */
  record Setup(String name, DeviceGeometry geometry, int writers, boolean defaultEnv) {
    @Override
    public String toString() {
      return name;
    }

    /**
     * Keys per writer for a live set of {@link #LIVE_SHARE} of the data zones' capacity (values
     * average half of {@link #MAX_VALUE}): RocksDB's copies beside it, the log's zones and the
     * garbage of every overwrite then make the file system collect, and the log's leases compete
     * with the flushes for room.
     */
    int keysPerWriter() {
      long data = (long) (geometry.zoneCount() - 3) * geometry.zoneCapacity();
      return (int) (data * LIVE_SHARE / 100 / writers / (MAX_VALUE / 2 + 12));
    }
  }

  /** The setups, or those whose name contains {@code -Dzkv.test.waltzSmallSetup}. */
  static Stream<Arguments> setups() {
    String only = System.getProperty("zkv.test.waltzSmallSetup", "");
    return allSetups().filter(a -> ((Setup) a.get()[0]).name().contains(only));
  }

  private static Stream<Arguments> allSetups() {
    return Stream.of(
        // 24 zones of 4 MiB, 3 MiB capacity, 8 active: 63 MiB of data zones
        Arguments.of(new Setup("24x4M-cap3M-active8", g(24, 4, 3, 8), 3, false)),
        // 32 zones, 14 active, the env's default options (two reserved WAL zones it keeps)
        Arguments.of(new Setup("32x4M-cap3M-active14", g(32, 4, 3, 14), 4, true)),
        // capacity equal to the zone size
        Arguments.of(new Setup("40x4M-cap4M-active10", g(40, 4, 4, 10), 4, false)));
  }

  private static DeviceGeometry g(int zones, int sizeMib, int capMib, int active) {
    return DeviceGeometry.of(
        zones, (long) sizeMib << 20, (long) capMib << 20, active, active, 1 << 20);
  }

  static ZonedEnvOptions envOptions(boolean defaultEnv) {
    return defaultEnv
        ? ZonedEnvOptions.builder().build()
        : ZonedEnvOptions.builder().wal(WalOptions.builder().reservedZones(0).build()).build();
  }

  static ZkvOptions options() {
    return TestDevices.small().toBuilder().walMode(WalMode.WALTZ).build();
  }

  static final int MAX_VALUE = 6000;
  static final int LIVE_SHARE = 25; // percent

  private String device(Setup s, String what) throws Exception {
    Path f = dir.resolve(s.name() + "-" + what + ".zkvemu");
    EmulatedDevice.format(f, s.geometry());
    return EmulatedDevice.uri(f, "instant", "wcache=1");
  }

  /** What the cycles saw, for the summary line and the checks. */
  static final class Tally {
    int cycles;
    int reopens;
    long acks;
    int allowedNoSpace; // reclaimable at most one zone: the device was full
    final List<String> wrongNoSpace = new ArrayList<>();
    final List<String> firstNoSpace = new ArrayList<>(); // the first few, for the summary
    // the file system's counters, summed over the mounts whose last counts were seen
    long gcRuns;
    long gcZones;
    long leaseCollections;
    long gcRoundsForRoom;

    void add(String statsLine) {
      String[] p = statsLine.split(" ");
      gcRuns += Long.parseLong(p[1]);
      gcZones += Long.parseLong(p[2]);
      leaseCollections += Long.parseLong(p[3]);
      gcRoundsForRoom += Long.parseLong(p[4]);
    }
  }

  /** "stats gcRuns gcZones leaseCollections gcRoundsForRoom" of a mount, since it mounted. */
  static String statsLine(ZonedEnv env) {
    io.zkv.fs.ZoneStats s = env.stats();
    return "stats "
        + s.gcRuns()
        + " "
        + s.gcZones()
        + " "
        + s.leaseCollections()
        + " "
        + s.gcRoundsForRoom();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void sigkillCyclesNeverFailForSpaceWhileGarbageCanBeReclaimed(Setup setup) throws Exception {
    int cycles = Integer.getInteger("zkv.test.waltzSmallKills", 3);
    long seed = Long.getLong("zkv.test.seed", System.nanoTime() % 100_000);
    String uri = device(setup, "kill");
    Ledger ledger = new Ledger();
    Tally tally = new Tally();
    long firstVersion = 1;
    for (int cycle = 0; cycle < cycles; cycle++) {
      long s = seed + cycle;
      String what = setup + " kill cycle " + cycle + " seed " + s;
      Path out = dir.resolve("child-" + cycle + ".out");
      Path err = dir.resolve("child-" + cycle + ".err");
      Process child =
          new ProcessBuilder(
                  ChildJvm.command(
                      dir,
                      List.of(),
                      WaltzFillWorkload.class,
                      uri,
                      Long.toString(s),
                      Long.toString(firstVersion),
                      Integer.toString(setup.writers()),
                      Integer.toString(setup.keysPerWriter()),
                      Integer.toString(MAX_VALUE),
                      setup.defaultEnv() ? "1" : "0"))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      int target = 500 + (int) (s % 2500);
      long until = System.nanoTime() + 180_000_000_000L;
      while (child.isAlive() && System.nanoTime() < until && acksIn(out) < target) {
        Thread.sleep(20);
      }
      if (child.isAlive() && acksIn(out) < target) { // stalled: its threads' stacks into its output
        new ProcessBuilder("kill", "-QUIT", Long.toString(child.pid())).start().waitFor();
        Thread.sleep(2000);
      }
      child.destroyForcibly(); // SIGKILL
      child.waitFor();
      String text = Files.readString(out);
      List<String> lines = new ArrayList<>(text.lines().toList());
      if (!text.isEmpty() && !text.endsWith("\n")) {
        lines.remove(lines.size() - 1); // cut short by the kill
      }
      int acks = ledger.read(lines, tally, what);
      lines.stream().filter(l -> l.startsWith("stats ")).reduce((a, b) -> b).ifPresent(tally::add);
      assertTrue(
          acks >= target,
          what
              + ": "
              + acks
              + " acks; child's stderr: "
              + Files.readString(err)
              + "; its output's last lines:\n"
              + String.join("\n", lines.subList(Math.max(0, lines.size() - 400), lines.size())));
      reopenAndVerify(uri, setup, ledger, what, tally);
      firstVersion += 1_000_000_000L;
      tally.cycles++;
    }
    report(setup, "SIGKILL", seed, tally);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("setups")
  void powerCutCyclesNeverFailForSpaceWhileGarbageCanBeReclaimed(Setup setup) throws Exception {
    int cycles = Integer.getInteger("zkv.test.waltzSmallCuts", 3);
    long seed = Long.getLong("zkv.test.seed", System.nanoTime() % 100_000);
    String uri = device(setup, "cut");
    Ledger ledger = new Ledger();
    Tally tally = new Tally();
    long firstVersion = 1;
    for (int cycle = 0; cycle < cycles; cycle++) {
      long s = seed + cycle;
      String what = setup + " power-cut cycle " + cycle + " seed " + s;
      FaultInjector.PowerCut mode =
          cycle % 2 == 0 ? FaultInjector.PowerCut.RANDOM : FaultInjector.PowerCut.DROP_ALL;
      AtomicInteger progress = new AtomicInteger();
      AtomicBoolean cut = new AtomicBoolean();
      List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
      try (ZonedDevice dev = ZonedDevice.open(uri)) {
        ZonedEnv env;
        ZkvDb db;
        try {
          ZonedEnv.Mode m = cycle == 0 ? ZonedEnv.Mode.FORMAT : ZonedEnv.Mode.MOUNT;
          env = ZonedEnv.open(dev, m, envOptions(setup.defaultEnv()));
          db = ZkvDb.open(env, WaltzFillWorkload.DB, options());
        } catch (RuntimeException e) {
          throw new AssertionError(what + ": the reopen failed: " + e, e);
        }
        List<Thread> threads = new ArrayList<>();
        long fv = firstVersion;
        WaltzFillWorkload.Sampler sampler =
            WaltzFillWorkload.Sampler.start(env, WaltzFillWorkload.DB);
        for (int w = 0; w < setup.writers(); w++) {
          int writer = w;
          Thread t =
              new Thread(
                  () -> write(db, env, setup, writer, s, fv, events, progress, cut, sampler));
          threads.add(t);
          t.start();
        }
        int target = 500 + (int) (s % 2500);
        long until = System.nanoTime() + 180_000_000_000L;
        while (progress.get() < target && System.nanoTime() < until) {
          Thread.sleep(5);
        }
        String stalled =
            progress.get() < target ? describe(env) + "\n" + threadDump() + nativeStacks() : "";
        tally.add(statsLine(env));
        cut.set(true); // a NoSpace from here on may be the cut's
        sampler.stop();
        dev.faults().powerCut(mode, s);
        for (Thread t : threads) {
          t.join();
        }
        try {
          db.close();
        } catch (ZkvException expected) {
          // its flush cannot write any more
        }
        env.close();
        int acks;
        synchronized (events) {
          acks = ledger.read(events, tally, what);
        }
        assertTrue(acks >= target, what + ": writers stalled at " + acks + " acks\n" + stalled);
      }
      reopenAndVerify(uri, setup, ledger, what, tally);
      firstVersion += 1_000_000_000L;
      tally.cycles++;
    }
    report(setup, "power cut", seed, tally);
  }

  /** One in-process writer of a power-cut cycle: the child's loop, its lines into events. */
  private static void write(
      ZkvDb db,
      ZonedEnv env,
      Setup setup,
      int writer,
      long seed,
      long firstVersion,
      List<String> events,
      AtomicInteger progress,
      AtomicBoolean cut,
      WaltzFillWorkload.Sampler sampler) {
    WaltzFillWorkload.Writes writes =
        new WaltzFillWorkload.Writes(
            seed, writer, setup.writers(), setup.keysPerWriter(), MAX_VALUE, firstVersion);
    for (; ; ) {
      String tail = writes.next();
      events.add("try" + tail);
      long before = sampler.last();
      try {
        writes.apply(db);
      } catch (ZkvNoSpaceException e) {
        if (cut.get()) {
          return; // the power is gone: nothing to measure
        }
        long reclaimable =
            Math.min(before, WaltzFillWorkload.reclaimable(env, WaltzFillWorkload.DB));
        if (DESCRIBED.compareAndSet(false, true)) {
          events.add(describe(env) + "; log " + db.waltzStats().map(Object::toString).orElse(""));
        }
        events.add(
            "nospace"
                + tail.replace(" D", "")
                + " "
                + reclaimable
                + " "
                + env.geometry().zoneCapacity()
                + " "
                + e.getMessage());
        WaltzFillWorkload.resumeQuietly(db);
        sleepQuietly(50);
        continue;
      } catch (ZkvException | IllegalStateException stopped) {
        return; // the power cut: this write may or may not have landed
      } catch (Throwable t) {
        events.add("error" + tail.replace(" D", "") + " " + t);
        return;
      }
      events.add("ack" + tail);
      progress.incrementAndGet();
    }
  }

  /**
   * Each key's last acknowledged write ({version, deleted}), and the writes to it since that may or
   * may not have landed: the one in flight at the end of a cycle, and any that failed (a record in
   * the log whose apply failed is replayed by the next open).
   */
  static final class Ledger {
    static final java.util.Set<String> WORKLOAD_LINES =
        java.util.Set.of("try", "ack", "nospace", "error");

    final Map<Integer, long[]> acked = new HashMap<>();
    final Map<Integer, List<long[]>> maybe = new HashMap<>();

    /** Applies a cycle's lines ("try", "ack", "nospace", "error"); returns the acks. */
    int read(List<String> lines, Tally tally, String what) {
      int acks = 0;
      for (String line : lines) {
        String[] p = line.split(" ");
        if (p[0].equals("zones")) { // the zones at a NoSpace (describe)
          if (tally.firstNoSpace.size() < 4) {
            tally.firstNoSpace.add(line);
          }
          continue;
        }
        if (p.length < 3 || !WORKLOAD_LINES.contains(p[0])) {
          continue; // stats, or a thread dump the stall asked for
        }
        int k = Integer.parseInt(p[1]);
        long[] w = {Long.parseLong(p[2]), p.length > 3 && p[3].equals("D") ? 1 : 0};
        switch (p[0]) {
          case "try" -> maybe.computeIfAbsent(k, x -> new ArrayList<>()).add(w);
          case "ack" -> {
            acked.put(k, w);
            maybe.remove(k);
            acks++;
          }
          case "nospace" -> {
            if (tally.firstNoSpace.size() < 3) {
              tally.firstNoSpace.add(what + ": " + line);
            }
            if (Long.parseLong(p[3]) > Long.parseLong(p[4])) {
              tally.wrongNoSpace.add(what + ": " + line);
            } else {
              tally.allowedNoSpace++;
            }
          }
          case "error" -> fail(what + ": " + line);
          default -> {}
        }
      }
      tally.acks += acks;
      return acks;
    }

    /** Checks a key's value read back; a write that may have landed and did becomes the last. */
    void check(int k, byte[] got, String what) {
      long[] a = acked.get(k);
      for (long[] m : maybe.getOrDefault(k, List.of())) {
        boolean landed =
            got == null ? m[1] == 1 : m[1] == 0 && WaltzKillWorkload.versionOf(k, got) == m[0];
        if (landed && (a == null || m[0] >= a[0] || got == null)) {
          a = m;
        }
      }
      if (got == null) {
        long[] last = a;
        assertTrue(last == null || last[1] == 1, () -> what + ": key " + k + " lost " + last[0]);
      } else {
        long v = WaltzKillWorkload.versionOf(k, got);
        long[] last = a;
        assertTrue(
            last != null && last[1] == 0 && last[0] == v,
            () ->
                what
                    + ": key "
                    + k
                    + " has version "
                    + v
                    + ", the last acknowledged is "
                    + (last == null ? "none" : last[0] + (last[1] == 1 ? " (delete)" : "")));
      }
      if (a != null) {
        acked.put(k, a);
      }
      maybe.remove(k);
    }
  }

  /**
   * Mounts the device and opens the database (both must succeed: a reopen never fails for want of a
   * zone while space can be reclaimed), then checks every key: its last acknowledged value, or the
   * write in flight at the end of the cycle (which then counts as acknowledged).
   */
  private static void reopenAndVerify(
      String uri, Setup setup, Ledger ledger, String what, Tally tally) {
    ZonedEnv env;
    try {
      env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions(setup.defaultEnv()));
    } catch (RuntimeException e) {
      throw new AssertionError(what + ": the mount failed: " + e, e);
    }
    try (env) {
      ZkvDb db;
      try {
        db = ZkvDb.open(env, WaltzFillWorkload.DB, options());
      } catch (RuntimeException e) {
        keepImage(uri, what);
        throw new AssertionError(
            what
                + ": the reopen failed ("
                + WaltzFillWorkload.reclaimable(env, WaltzFillWorkload.DB)
                + " bytes reclaimable): "
                + e
                + "\n"
                + describe(env),
            e);
      }
      tally.reopens++;
      try (db) {
        for (int k = 0; k < setup.writers() * setup.keysPerWriter(); k++) {
          ledger.check(k, db.get(WaltzKillWorkload.key(k)), what);
        }
      }
      tally.add(statsLine(env));
    }
  }

  private static final java.util.concurrent.atomic.AtomicBoolean DESCRIBED =
      new java.util.concurrent.atomic.AtomicBoolean();

  /**
   * Copies the device image of a failed cycle to {@code -Dzkv.test.keepImages=DIR} (if set), for
   * {@code zkv df} and a reopen by hand.
   */
  static void keepImage(String uri, String what) {
    String to = System.getProperty("zkv.test.keepImages");
    if (to == null) {
      return;
    }
    try {
      Path file = Path.of(uri.substring("emu:".length()).replaceFirst("\\?.*$", ""));
      Path dest = Path.of(to, what.replaceAll("[^A-Za-z0-9]+", "-") + ".zkvemu");
      Files.createDirectories(dest.getParent());
      Files.copy(file, dest, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      System.out.println("kept the device image of " + what + " as " + dest);
    } catch (java.io.IOException | RuntimeException e) {
      System.out.println("could not keep the device image of " + what + ": " + e);
    }
  }

  /**
   * Every native thread's stack of this JVM (gdb, where installed), for a stall inside RocksDB or
   * the file system: the Java stacks end at the native call.
   */
  static String nativeStacks() {
    try {
      Process p =
          new ProcessBuilder(
                  "gdb",
                  "-p",
                  Long.toString(ProcessHandle.current().pid()),
                  "-batch",
                  "-ex",
                  "thread apply all bt 30")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor();
      java.nio.file.Path f = java.nio.file.Files.createTempFile("waltz-stall-", ".txt");
      java.nio.file.Files.writeString(f, out);
      return "\nnative stacks in " + f;
    } catch (java.io.IOException | InterruptedException | RuntimeException e) {
      return "\n(no native stacks: " + e + ")";
    }
  }

  /** Every thread's stack, for a stall's failure message. */
  static String threadDump() {
    StringBuilder b = new StringBuilder();
    for (var e : Thread.getAllStackTraces().entrySet()) {
      b.append("\n\"").append(e.getKey().getName()).append("\" ").append(e.getKey().getState());
      for (StackTraceElement f : e.getValue()) {
        b.append("\n    at ").append(f);
      }
    }
    return b.toString();
  }

  /** The zones as the file system sees them, and the log's leased ones: for failure messages. */
  static String describe(ZonedEnv env) {
    io.zkv.placement.ZoneTable t = env.zoneTable();
    java.util.Set<Integer> log = new java.util.HashSet<>();
    for (int z : env.zoneFs().leasedZones(WaltzMode.ownerOf(WaltzFillWorkload.DB))) {
      log.add(z);
    }
    StringBuilder b = new StringBuilder("zones (written/live KiB, condition, L: the log's):");
    for (int i = 0; i < t.zoneCount(); i++) {
      io.zkv.placement.ZoneInfo z = t.zone(i);
      b.append(
          String.format(
              " %d:%d/%d%s%s",
              i,
              z.written() >> 10,
              z.liveBytes() >> 10,
              z.condition().name().substring(0, 1),
              log.contains(i) ? "L" : ""));
    }
    io.zkv.fs.ZoneStats s = env.stats();
    return b + "; files " + s.files() + ", live " + (s.liveBytes() >> 10) + " KiB, " + s;
  }

  private static void report(Setup setup, String kind, long seed, Tally t) {
    System.out.println(
        "WaltzSmallDeviceTest "
            + setup
            + " "
            + kind
            + " cycles: seed "
            + seed
            + ", "
            + t.cycles
            + " cycles, "
            + t.reopens
            + " reopens, "
            + t.acks
            + " acknowledged writes, "
            + t.allowedNoSpace
            + " writes failed on a full device (at most a zone reclaimable), "
            + t.wrongNoSpace.size()
            + " while more could be reclaimed; GC runs "
            + t.gcRuns
            + " emptying "
            + t.gcZones
            + " zones, lease collections "
            + t.leaseCollections
            + ", GC rounds for the leases' room "
            + t.gcRoundsForRoom
            + " (counters of the mounts seen to their end)"
            + (t.firstNoSpace.isEmpty() ? "" : "; the first NoSpace: " + t.firstNoSpace));
    assertTrue(t.wrongNoSpace.isEmpty(), () -> String.join("\n", t.wrongNoSpace));
  }

  private static int acksIn(Path out) throws java.io.IOException {
    if (!Files.exists(out)) {
      return 0;
    }
    int n = 0;
    for (String line : Files.readAllLines(out)) {
      n += line.startsWith("ack ") ? 1 : 0;
    }
    return n;
  }

  private static void sleepQuietly(long ms) {
    WaltzFillWorkload.sleep(ms);
  }
}
