package io.zkv.bench;

import io.zkv.bench.driver.BenchReport;
import io.zkv.bench.driver.Comparison;
import io.zkv.bench.driver.MarkdownReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The WAL part of {@code zkv demo} ({@code --part wal}): the FILE mode (ZenFS's WAL) against ZWAL
 * on an emulated {@code confzns} device at a 4 KiB WAL buffer, as a few lines with ZWAL's published
 * figures (CHEOPS '24, Fig. 4) next to ours.
 */
final class WalDemoSummary {
  private WalDemoSummary() {}

  /** The lines of the summary: the fill's throughput of both and their ratio. */
  static List<String> render(BenchReport report) {
    List<String> labels = report.labels();
    List<String> lines = new ArrayList<>();
    String format = "%-34s %12s %12s %10s   %s";
    lines.add(
        String.format(
            Locale.ROOT,
            format,
            "WAL write path, 4 KiB buffer",
            labels.get(0),
            labels.get(1),
            labels.get(1) + "/" + labels.get(0),
            "paper (ZWAL, CHEOPS '24, Fig. 4)"));
    for (Comparison.Figure f : report.figures()) {
      if (f.name().equals("ops/s")) {
        lines.add(
            String.format(
                Locale.ROOT,
                format,
                f.workload() + " ops/s",
                median(f, 0),
                median(f, 1),
                Double.isNaN(f.ratio(1)) ? "-" : String.format(Locale.ROOT, "%.2fx", f.ratio(1)),
                "ZWAL 13.94x ZenFS's at 4 KiB (1.92x at 256 KiB)"));
      }
    }
    return lines;
  }

  private static String median(Comparison.Figure f, int config) {
    Comparison.Spread s = f.spreads().get(config);
    return s == null || s.count() == 0 ? "-" : MarkdownReport.fmt(s.median());
  }
}
