package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.ZonedEnvOptions;
import io.zkv.cli.Arguments.UsageException;
import io.zkv.placement.CazaGcTrigger;
import io.zkv.placement.GcTrigger;
import io.zkv.placement.ZoneKvPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The GC keys ({@code gc}, {@code ths}, {@code op-zones}), ZoneKV by name, and {@code NAME*K}. */
class TargetConfigGcTest {
  private static TargetConfig parse(String spec) {
    return TargetConfig.parse(spec, SampleReports.defaults());
  }

  private static String refused(String spec) {
    return assertThrows(UsageException.class, () -> parse(spec)).getMessage();
  }

  @Test
  void gcCazaRunsCazasCleaningWithItsThresholdAndOverProvisioning() {
    TargetConfig c = parse("zkv:zones=100,gc=caza,op-zones=10,ths=25");
    ZonedEnvOptions o = c.policies().build();
    assertEquals("caza(25)", o.gcTrigger().name());
    assertEquals(10, o.opZones());
    assertEquals(10, o.toZoneFsSettings(true).opZones());
    assertTrue(c.describe().contains("GC trigger caza THS 25%"), c.describe());
    assertTrue(c.describe().contains("10 zones of over-provisioning"), c.describe());
    // defaults: THS 5, a tenth of the zones kept (CAZA's 10 of 100)
    TargetConfig d = parse("zkv:zones=100,gc=caza");
    assertEquals(CazaGcTrigger.DEFAULT_THS, d.ths());
    assertEquals(10, d.opZones());
  }

  @Test
  void gcZenfsAndOffAreTheTriggersOfThoseNames() {
    assertEquals("zenfs(20)", parse("zkv:gc=zenfs").policies().build().gcTrigger().name());
    assertEquals(GcTrigger.off(), parse("zkv:gc=off").policies().build().gcTrigger());
    TargetConfig kept = parse("zkv:zones=40,gc=off,op-zones=3");
    assertEquals(3, kept.policies().build().opZones());
    assertEquals(0, parse("zkv").policies().build().opZones());
  }

  @Test
  void fallbackOffReachesTheFileSystemAndTheDescription() {
    TargetConfig strict = parse("zkv:fallback=off");
    assertEquals(false, strict.policies().build().noSpaceFallback());
    assertEquals(false, strict.policies().build().toZoneFsSettings(true).noSpaceFallback());
    assertTrue(strict.describe().contains("NoSpace fallback off"), strict.describe());
    TargetConfig usual = parse("zkv:fallback=on");
    assertEquals(true, usual.policies().build().toZoneFsSettings(true).noSpaceFallback());
    assertEquals(true, parse("zkv").policies().build().noSpaceFallback());
    assertTrue(refused("zkv:fallback=maybe").contains("fallback is on or off, not 'maybe'"));
  }

  @Test
  void badGcSettingsAreRefusedSayingWhy() {
    assertTrue(refused("zkv:gc=lazy").contains("gc must be one of zenfs, caza, off, not lazy"));
    assertTrue(refused("zkv:gc=caza,ths=0").contains("ths"));
    assertTrue(refused("zkv:gc=caza,ths=51").contains("ths"));
    assertTrue(refused("zkv:ths=10").contains("give gc=caza"));
    String op = refused("zkv:zones=20,op-zones=12");
    assertTrue(op.contains("op-zones 12 leaves data writers fewer than 4 of the 20"), op);
    parse("zkv:zones=20,op-zones=11"); // 20 - 3 metadata - 2 kept - 11 = 4
    parse("zkv:zones=6"); // no over-provisioning: the file system's own minimum applies
    assertTrue(refused("zkv:device=emu:/x,gc=caza").contains("needs op-zones="));
    assertEquals(4, parse("zkv:device=emu:/x,gc=caza,op-zones=4").opZones());
  }

  @Test
  void zoneKvIsAPlacementByName() {
    assertTrue(
        parse("zkv:placement=zonekv").policies().build().placement() instanceof ZoneKvPolicy);
  }

  @Test
  void aWorkloadTimesKRunsOverKTimesTheKeysAndOps() {
    BenchSettings s = SampleReports.settings(1);
    List<PhaseSpec> one = WorkloadCatalog.phases("fillrandom", s);
    List<PhaseSpec> four = WorkloadCatalog.phases("fillrandom*4", s);
    assertEquals("fillrandom*4", four.get(0).name());
    assertEquals(4 * one.get(0).ops(), four.get(0).ops());
    assertEquals(4 * s.keys(), s.scaled(4).keys());
    assertEquals(4, WorkloadCatalog.scaleOf("readrandom*4"));
    assertEquals(1, WorkloadCatalog.scaleOf("readrandom"));
    for (String bad : new String[] {"fillrandom*0", "fillrandom*x", "fillrandom*1001"}) {
      UsageException e = assertThrows(UsageException.class, () -> WorkloadCatalog.phases(bad, s));
      assertTrue(e.getMessage().contains("the factor after * must be 1..1000"), e.getMessage());
    }
  }
}
