package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments.UsageException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The {@code windows} and {@code timescale} keys of a zkv configuration (plmarray: devices). */
class TargetConfigWindowsTest {
  @Test
  void windowsMakesTheScratchDeviceAPlmArray() {
    TargetConfig c =
        TargetConfig.parse("zkv:windows=o-vigil,timescale=100", SampleReports.defaults());
    assertEquals("o-vigil", c.windows());
    assertEquals(100, c.timescale());
    assertTrue(c.describe().contains("plmarray:"), c.describe());
    assertTrue(c.describe().contains("windows o-vigil"), c.describe());
    assertTrue(
        c.plmArrayUri(Path.of("/tmp/x.zkvemu"))
            .startsWith(
                "plmarray:isolate=1&defer=1&rebuild=1@emu:/tmp/x.zkvemu?profile=plm&sets=4"
                    + "&timescale=100"));
    assertEquals("o-vigil", c.windowScheduler());
    assertNull(TargetConfig.parse("zkv", SampleReports.defaults()).windows());
  }

  /** The ablation ladder's rungs: each adds one mechanism to the one before (docs/plm.md). */
  @Test
  void everyRungOfTheLadderNamesItsSchedulerAndArrayMechanisms() {
    String[][] expected = {
      {"base", "base", "isolate=0&defer=0&rebuild=0"},
      {"plm", "plm", "isolate=0&defer=0&rebuild=0"},
      {"i-plm", "plm", "isolate=1&defer=0&rebuild=0"},
      {"r-vigil", "r-vigil", "isolate=1&defer=1&rebuild=1"},
      {"o-vigil", "o-vigil", "isolate=1&defer=1&rebuild=1"}
    };
    for (String[] e : expected) {
      TargetConfig c = TargetConfig.parse("zkv:windows=" + e[0], SampleReports.defaults());
      assertEquals(e[1], c.windowScheduler(), e[0]);
      assertTrue(
          c.plmArrayUri(Path.of("/tmp/x.zkvemu")).startsWith("plmarray:" + e[2] + "@emu:"), e[0]);
    }
  }

  @Test
  void unknownSchedulersAreRefusedWithTheKnownOnes() {
    UsageException e =
        assertThrows(
            UsageException.class,
            () -> TargetConfig.parse("zkv:windows=silk", SampleReports.defaults()));
    assertTrue(e.getMessage().contains("base, plm, i-plm, r-vigil, o-vigil"), e.getMessage());
  }
}
