package io.zkv.bench;

import io.zkv.bench.driver.BenchReport;
import io.zkv.bench.driver.Comparison;
import io.zkv.bench.driver.MarkdownReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The predictable-latency part of {@code zkv demo}: Base against O-Vigil on one emulated {@code
 * plm} device, as a few lines with Vigil-KV's published figure (ATC '22, section 7.2) next to each
 * of ours. Gets are the workload's READ operations; the rows come from the run's comparison.
 */
final class PlmDemoSummary {
  /** A row: our figure's name in the comparison, how it reads, and the paper's figure. */
  private record Row(String figure, String label, String paper) {}

  private static final List<Row> ROWS =
      List.of(
          new Row("READ avg us", "Get avg us", "O-Vigil 34% lower than Base: 0.66x"),
          new Row("READ p99 us", "Get p99 us", "-"),
          new Row("READ p99.9 us", "Get p99.9 us", "O-Vigil 3.19x lower than Base: 0.31x"),
          new Row("READ p99.99 us", "Get p99.99 us", "UserDB -69%, YCSB-A -94%: 0.31x, 0.06x"),
          new Row("READ max us", "Get max us", "every O-Vigil Get under 500 us"),
          new Row(
              "READ device model p99.9 us",
              "Get p99.9, device time in the model us",
              "its P99.9 was 87% device time: 0.31x"),
          new Row(
              "READ device model max us",
              "Get max, device time in the model us",
              "every O-Vigil Get under 500 us"),
          new Row("reads rebuilt %", "chunk reads rebuilt %", "minimised by dynamic NDWIN"),
          new Row(
              "modelled reads > 200 us",
              "reads the device model took > 200 us",
              "O-Vigil: none past 500 us"));

  private PlmDemoSummary() {}

  /** The lines of the summary; the run phase is the report's last phase. */
  static List<String> render(BenchReport report) {
    List<Comparison.Figure> figures = report.figures();
    String phase = figures.get(figures.size() - 1).workload();
    List<String> labels = report.labels();
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "%-38s %12s %12s %10s   %s",
            "predictable latency, " + phase,
            labels.get(0),
            labels.get(1),
            labels.get(1) + "/" + labels.get(0),
            "paper (Vigil-KV, ATC '22)"));
    for (Row row : ROWS) {
      for (Comparison.Figure f : figures) {
        if (f.workload().equals(phase) && f.name().equals(row.figure())) {
          lines.add(
              String.format(
                  Locale.ROOT,
                  "%-38s %12s %12s %10s   %s",
                  row.label(),
                  median(f, 0),
                  median(f, 1),
                  Double.isNaN(f.ratio(1)) ? "-" : String.format(Locale.ROOT, "%.2fx", f.ratio(1)),
                  row.paper()));
        }
      }
    }
    return lines;
  }

  private static String median(Comparison.Figure f, int config) {
    Comparison.Spread s = f.spreads().get(config);
    return s == null || s.count() == 0 ? "-" : MarkdownReport.fmt(s.median());
  }
}
