package io.zkv;

import static io.zkv.TestDevices.b;
import static io.zkv.TestDevices.small;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.CazaPolicy;
import io.zkv.placement.GcTrigger;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.ZenFsGcTrigger;
import io.zkv.placement.ZoneTableView;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ZkvEnv;

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

  @Test
  void aUserPolicyDecidesEveryAllocation() throws Exception {
    CountingLiza policy = new CountingLiza();
    ZonedEnvOptions options = ZonedEnvOptions.builder().placement(policy).build();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT, options);
        ZkvDb db = ZkvDb.open(env, "/p", small())) {
      assertSame(policy, env.options().placement());
      for (int i = 0; i < 20_000; i++) {
        db.put(b("key" + i), new byte[200]);
      }
      db.flush();
      ZkvEnv.ZoneStats s = env.stats();
      assertTrue(policy.calls.get() > 0, "the policy was never asked");
      // every call the policy answered is a decision the file system counted, and it overrode
      // none of them on this roomy device
      assertEquals(policy.calls.get(), s.policyDecisions());
      assertEquals(0, s.policyOverrides());
      assertArrayEquals(new byte[200], db.get(b("key19999")));
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
    assertThrows(IllegalArgumentException.class, Placement.ZONEKV::newPolicy);
  }

  @Test
  void aPolicyNamedByItsClassDecidesEveryAllocation() throws Exception {
    ZonedEnvOptions options =
        ZonedEnvOptions.builder().placement("class:" + CountingLiza.class.getName()).build();
    CountingLiza policy = (CountingLiza) options.placement();
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT, options);
        ZkvDb db = ZkvDb.open(env, "/p", small())) {
      for (int i = 0; i < 5_000; i++) {
        db.put(b("key" + i), new byte[200]);
      }
      db.flush();
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
      ZkvEnv.ZoneStats s = env.stats();
      assertTrue(s.policyDecisions() > 3, "decisions: " + s.policyDecisions());
      assertEquals(0, s.policyOverrides(), s.toString());
      assertArrayEquals(new byte[102], d.get(b("key12345")));
    }
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
    assertTrue(message(() -> b.placement("zonekv")).contains("not available yet"));
    String unknown = message(() -> b.placement("best"));
    assertTrue(
        unknown.contains("unknown placement 'best'") && unknown.contains("liza, caza, zonekv"),
        unknown);
    assertTrue(message(() -> b.victimPolicy("oldest")).contains("unknown victim policy"));
    assertTrue(message(() -> b.gcTrigger("sometimes")).contains("unknown GC trigger"));
    assertTrue(
        message(() -> b.placement("class:" + GreedyVictimPolicy.class.getName()))
            .contains("does not implement io.zkv.placement.PlacementPolicy"));
    // a refused setting leaves the builder as it was: CAZA, the last one accepted
    assertTrue(b.build().placement() instanceof CazaPolicy);
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
