package io.zkv;

import static io.zkv.TestDevices.b;
import static io.zkv.TestDevices.s;
import static io.zkv.TestDevices.small;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.CazaPolicy;
import io.zkv.placement.GcTrigger;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.ZenFsGcTrigger;
import io.zkv.placement.ZoneKvPolicy;
import io.zkv.placement.ZoneTableView;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Placement policies are objects that go straight to the file system's allocation call-out. */
class PlacementPolicyObjectsTest {
  @TempDir Path dir;

  /**
   * LIZA with a finish threshold, counting the decisions it is asked for (public, with the implicit
   * public constructor: it can be named as {@code class:...}).
   */
  public static final class CountingLiza implements PlacementPolicy {
    final LizaPolicy liza = new LizaPolicy(25);
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public String name() {
      return "counting-liza";
    }

    @Override
    public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
      calls.incrementAndGet();
      return liza.allocate(request, zones);
    }
  }

  /**
   * The WAL reserve asks the policy from a background thread, so a call may be in flight while the
   * counts below are compared; these two tests count the writers' calls only (WalReserveRocksDbTest
   * covers the reserve's).
   */
  private static final io.zkv.wal.WalOptions NO_RESERVE =
      io.zkv.wal.WalOptions.builder().reservedZones(0).build();

  @Test
  void aUserPolicyDecidesEveryAllocation() throws Exception {
    CountingLiza policy = new CountingLiza();
    ZonedEnvOptions options = ZonedEnvOptions.builder().placement(policy).wal(NO_RESERVE).build();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT, options);
        ZkvDb db = ZkvDb.open(env, "/p", small())) {
      assertSame(policy, env.options().placement());
      for (int i = 0; i < 20_000; i++) {
        db.put(b("key" + i), new byte[200]);
      }
      db.flush();
      // a compaction the flush started allocates too: the counts compare once none runs (one
      // read during a call saw the policy's count a call ahead, 1 run in 20 on a loaded host)
      awaitCompactions(db);
      io.zkv.fs.ZoneStats s = env.stats();
      assertTrue(policy.calls.get() > 0, "the policy was never asked");
      // every call the policy answered is a decision the file system counted, and it overrode
      // none of them on this roomy device
      assertEquals(policy.calls.get(), s.policyDecisions());
      assertEquals(0, s.policyOverrides());
      assertArrayEquals(new byte[200], db.get(b("key19999")));
    }
  }

  /** LIZA that finds no zone for any SST (NoSpace), while the device has plenty of room. */
  static final class NoZoneForSsts implements PlacementPolicy {
    final LizaPolicy liza = new LizaPolicy();

    @Override
    public String name() {
      return "no-zone-for-ssts";
    }

    @Override
    public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
      return request.kind() == io.zkv.placement.FileKind.SST
          ? new Allocation.NoSpace(java.util.List.of(), "refuses SSTs")
          : liza.allocate(request, zones);
    }
  }

  @Test
  void withTheNoSpaceFallbackOffAPolicysNoSpaceReachesRocksDb() throws Exception {
    for (boolean fallback : new boolean[] {true, false}) {
      ZonedEnvOptions options =
          ZonedEnvOptions.builder()
              .placement(new NoZoneForSsts())
              .noSpaceFallback(fallback)
              .build();
      try (ZonedEnv env =
              ZonedEnv.open(
                  TestDevices.format(dir, "fallback-" + fallback, TestDevices.MEDIUM),
                  ZonedEnv.Mode.FORMAT,
                  options);
          ZkvDb db = ZkvDb.open(env, "/f", small())) {
        db.put(b("k"), b("v"));
        if (fallback) { // the safety rule writes the flush's SST into a zone with room, counted
          db.flush();
          assertTrue(
              env.stats().overrides().get(io.zkv.fs.PolicyOverride.NO_SPACE) >= 1,
              env.stats().toString());
        } else { // ZenFS's answer: the flush fails with NoSpace, nothing overridden
          assertThrows(ZkvNoSpaceException.class, db::flush);
          assertEquals(0L, env.stats().overrides().get(io.zkv.fs.PolicyOverride.NO_SPACE));
        }
        assertArrayEquals(b("v"), db.get(b("k")));
      }
    }
  }

  @Test
  void aDatabaseNamingAnotherPlacementThanItsEnvsIsRefused() throws Exception {
    ZonedEnvOptions options = ZonedEnvOptions.builder().placement(new CountingLiza()).build();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT, options)) {
      ZkvOptions asksForLiza = small().toBuilder().placement(Placement.LIZA).build();
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ZkvDb.open(env, "/q", asksForLiza));
      assertTrue(e.getMessage().contains("is mounted with counting-liza"), e.getMessage());
      // a database that names no placement takes the env's
      try (ZkvDb db = ZkvDb.open(env, "/q", small())) {
        db.put(b("k"), b("v"));
      }
    }
  }

  @Test
  void placementByNameIsThePolicyWithItsDefaults() {
    PlacementPolicy p = ZonedEnvOptions.builder().placement(Placement.LIZA).build().placement();
    assertTrue(p instanceof LizaPolicy liza && liza.finishThresholdPercent() == 0, p.toString());
    assertEquals(Placement.LIZA.policyName(), p.name());
    assertEquals("caza", Placement.CAZA.newPolicy().name());
    assertTrue(Placement.ZONEKV.newPolicy() instanceof ZoneKvPolicy);
  }

  @Test
  void aPolicyNamedByItsClassDecidesEveryAllocation() throws Exception {
    ZonedEnvOptions options =
        ZonedEnvOptions.builder()
            .placement("class:" + CountingLiza.class.getName())
            .wal(NO_RESERVE)
            .build();
    CountingLiza policy = (CountingLiza) options.placement();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT, options);
        ZkvDb db = ZkvDb.open(env, "/p", small())) {
      for (int i = 0; i < 5_000; i++) {
        db.put(b("key" + i), new byte[200]);
      }
      db.flush();
      awaitCompactions(db); // as above
      assertTrue(policy.calls.get() > 0, "the policy was never asked");
      assertEquals(policy.calls.get(), env.stats().policyDecisions());
    }
  }

  /**
   * CAZA on a real database: flushes and compactions with exact key ranges reach it, and the file
   * system carries out every decision it makes (none overridden on this roomy device).
   */
  @Test
  void cazaDecidesADatabasesAllocations() throws Exception {
    ZonedEnvOptions options = ZonedEnvOptions.builder().placement(new CazaPolicy(1L << 20)).build();
    ZkvOptions db =
        small().toBuilder()
            .rocksDbTuning(o -> o.setTargetFileSizeBase(1L << 20).setMaxBytesForLevelBase(4L << 20))
            .build();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT, options);
        ZkvDb d = ZkvDb.open(env, "/caza", db)) {
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 20_000; i++) {
          d.put(b("key" + ((i * 7919) % 20_000)), new byte[100 + round]);
        }
        d.flush();
      }
      d.compactRange();
      io.zkv.fs.ZoneStats s = env.stats();
      assertTrue(s.policyDecisions() > 3, "decisions: " + s.policyDecisions());
      assertEquals(0, s.policyOverrides(), s.toString());
      assertArrayEquals(new byte[102], d.get(b("key12345")));
    }
  }

  /**
   * Compaction outputs' key-range hints are counted against their own ranges once RocksDB installs
   * them (the view shows a written file with job id -1): an output's own range lies within its
   * inputs' union, so it never overlaps more next-level SSTs than its hint.
   */
  @Test
  void compactionOutputsHintsAreCountedAgainstTheirOwnRanges() throws Exception {
    ZkvOptions db = threeLevels();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT);
        ZkvDb d = ZkvDb.open(env, "/hints", db)) {
      // Rounds of 1.1 MB over 20,000 keys, each flushed and left to RocksDB's compactions until
      // none is running or pending: L0 -> L1 at 4 L0 files, L1 -> L2 once L1 exceeds 1 MiB, so
      // the L0 -> L1 compactions after the first L1 -> L2 have SSTs below their outputs.
      java.util.SplittableRandom random = new java.util.SplittableRandom(11);
      for (int round = 0; round < 12; round++) {
        for (int i = 0; i < 10_000; i++) {
          d.put(b("key" + random.nextInt(20_000)), randomValue(random));
        }
        d.flush();
        awaitCompactions(d);
      }
      String levels = d.property("rocksdb.levelstats").orElse("");
      assertNotEquals("0", d.property("rocksdb.num-files-at-level2").orElse("0"), levels);
      d.put(b("last"), new byte[1]);
      d.flush(); // one more allocation: its view shows the last outputs written
      io.zkv.fs.HintOverlapCounts h = env.hintOverlaps();
      assertTrue(h.outputs() > 0, h.toString());
      assertTrue(h.ownOverlaps() <= h.hintOverlaps(), h.toString());
      assertTrue(h.coarse() <= h.outputs(), h.toString());
      System.out.println("hint overlaps of compaction outputs: " + h + "\n" + levels);
      assertEquals(1, d.get(b("last")).length);
    }
  }

  /** Waits (up to 2 minutes: a loaded host delays the jobs) until no compaction runs or waits. */
  private static void awaitCompactions(ZkvDb d) throws InterruptedException {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline
        && !(d.property("rocksdb.num-running-compactions").orElse("1").equals("0")
            && d.property("rocksdb.compaction-pending").orElse("1").equals("0"))) {
      Thread.sleep(20);
    }
  }

  /** LIZA, keeping each compaction output's hinted smallest key and the last view's own ranges. */
  static final class HintedStarts implements PlacementPolicy {
    final LizaPolicy liza = new LizaPolicy();
    final java.util.Map<Long, byte[]> hinted = new java.util.HashMap<>();
    java.util.Map<Long, byte[]> own = java.util.Map.of();

    @Override
    public String name() {
      return "hinted-starts LIZA";
    }

    @Override
    public synchronized Allocation allocate(AllocationRequest request, ZoneTableView zones) {
      if (!request.compactionInputs().isEmpty() && request.keyRange().isPresent()) {
        hinted.putIfAbsent(request.fileId(), request.keyRange().get().smallest());
      }
      java.util.Map<Long, byte[]> ranges = new java.util.HashMap<>();
      for (io.zkv.placement.FileInfo f : zones.files()) {
        f.keyRange().ifPresent(r -> ranges.put(f.fileId(), r.smallest()));
      }
      own = ranges;
      return liza.allocate(request, zones);
    }
  }

  /**
   * With uncompressed SSTs the hint of a compaction output starts at its own first key (read from
   * its first write-out), not at its inputs' smallest: every output compared starts where RocksDB
   * says it does.
   */
  @Test
  void aCompactionOutputsHintStartsAtItsOwnFirstKey() throws Exception {
    HintedStarts policy = new HintedStarts();
    ZonedEnvOptions options = ZonedEnvOptions.builder().placement(policy).build();
    ZkvOptions db = threeLevels().toBuilder().compression(Compression.NONE).build();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT, options);
        ZkvDb d = ZkvDb.open(env, "/first", db)) {
      java.util.SplittableRandom random = new java.util.SplittableRandom(5);
      for (int round = 0; round < 3; round++) {
        for (int i = round; i < 20_000; i += 2) {
          d.put(b("key" + (100_000 + i)), randomValue(random));
        }
        d.flush();
      }
      d.compactRange();
      d.put(b("last"), new byte[1]);
      d.flush(); // one more allocation: its view shows the outputs' own ranges
      int compared = 0;
      synchronized (policy) {
        for (var e : policy.hinted.entrySet()) {
          byte[] own = policy.own.get(e.getKey());
          if (own != null) {
            assertEquals(s(own), s(e.getValue()), "output " + e.getKey());
            compared++;
          }
        }
      }
      assertTrue(compared > 0, "outputs hinted " + policy.hinted.size());
    }
  }

  /** 256 KiB SSTs, a 1 MiB L1, fixed level sizes: a few MB of data fill L0, L1 and L2. */
  private static ZkvOptions threeLevels() {
    return small().toBuilder()
        .rocksDbTuning(
            o ->
                o.setTargetFileSizeBase(256L << 10)
                    .setMaxBytesForLevelBase(1L << 20)
                    .setLevelCompactionDynamicLevelBytes(false))
        .build();
  }

  private static byte[] randomValue(java.util.SplittableRandom random) {
    byte[] v = new byte[100];
    random.nextBytes(v);
    return v;
  }

  /** ZoneKV, keeping from each view it is given what the test checks (views are not kept). */
  static final class WatchedZoneKv implements PlacementPolicy {
    final ZoneKvPolicy zoneKv = new ZoneKvPolicy();

    /** Per live file of the last view: kind, level (-1 none) and the classes of its zones. */
    java.util.List<String> files = java.util.List.of();

    /** Per level, the SSTs of the last view. */
    java.util.Map<Integer, Integer> sstsPerLevel = java.util.Map.of();

    @Override
    public String name() {
      return zoneKv.name();
    }

    @Override
    public synchronized Allocation allocate(AllocationRequest request, ZoneTableView zones) {
      java.util.List<String> seen = new java.util.ArrayList<>();
      java.util.Map<Integer, Integer> perLevel = new java.util.TreeMap<>();
      for (io.zkv.placement.FileInfo f : zones.files()) {
        java.util.TreeSet<Integer> classes = new java.util.TreeSet<>();
        for (int z : zones.zonesOf(f.fileId())) {
          classes.add(zones.zone(z).tag().orElse(Integer.MIN_VALUE + 1) - 1);
        }
        int level = f.level().orElse(-1);
        seen.add(f.kind() + " " + level + " " + classes);
        if (f.kind() == io.zkv.placement.FileKind.SST) {
          perLevel.merge(level, 1, Integer::sum);
        }
      }
      files = seen;
      sstsPerLevel = perLevel;
      return zoneKv.allocate(request, zones);
    }
  }

  @Test
  void zoneKvKeepsEachLevelClassInZonesOfItsOwnAsRocksDbSeesTheLevels() throws Exception {
    WatchedZoneKv policy = new WatchedZoneKv();
    ZonedEnvOptions options = ZonedEnvOptions.builder().placement(policy).build();
    ZkvOptions db = threeLevels();
    // 21 data zones, not the medium device's 13: ZoneKV opens a zone per class and ignores the
    // empty zones the file system keeps (no over-provisioning), and every WAL switch takes a
    // reserved empty zone (2 by default), so on 13 zones a flush's phase 2 now and then asked for
    // one of the last two kept empty zones while the WALs had just used the reserved ones (a
    // RESERVE override, 1 run in 25): the test is about classes, not about an almost full device.
    DeviceGeometry roomy = DeviceGeometry.of(24, 8L << 20, 6L << 20, 8, 8, 1 << 20);
    try (ZonedEnv env =
            ZonedEnv.open(TestDevices.format(dir, "zonekv", roomy), ZonedEnv.Mode.FORMAT, options);
        ZkvDb d = ZkvDb.open(env, "/zonekv", db)) {
      java.util.Random random = new java.util.Random(42); // values that do not compress away
      byte[] last = new byte[200];
      for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 20_000; i++) {
          random.nextBytes(last);
          d.put(b("key" + ((i * 7919) % 20_000)), last.clone());
        }
      }
      d.flush();
      settle(d); // RocksDB's own compactions build the levels; then they settle
      // One more allocation: the view after the compactions. The flush that makes it must start
      // no compaction (its outputs, or a trivial move, would change the levels after that view,
      // as RocksDB's threads ran): with L0 one file short of RocksDB's trigger (4), a flush and
      // its compaction come first.
      for (int extra = 0;
          extra < 4
              && Integer.parseInt(d.property("rocksdb.num-files-at-level0").orElseThrow()) >= 3;
          extra++) {
        d.put(b("before-last"), new byte[10]);
        d.flush();
        settle(d);
      }
      d.put(b("last"), new byte[10]);
      d.flush();
      // (a compaction it started would be pending or running now: the flush installed the new
      // version and computed the levels' scores before it returned; its own count of running
      // flushes may lag a moment)
      assertEquals(
          "0+0",
          d.property("rocksdb.compaction-pending").orElse("?")
              + "+"
              + d.property("rocksdb.num-running-compactions").orElse("?"),
          "the last flush started a compaction");
      java.util.Map<Integer, Integer> rocks = new java.util.TreeMap<>();
      for (int level = 1; level < 7; level++) { // L0: the last flush is not in its own view
        int n = Integer.parseInt(d.property("rocksdb.num-files-at-level" + level).orElseThrow());
        if (n > 0) {
          rocks.put(level, n);
        }
      }
      io.zkv.fs.ZoneStats s = env.stats();
      assertEquals(0, s.policyOverrides(), s.toString());
      // the view taken on request (not at an allocation) shows every SST at RocksDB's level, and
      // the zones' live bytes the file system counts
      io.zkv.placement.ZoneTable now = env.zoneTable();
      java.util.Map<Integer, Integer> withL0 = new java.util.TreeMap<>(rocks);
      withL0.put(0, Integer.parseInt(d.property("rocksdb.num-files-at-level0").orElseThrow()));
      java.util.Map<Integer, Integer> snapshot = new java.util.TreeMap<>();
      for (io.zkv.placement.FileInfo f : now.files()) {
        if (f.kind() == io.zkv.placement.FileKind.SST) {
          snapshot.merge(f.level().orElseThrow(), 1, Integer::sum);
        }
      }
      assertEquals(withL0, snapshot);
      long live = 0;
      for (int z = 0; z < now.zoneCount(); z++) {
        live += now.zone(z).liveBytes();
      }
      assertEquals(env.stats().liveBytes(), live);
      synchronized (policy) {
        java.util.Map<Integer, Integer> viewed = new java.util.TreeMap<>(policy.sstsPerLevel);
        viewed.remove(0);
        assertEquals(rocks, viewed, policy.files.toString());
        assertTrue(rocks.keySet().stream().filter(l -> l >= 1).count() >= 2, rocks.toString());
        for (String f : policy.files) {
          String[] p = f.split(" ", 3);
          String classes = p[2];
          if (p[0].equals("SST")) {
            int cls =
                ZoneKvPolicy.classOf(
                    io.zkv.placement.FileKind.SST,
                    java.util.OptionalInt.of(Integer.parseInt(p[1])));
            // in zones of its class (a compaction's output) or of a shallower one (a trivial move
            // changes a file's level, not its zone), never in a log zone
            for (String c : classes.substring(1, classes.length() - 1).split(", ")) {
              int zc = Integer.parseInt(c);
              assertTrue(zc >= 1 && zc <= cls, f);
            }
          } else {
            assertEquals("[-1]", classes, f); // logs only in log zones
          }
        }
      }
      assertArrayEquals(last, d.get(b("key" + ((19_999 * 7919) % 20_000))));
    }
  }

  /** Waits up to 2 minutes (a loaded host delays the jobs) until no flush or compaction runs. */
  private static void settle(ZkvDb d) throws InterruptedException {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (compacting(d) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertFalse(compacting(d), "compactions still running after 2 minutes");
  }

  private static boolean compacting(ZkvDb d) {
    return !d.property("rocksdb.compaction-pending").orElse("0").equals("0")
        || !d.property("rocksdb.num-running-compactions").orElse("0").equals("0")
        || !d.property("rocksdb.num-running-flushes").orElse("0").equals("0");
  }

  @Test
  void policiesByTheirSettings() {
    ZonedEnvOptions.Builder b = ZonedEnvOptions.builder();
    assertTrue(b.placement(" LIZA ").build().placement() instanceof LizaPolicy);
    assertTrue(b.victimPolicy("greedy").build().victimPolicy() instanceof GreedyVictimPolicy);
    assertEquals("zenfs(20)", b.gcTrigger("zenfs").build().gcTrigger().name());
    assertSame(GcTrigger.off(), b.gcTrigger("off").build().gcTrigger());
    assertEquals(
        "mine(35)", b.gcTrigger("class:" + Trigger35.class.getName()).build().gcTrigger().name());
    assertTrue(
        b.victimPolicy("class:" + GreedyVictimPolicy.class.getName()).build().victimPolicy()
            instanceof GreedyVictimPolicy);
    assertTrue(b.placement("caza").build().placement() instanceof CazaPolicy);
    assertTrue(b.placement("zonekv").build().placement() instanceof ZoneKvPolicy);
    String unknown = message(() -> b.placement("best"));
    assertTrue(
        unknown.contains("unknown placement 'best'") && unknown.contains("liza, caza, zonekv"),
        unknown);
    assertTrue(message(() -> b.victimPolicy("oldest")).contains("unknown victim policy"));
    assertTrue(message(() -> b.gcTrigger("sometimes")).contains("unknown GC trigger"));
    assertTrue(
        message(() -> b.placement("class:" + GreedyVictimPolicy.class.getName()))
            .contains("does not implement io.zkv.placement.PlacementPolicy"));
    // a refused setting leaves the builder as it was: ZoneKV, the last one accepted
    assertTrue(b.build().placement() instanceof ZoneKvPolicy);
  }

  /** ZenFS's trigger from 35% free, by class name. */
  public static final class Trigger35 implements GcTrigger {
    private final ZenFsGcTrigger zenFs = new ZenFsGcTrigger(35);

    @Override
    public String name() {
      return "mine(35)";
    }

    @Override
    public long maxLiveBytes(ZoneTableView zones, long capacity) {
      return zenFs.maxLiveBytes(zones, capacity);
    }
  }

  private static String message(org.junit.jupiter.api.function.Executable call) {
    return assertThrows(IllegalArgumentException.class, call).getMessage();
  }
}
