package io.zkv.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.bench.DeviceCalibration.Paper;
import io.zkv.bench.DeviceCalibration.Row;
import io.zkv.bench.FioLikeRun.Op;
import io.zkv.bench.FioLikeRun.Result;
import io.zkv.device.HostLateness;
import io.zkv.util.LatencyRecorder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code zkv calibrate} says why a row was late: the host loop's ceiling, or a busy host. */
class CalibrationLateReasonTest {
  private static final HostLateness ON_TIME = new HostLateness(1000, 0, 0);
  private static final HostLateness LATE = new HostLateness(1000, 50, 4_000_000);

  private static Row row(int qd, double modelIops, double measuredIops, HostLateness lateness) {
    Paper paper = new Paper("zn540", Op.APPEND, 8192, qd, 149_000, 50, 300);
    return new Row(paper, result(qd, modelIops, ON_TIME), result(qd, measuredIops, lateness));
  }

  private static Result result(int qd, double iops, HostLateness lateness) {
    return new Result(
        Op.APPEND, 8192, qd, (long) iops, 1.0, new LatencyRecorder(1).summary(), lateness);
  }

  @Test
  void aLateRowAtTheHighestMeasuredRateIsTheHostLoopsCeiling() {
    List<Row> rows =
        List.of(
            row(4, 148_000, 129_000, ON_TIME),
            row(8, 149_000, 129_500, LATE),
            row(1, 59_000, 56_000, ON_TIME));
    String reason = DeviceCalibration.lateReason(rows.get(1), rows);
    assertEquals(
        ": the model asks 149,000 IOPS, the submitting loop reached at most 129,500 on this host",
        reason);
    String verdict = DeviceCalibration.hostVerdict(rows);
    assertTrue(verdict.contains("in 1 rows** (zn540 append 8 KiB QD8: the model asks"), verdict);
  }

  @Test
  void aLateRowBelowWhatOtherRowsReachedMetABusyHost() {
    List<Row> rows = List.of(row(4, 148_000, 129_000, ON_TIME), row(2, 110_000, 80_000, LATE));
    assertEquals(
        ": a busy host, rerun it on a quiet one", DeviceCalibration.lateReason(rows.get(1), rows));
  }

  @Test
  void aLateRowThatGotWhatTheModelAskedMetABusyHost() {
    List<Row> rows = List.of(row(1, 59_000, 58_000, LATE));
    assertEquals(
        ": a busy host, rerun it on a quiet one", DeviceCalibration.lateReason(rows.get(0), rows));
  }

  @Test
  void everyRowOnTimeSaysSo() {
    assertTrue(
        DeviceCalibration.hostVerdict(List.of(row(4, 148_000, 129_000, ON_TIME)))
            .endsWith("Every row was honoured.\n"));
  }
}
