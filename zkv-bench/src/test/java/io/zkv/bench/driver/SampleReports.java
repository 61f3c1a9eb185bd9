package io.zkv.bench.driver;

import io.zkv.cli.Versions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/** Synthetic results with known figures, for the report and comparison tests. */
final class SampleReports {
  static final Versions VERSIONS =
      new Versions(
          "0.1.0-test", "0123456789ab", "9.7.3", "17.0.15", "OpenJDK 64-Bit Server VM, Debian");

  private SampleReports() {}

  static BenchSettings settings(int repeat) {
    return new BenchSettings(
        List.of("fillrandom"), 1, 16, 100, 100, 1000, 0, 0, false, 64L << 20, 0, 1, 1, repeat);
  }

  /** A phase of {@code ops} operations over {@code seconds}, every READ taking {@code us}. */
  static PhaseResult phase(String name, long ops, double seconds, long us, DeviceFigures device) {
    Histogram h = LatencyStats.newHistogram();
    h.recordValueWithCount(us * 1000, ops);
    Map<String, Histogram> hs = new TreeMap<>(Map.of("READ", h));
    Map<String, LatencyStats> ls = new TreeMap<>(Map.of("READ", LatencyStats.of(h)));
    double[] timeline = new double[(int) Math.ceil(seconds)];
    java.util.Arrays.fill(timeline, ops / seconds);
    double[] times = new double[timeline.length];
    for (int i = 0; i < times.length; i++) {
      times[i] = Math.min(i + 1, seconds);
    }
    return new PhaseResult(
        name,
        ops,
        seconds,
        ops,
        ops,
        ops * 116,
        ls,
        hs,
        1,
        timeline,
        times,
        0,
        0,
        device,
        null,
        null,
        null,
        null,
        null,
        p99Timeline(timeline.length));
  }

  /** A per-interval write P99 of 200 us, 900 us in the second interval. */
  static double[] p99Timeline(int n) {
    double[] p = new double[n];
    java.util.Arrays.fill(p, 200);
    if (n > 1) {
      p[1] = 900;
    }
    return p;
  }

  static DeviceFigures device(double wa) {
    return new DeviceFigures(
        1000,
        1500,
        0,
        40,
        (long) (1000 * wa),
        wa,
        wa / 1.5,
        3,
        60,
        1.25,
        10,
        0,
        1,
        4,
        3,
        2,
        1.5,
        2.5,
        new io.zkv.fs.HintOverlapCounts(8, 12, 9, 2, 1),
        java.util.Map.of("RESERVE", 2L),
        new WalZoneCounts(5, 1, 250_000, 0, 3));
  }

  /**
   * Two configurations, A (zkv) and B (rocksdb-default), two repeats: A does 1000 and 3000 ops/s at
   * 10 us; B does 4000 and 2000 ops/s at 5 us.
   */
  static BenchReport twoConfigs() {
    List<TargetConfig> configs =
        List.of(
            TargetConfig.parse("zkv:label=A", defaults()),
            TargetConfig.parse("rocksdb-default:label=B", defaults()));
    List<RunResult> runs = new ArrayList<>();
    runs.add(run("A", 1, phase("fillrandom", 1000, 1, 10, device(2.0))));
    runs.add(run("B", 1, phase("fillrandom", 4000, 1, 5, null)));
    runs.add(run("A", 2, phase("fillrandom", 3000, 1, 10, device(3.0))));
    runs.add(run("B", 2, phase("fillrandom", 2000, 1, 5, null)));
    return new BenchReport(
        "zkv bench compare --config A --config B",
        Instant.parse("2026-11-22T00:00:00Z"),
        settings(2),
        configs,
        runs,
        Comparison.figures(List.of("A", "B"), runs),
        List.of("machine: test"),
        VERSIONS);
  }

  static RunResult run(String config, int repeat, PhaseResult... phases) {
    return new RunResult(config, repeat, List.of(phases), List.of());
  }

  static TargetConfig defaults() {
    return TargetConfig.defaults(
        "instant", null, 16, 64L << 20, 48L << 20, "liza", false, LsmShape.DEFAULTS);
  }
}
