package io.zkv.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@code zkv calibrate --out} replaces only what the run measured in docs/calibration.md. */
class PlmCalibrationSpliceTest {
  private static String plm(String body) {
    return PlmCalibration.BEGIN + "\n" + body + "\n" + PlmCalibration.END + "\n";
  }

  @Test
  void aPlmRunReplacesOnlyThePlmSection() {
    String fio = "# fio tables\n| a | b |\n";
    String first = DeviceCalibration.updated(fio, null, plm("first"));
    assertEquals(fio + "\n" + plm("first"), first);
    assertEquals(fio + "\n" + plm("second"), DeviceCalibration.updated(first, null, plm("second")));
  }

  @Test
  void aFioRunKeepsThePlmSection() {
    String file = "# old fio\n\n" + plm("kept");
    assertEquals(
        "# new fio\n\n" + plm("kept"), DeviceCalibration.updated(file, "# new fio\n", null));
    assertEquals("# new fio\n", DeviceCalibration.updated("# old\n", "# new fio\n", null));
    assertEquals(
        "# new fio\n\n" + plm("new"),
        DeviceCalibration.updated(file, "# new fio\n", plm("new")),
        "both measured");
  }
}
