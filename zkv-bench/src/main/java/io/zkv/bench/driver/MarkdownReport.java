package io.zkv.bench.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report as Markdown: the conditions, then one table. With one configuration the table has a
 * row per phase and operation type (throughput, latency percentiles, device figures); with several
 * it has a row per phase and figure, each configuration's median with its min-max over the repeats,
 * and each configuration's ratio to the first. Columns are padded so the text reads as a table in a
 * terminal too.
 */
public final class MarkdownReport {
  private MarkdownReport() {}

  public static String render(BenchReport r) {
    StringBuilder b = new StringBuilder();
    b.append("## zkv bench\n\n");
    b.append(conditions(r)).append('\n');
    b.append(r.configs().size() == 1 ? single(r) : compare(r));
    return b.toString();
  }

  /** The conditions as a bullet list. */
  static String conditions(BenchReport r) {
    BenchSettings s = r.settings();
    StringBuilder b = new StringBuilder();
    b.append("- command: `").append(r.command()).append("`\n");
    b.append(
        String.format(
            Locale.ROOT,
            "- workloads %s; %d thread(s); %,d keys of %d B, values %d B (YCSB records 10 x %d B);"
                + " %s keys; %s; memtable %d KiB; %s; seed %d; %d repeat(s)%s\n",
            String.join(",", s.workloads()),
            s.threads(),
            s.keys(),
            s.keySize(),
            s.valueSize(),
            s.ycsbFieldLength(),
            s.zipfian() ? "Zipfian 0.99" : "uniform",
            s.limits(),
            s.writeBufferSize() >> 10,
            BenchSettings.bloomNote(s.bloomBitsPerKey()),
            s.seed(),
            s.repeat(),
            r.configs().size() > 1 ? ", configurations in alternating order (A B, B A, ...)" : ""));
    for (TargetConfig c : r.configs()) {
      b.append("- `").append(c.label()).append("`: ").append(c.describe()).append('\n');
    }
    for (String e : r.environment()) {
      b.append("- ").append(e).append('\n');
    }
    b.append("- versions: ").append(r.versions().line()).append('\n');
    List<String> notes = new ArrayList<>();
    for (RunResult run : r.runs()) {
      for (String n : run.notes()) {
        if (!notes.contains(n)) {
          notes.add(n);
        }
      }
    }
    for (String n : notes) {
      b.append("- note: ").append(n).append('\n');
    }
    List<String> parity = Comparison.parityProblems(r.runs());
    if (parity.isEmpty()) {
      b.append(
          "- state parity: in each phase every run wrote the same keys (write count and key"
              + " digest equal; see the writes figures)\n");
    }
    for (String problem : parity) {
      b.append("- WARNING, no state parity: ").append(problem).append('\n');
    }
    for (RunResult run : r.runs()) {
      for (PhaseResult p : run.phases()) {
        if (p.writerOps() > 0) {
          b.append(
              String.format(
                  Locale.ROOT,
                  "- %s %s #%d: the background writer did %,d writes at %s ops/s (not in ops/s)\n",
                  run.config(),
                  p.workload(),
                  run.repeat(),
                  p.writerOps(),
                  fmt(p.writerOpsPerSecond())));
        }
      }
    }
    return b.toString();
  }

  private static String single(BenchReport r) {
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("workload", "op", "ops/s", "writes"));
    for (String n : LatencyStats.NAMES) {
      header.add(n + " us");
    }
    header.addAll(
        List.of("WA", "meta B/write", "space amp", "zones used", "allocations (overridden)"));
    rows.add(header.toArray(String[]::new));
    for (RunResult run : r.runs()) {
      for (PhaseResult p : run.phases()) {
        String workload =
            r.settings().repeat() > 1 ? p.workload() + " #" + run.repeat() : p.workload();
        boolean first = true;
        for (var e : p.latency().entrySet()) {
          List<String> row = new ArrayList<>();
          row.add(first ? workload : "");
          row.add(e.getKey());
          row.add(first ? fmt(p.opsPerSecond()) : "");
          row.add(first ? String.format(Locale.ROOT, "%,d", p.writes()) : "");
          for (double v : e.getValue().values()) {
            row.add(fmt(v));
          }
          DeviceFigures d = p.device();
          row.add(first && d != null ? fmt(d.writeAmplification()) : "");
          row.add(
              first && d != null && p.writes() > 0 ? fmt((double) d.metaBytes() / p.writes()) : "");
          row.add(first && d != null ? fmt(d.spaceAmplification()) : "");
          row.add(first && d != null ? d.zonesUsed() + "/" + d.dataZones() : "");
          row.add(
              first && d != null
                  ? d.policyDecisions() + " (" + d.policyOverrides() + ")"
                  : ""); // policy decisions, file system overrides
          rows.add(row.toArray(String[]::new));
          first = false;
        }
      }
    }
    return table(rows);
  }

  private static String compare(BenchReport r) {
    List<String> labels = r.labels();
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("workload", "figure"));
    for (String l : labels) {
      header.add(l + " median (min-max)");
    }
    for (int c = 1; c < labels.size(); c++) {
      header.add(labels.get(c) + " / " + labels.get(0));
    }
    rows.add(header.toArray(String[]::new));
    String lastWorkload = null;
    for (Comparison.Figure f : r.figures()) {
      List<String> row = new ArrayList<>();
      row.add(f.workload().equals(lastWorkload) ? "" : f.workload());
      lastWorkload = f.workload();
      row.add(f.name());
      for (Comparison.Spread s : f.spreads()) {
        row.add(s == null ? "-" : spread(s));
      }
      for (int c = 1; c < labels.size(); c++) {
        double ratio = f.ratio(c);
        row.add(Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.2fx", ratio));
      }
      rows.add(row.toArray(String[]::new));
    }
    return table(rows)
        + "\nRatios are medians over the repeats divided by the first configuration's median;"
        + " for ops/s higher is better, for latencies and amplification lower is better.\n";
  }

  static String spread(Comparison.Spread s) {
    if (s.count() == 0) {
      return "-";
    }
    if (s.count() == 1 || s.min() == s.max()) {
      return fmt(s.median());
    }
    return fmt(s.median()) + " (" + fmt(s.min()) + "-" + fmt(s.max()) + ")";
  }

  /** Three significant digits at most, thousands separated: 123,456 / 12.3 / 0.123. */
  public static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    double a = Math.abs(v);
    if (a >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3f", v);
  }

  /** A Markdown table with padded columns; the first row is the header. */
  static String table(List<String[]> rows) {
    int cols = rows.get(0).length;
    int[] width = new int[cols];
    for (String[] row : rows) {
      for (int c = 0; c < cols; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < rows.size(); i++) {
      line(b, rows.get(i), width, i == 0);
      if (i == 0) {
        String[] sep = new String[cols];
        for (int c = 0; c < cols; c++) {
          sep[c] =
              c < 2
                  ? "-".repeat(Math.max(3, width[c]))
                  : "-".repeat(Math.max(2, width[c]) - 1) + ":";
        }
        line(b, sep, width, false);
      }
    }
    return b.toString();
  }

  private static void line(StringBuilder b, String[] cells, int[] width, boolean header) {
    b.append('|');
    for (int c = 0; c < cells.length; c++) {
      String cell = cells[c];
      String pad = " ".repeat(Math.max(0, width[c] - cell.length()));
      // Text columns left-aligned, numbers right-aligned.
      b.append(' ').append(c < 2 || header ? cell + pad : pad + cell).append(" |");
    }
    b.append('\n');
  }
}
