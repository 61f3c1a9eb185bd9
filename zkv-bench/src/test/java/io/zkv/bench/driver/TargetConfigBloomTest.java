package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments.UsageException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code bloom} key: a configuration's own Bloom filters, to compare with and without. */
class TargetConfigBloomTest {
  private static BenchSettings settings(double globalBloom) {
    return new BenchSettings(
        List.of("ycsb-a"), 2, 16, 100, 100, 1000, 1000, 0, false, 1 << 20, globalBloom, 1, 1, 1);
  }

  @Test
  void aConfigurationRunsWithItsOwnBloomFiltersAndKeepsTheRestOfTheSettings() {
    TargetConfig none = TargetConfig.parse("zkv:bloom=0,label=plain", SampleReports.defaults());
    assertEquals(0, none.settingsFor(settings(10)).bloomBitsPerKey());
    assertEquals(2, none.settingsFor(settings(10)).threads());
    assertTrue(none.describe().contains(", no Bloom filters; LSM: "), none.describe());
    TargetConfig twelve =
        TargetConfig.parse("rocksdb-default:bloom=12.5,threads=1", SampleReports.defaults());
    BenchSettings s = twelve.settingsFor(settings(0));
    assertEquals(12.5, s.bloomBitsPerKey());
    assertEquals(1, s.threads());
    assertTrue(
        twelve.describe().contains(", Bloom filters 12.5 bits/key; LSM: "), twelve.describe());
    TargetConfig global = TargetConfig.parse("zkv", SampleReports.defaults());
    assertEquals(10, global.settingsFor(settings(10)).bloomBitsPerKey());
    assertEquals(0, global.settingsFor(settings(0)).bloomBitsPerKey());
  }

  @Test
  void bitsOutsideZeroToSixtyFourAreRefusedWithTheRange() {
    for (String bad : new String[] {"-1", "65", "ten"}) {
      UsageException e =
          assertThrows(
              UsageException.class,
              () -> TargetConfig.parse("zkv:bloom=" + bad, SampleReports.defaults()));
      assertEquals(
          "configuration 'zkv:bloom="
              + bad
              + "': bloom must be bits per key from 0 (no filter) to 64, not '"
              + bad
              + "'",
          e.getMessage());
    }
  }
}
