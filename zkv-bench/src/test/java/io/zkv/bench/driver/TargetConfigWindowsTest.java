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
            .startsWith("plmarray:emu:/tmp/x.zkvemu?profile=plm&sets=4&timescale=100"));
    assertNull(TargetConfig.parse("zkv", SampleReports.defaults()).windows());
  }

  @Test
  void unknownSchedulersAreRefusedWithTheKnownOnes() {
    UsageException e =
        assertThrows(
            UsageException.class,
            () -> TargetConfig.parse("zkv:windows=silk", SampleReports.defaults()));
    assertTrue(e.getMessage().contains("base, r-vigil, o-vigil"), e.getMessage());
  }
}
