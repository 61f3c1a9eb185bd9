package io.zkv.bench.driver;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG plots with XChart, drawn headless: for each phase, the latency percentile curves (one per
 * configuration and operation type, the repeats' histograms merged; the Gets' device time in the
 * model, where measured, in a chart of its own) and the throughput timeline (one line per
 * configuration and repeat); on {@code plmarray:} devices also the window timeline (each
 * configuration's kv-sets, first repeat: a step line per set, high in DTWIN, low in NDWIN, between
 * with PLM off).
 *
 * <p>The percentile axis is in "nines": x = -log10(1 - p), so 1 is P90, 2 is P99, 3 is P99.9; each
 * curve stops where its sample count stops resolving percentiles (x = log10(count)).
 */
public final class Plots {
  static final int WIDTH = 900;
  static final int HEIGHT = 540;

  private Plots() {}

  /** Writes the plots into {@code dir}; returns the files in order. */
  public static List<Path> write(BenchReport r, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Path> files = new ArrayList<>();
    for (String phase : phases(r)) {
      files.add(save(latencyChart(r, phase), dir.resolve("latency-" + fileName(phase) + ".png")));
      XYChart model =
          latencyChart(
              r,
              phase,
              PhaseRunner.READ_MODEL::equals,
              phase + ": Gets' device time in the model, by percentile");
      if (!model.getSeriesMap().isEmpty()) {
        files.add(save(model, dir.resolve("gets-model-" + fileName(phase) + ".png")));
      }
      files.add(
          save(throughputChart(r, phase), dir.resolve("throughput-" + fileName(phase) + ".png")));
      XYChart p99 = writeP99Chart(r, phase);
      if (!p99.getSeriesMap().isEmpty()) {
        files.add(save(p99, dir.resolve("write-p99-" + fileName(phase) + ".png")));
      }
      XYChart windows = windowChart(r, phase);
      if (!windows.getSeriesMap().isEmpty()) {
        files.add(save(windows, dir.resolve("windows-" + fileName(phase) + ".png")));
      }
    }
    return files;
  }

  private static List<String> phases(BenchReport r) {
    List<String> names = new ArrayList<>();
    for (RunResult run : r.runs()) {
      for (PhaseResult p : run.phases()) {
        if (!names.contains(p.workload())) {
          names.add(p.workload());
        }
      }
    }
    return names;
  }

  /** Wall-time latency curves of every operation type (the device-model curves have their own). */
  static XYChart latencyChart(BenchReport r, String phase) {
    return latencyChart(
        r, phase, op -> !op.equals(PhaseRunner.READ_MODEL), phase + ": latency by percentile");
  }

  static XYChart latencyChart(
      BenchReport r, String phase, java.util.function.Predicate<String> ops, String title) {
    XYChart chart =
        chart(
            title,
            "percentile, in nines (1 = P90, 2 = P99, 3 = P99.9, 4 = P99.99)",
            "latency (us, log scale)");
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setMarkerSize(0);
    // config + op type -> merged histogram across repeats
    Map<String, Histogram> curves = new LinkedHashMap<>();
    for (RunResult run : r.runs()) {
      for (PhaseResult p : run.phases()) {
        if (p.workload().equals(phase)) {
          p.histograms()
              .forEach(
                  (op, h) -> {
                    if (ops.test(op)) {
                      curves
                          .computeIfAbsent(
                              run.config() + " " + op, k -> LatencyStats.newHistogram())
                          .add(h);
                    }
                  });
        }
      }
    }
    curves.forEach(
        (name, h) -> {
          double[][] xy = percentileCurve(h);
          if (xy[0].length > 0) {
            XYSeries s = chart.addSeries(name, xy[0], xy[1]);
            s.setMarker(SeriesMarkers.NONE);
          }
        });
    return chart;
  }

  /** Points (nines, latency in us) from P0 to the resolvable maximum, 20 per nine. */
  static double[][] percentileCurve(Histogram h) {
    long n = h.getTotalCount();
    if (n == 0) {
      return new double[2][0];
    }
    double maxNines = Math.min(5, Math.log10(n));
    int points = (int) Math.floor(maxNines * 20) + 1;
    double[] x = new double[points];
    double[] y = new double[points];
    for (int i = 0; i < points; i++) {
      x[i] = i / 20.0;
      double p = 100 * (1 - Math.pow(10, -x[i]));
      y[i] = Math.max(0.001, h.getValueAtPercentile(p) / 1000.0);
    }
    return new double[][] {x, y};
  }

  /** The writes' P99 latency in each timeline interval (WALTZ's Fig. 15), per configuration. */
  static XYChart writeP99Chart(BenchReport r, String phase) {
    XYChart chart =
        chart(
            phase + ": WRITE P99 latency per interval", "time (s)", "P99 latency (us, log scale)");
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setMarkerSize(4);
    boolean repeats = r.settings().repeat() > 1;
    for (RunResult run : r.runs()) {
      for (PhaseResult p : run.phases()) {
        double[] v = p.writeP99Timeline();
        if (!p.workload().equals(phase) || v.length != p.timelineSeconds().length) {
          continue;
        }
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (int i = 0; i < v.length; i++) {
          if (!Double.isNaN(v[i]) && v[i] > 0) { // an interval without writes has no point
            xs.add(p.timelineSeconds()[i]);
            ys.add(v[i]);
          }
        }
        if (!xs.isEmpty()) {
          chart.addSeries(run.config() + (repeats ? " #" + run.repeat() : ""), xs, ys);
        }
      }
    }
    return chart;
  }

  static XYChart throughputChart(BenchReport r, String phase) {
    XYChart chart = chart(phase + ": throughput over time", "time (s)", "operations per second");
    chart.getStyler().setMarkerSize(4);
    chart.getStyler().setYAxisDecimalPattern("#,###");
    boolean repeats = r.settings().repeat() > 1;
    for (RunResult run : r.runs()) {
      for (PhaseResult p : run.phases()) {
        if (p.workload().equals(phase) && p.timeline().length > 0) {
          // Each point at the time its interval really ended (a late sample is plotted late).
          double[] t = p.timelineSeconds().clone();
          chart.addSeries(run.config() + (repeats ? " #" + run.repeat() : ""), t, p.timeline());
        }
      }
    }
    return chart;
  }

  /**
   * The kv-sets' windows over the phase: configuration c's set k is drawn around y = c * (sets + 1)
   * + k, at +0.4 in DTWIN, -0.4 in NDWIN and 0 with PLM off.
   */
  static XYChart windowChart(BenchReport r, String phase) {
    XYChart chart =
        chart(
            phase + ": windows of the kv-sets (up: DTWIN, down: NDWIN, middle: PLM off)",
            "time (s)",
            "configuration and kv-set");
    chart.getStyler().setMarkerSize(0);
    List<String> drawn = new ArrayList<>();
    for (RunResult run : r.runs()) {
      for (PhaseResult p : run.phases()) {
        WindowTimeline w = p.windows();
        if (!p.workload().equals(phase) || w == null || w.seconds().length == 0) {
          continue;
        }
        if (drawn.contains(run.config())) {
          continue; // the first repeat only
        }
        int c = drawn.size();
        drawn.add(run.config());
        int sets = w.windows()[0].length;
        for (int k = 0; k < sets; k++) {
          int n = w.seconds().length;
          double[] x = new double[2 * n];
          double[] y = new double[2 * n];
          for (int i = 0; i < n; i++) { // steps: hold each value until the next sample
            int win = k < w.windows()[i].length ? w.windows()[i][k] : 0;
            double level = c * (sets + 1) + k + (win == 1 ? 0.4 : win == 2 ? -0.4 : 0);
            x[2 * i] = w.seconds()[i];
            x[2 * i + 1] = i + 1 < n ? w.seconds()[i + 1] : w.seconds()[i];
            y[2 * i] = level;
            y[2 * i + 1] = level;
          }
          XYSeries s = chart.addSeries(run.config() + " set " + (k + 2), x, y);
          s.setMarker(SeriesMarkers.NONE);
        }
      }
    }
    return chart;
  }

  private static XYChart chart(String title, String xAxis, String yAxis) {
    return new XYChartBuilder()
        .width(WIDTH)
        .height(HEIGHT)
        .title(title)
        .xAxisTitle(xAxis)
        .yAxisTitle(yAxis)
        .build();
  }

  private static Path save(XYChart chart, Path file) throws IOException {
    if (chart.getSeriesMap().isEmpty()) {
      // XChart refuses to draw an empty chart; a placeholder series keeps the file list stable.
      chart.addSeries("no samples", new double[] {0}, new double[] {1});
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  /** A phase name as a file name: letters, digits, '-' and '.'. */
  static String fileName(String phase) {
    return phase.replaceAll("[^A-Za-z0-9.-]", "_");
  }
}
