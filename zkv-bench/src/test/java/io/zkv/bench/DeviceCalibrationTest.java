package io.zkv.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.bench.DeviceCalibration.Paper;
import io.zkv.bench.DeviceCalibration.Row;
import io.zkv.bench.FioLikeRun.Result;
import io.zkv.device.HostLateness;
import io.zkv.util.LatencyRecorder;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeviceCalibrationTest {
  private static final Paper ZN540_QD8 = paperRow("zn540", 8192, 8);
  private static final Paper ZN540_QD4 = paperRow("zn540", 8192, 4);

  private static Paper paperRow(String profile, int bs, int qd) {
    return DeviceCalibration.PAPER.stream()
        .filter(p -> p.profile().equals(profile) && p.bs() == bs && p.qd() == qd)
        .findFirst()
        .orElseThrow();
  }

  /** A measurement of `ops` requests in one second: 98% at `body` us, 2% at `tail` us. */
  private static Result measured(Paper p, double iops, double body, double tail, long late) {
    return measured(p, iops, body, tail, late, 0);
  }

  private static Result measured(
      Paper p, double iops, double body, double tail, long late, double cpuWait) {
    LatencyRecorder rec = new LatencyRecorder(1000);
    for (int i = 0; i < 1000; i++) {
      rec.record((long) ((i < 980 ? body : tail) * 1000));
    }
    return new Result(
        p.op(),
        p.bs(),
        p.qd(),
        (long) iops,
        1.0,
        rec.summary(),
        new HostLateness(1000, late, 0),
        cpuWait);
  }

  @Test
  void aRowHoldsOnlyWhenIopsMeanAndP99AreClose() {
    // zn540 8 KiB QD8: paper 149,429 IOPS, mean 52.8 us, P99 293 us.
    Row good = new Row(ZN540_QD8, measured(ZN540_QD8, 149_000, 48, 280, 0));
    assertEquals("holds", good.verdict(), good.line());
    Row noTail = new Row(ZN540_QD8, measured(ZN540_QD8, 149_000, 52, 60, 0));
    assertEquals("MISSES: P99 0.20x", noTail.verdict());
    Row slow = new Row(ZN540_QD8, measured(ZN540_QD8, 100_000, 80, 280, 0));
    assertTrue(slow.verdict().startsWith("MISSES: IOPS 0.67x, mean 1.5"), slow.verdict());
    Row busy = new Row(ZN540_QD8, measured(ZN540_QD8, 149_000, 48, 280, 11));
    assertEquals("host busy: not a measurement of the profile", busy.verdict());
    assertTrue(busy.line().endsWith("| 1.1 | 0.0 | host busy: not a measurement of the profile |"));
    Row preempted = new Row(ZN540_QD8, measured(ZN540_QD8, 149_000, 48, 280, 0, 0.02));
    assertTrue(preempted.hostBusy(), "the measuring thread waited 2% of the run for a CPU");
  }

  @Test
  void theReportNamesRowsTheHostDidNotHonourAndLeavesThemOutOfTheShapeChecks() {
    List<Row> rows =
        List.of(
            new Row(ZN540_QD4, measured(ZN540_QD4, 149_000, 24, 75, 0)),
            new Row(ZN540_QD8, measured(ZN540_QD8, 149_000, 48, 280, 50)));
    String report = DeviceCalibration.report(rows, 1);
    assertTrue(
        report.contains("could not honour the profile in 1 rows** (zn540 append 8 KiB QD8)"),
        report);
    assertTrue(
        report.contains(
            "| ZN540 8 KiB append P99: QD8 / QD4 (tail grows) | 3.81 | - | not measured in this"
                + " run, or the host was busy |"),
        report);
    assertTrue(report.contains("| measured P50 us | paper P99 us | measured P99 us |"), report);
  }
}
