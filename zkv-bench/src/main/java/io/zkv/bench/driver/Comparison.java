package io.zkv.bench.driver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The arithmetic of compare mode: the alternating run order, and each figure across repeats
 * (median, min, max) with its ratio to the first configuration's median.
 */
public final class Comparison {
  private Comparison() {}

  /** One slot of the run order. */
  public record Slot(int config, int repeat) {}

  /**
   * The run order: every configuration once per round, the order reversed every other round ({@code
   * A B, B A, A B, ...}; with three, {@code A B C, C B A, ...}). Slow drifts of the machine (page
   * cache, thermal, other load) and whatever a run leaves to the next one then spread over all
   * configurations instead of always favouring the same one; with an even repeat count every
   * configuration takes each position in a round equally often. The cold JVM (class loading, JIT)
   * still costs the very first run, A's first repeat: the median over several repeats damps it.
   */
  public static List<Slot> schedule(int configs, int repeats) {
    if (configs < 1 || repeats < 1) {
      throw new IllegalArgumentException("need at least one configuration and one repeat");
    }
    List<Slot> order = new ArrayList<>();
    for (int r = 0; r < repeats; r++) {
      for (int i = 0; i < configs; i++) {
        order.add(new Slot(r % 2 == 0 ? i : configs - 1 - i, r));
      }
    }
    return order;
  }

  /**
   * The phases whose runs did not all write the same keys (write count and key digest), as
   * messages; empty when every run of every configuration left the same data after each phase.
   */
  public static List<String> parityProblems(List<RunResult> runs) {
    Map<String, Map<String, List<String>>> byPhase = new LinkedHashMap<>();
    for (RunResult run : runs) {
      for (PhaseResult p : run.phases()) {
        byPhase
            .computeIfAbsent(p.workload(), k -> new LinkedHashMap<>())
            .computeIfAbsent(
                p.writes() + " writes, digest " + Long.toHexString(p.writesDigest()),
                k -> new ArrayList<>())
            .add(run.config() + " #" + run.repeat());
      }
    }
    List<String> problems = new ArrayList<>();
    byPhase.forEach(
        (phase, variants) -> {
          if (variants.size() > 1) {
            problems.add(phase + " wrote different keys: " + variants);
          }
        });
    return problems;
  }

  /** Median (mean of the middle two for an even count), min and max of some values. */
  public record Spread(double median, double min, double max, int count) {
    public static Spread of(List<Double> values) {
      double[] v =
          values.stream()
              .mapToDouble(Double::doubleValue)
              .filter(d -> !Double.isNaN(d))
              .sorted()
              .toArray();
      if (v.length == 0) {
        return new Spread(Double.NaN, Double.NaN, Double.NaN, 0);
      }
      int n = v.length;
      double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
      return new Spread(median, v[0], v[n - 1], n);
    }
  }

  /**
   * One figure of one phase for every configuration.
   *
   * @param workload phase name
   * @param name figure name, e.g. {@code ops/s} or {@code READ p99 us}
   * @param higherIsBetter whether a larger value is better (throughput) or worse (latency, WA)
   * @param spreads per configuration, in configuration order (null where it has no such figure)
   */
  public record Figure(String workload, String name, boolean higherIsBetter, List<Spread> spreads) {
    /**
     * {@code median(config i) / median(config 0)}; NaN when either is missing or the first is 0.
     */
    public double ratio(int config) {
      Spread base = spreads.get(0);
      Spread s = spreads.get(config);
      if (base == null || s == null || base.count() == 0 || s.count() == 0 || base.median() == 0) {
        return Double.NaN;
      }
      return s.median() / base.median();
    }
  }

  /**
   * The figures of every phase: throughput (the clients'), the background writer's throughput where
   * there is one, then per operation type avg, p50, p75, p99, p99.9, p99.99 and max latency, then
   * RocksDB's write stall seconds (phases that write), write amplification and space amplification
   * where measured, then the number of writes. {@code runs} may come in any order; they are grouped
   * by configuration label.
   */
  public static List<Figure> figures(List<String> configs, List<RunResult> runs) {
    FigureTable table = new FigureTable(configs.size());
    for (RunResult run : runs) {
      int ci = configs.indexOf(run.config());
      if (ci < 0) {
        throw new IllegalArgumentException("run of unknown configuration " + run.config());
      }
      for (PhaseResult p : run.phases()) {
        phaseFigures(table.phase(p.workload(), ci), p);
      }
    }
    return table.figures();
  }

  /** One run's figures of one phase, in the order {@link #figures} lists them. */
  private static void phaseFigures(FigureTable.Row f, PhaseResult p) {
    if (p.recovery() != null) {
      recoveryFigures(f, p.recovery());
      return;
    }
    throughputFigures(f, p);
    p.latency()
        .forEach(
            (op, st) -> {
              double[] v = st.values();
              for (int i = 0; i < v.length; i++) {
                f.add(op + " " + LatencyStats.NAMES[i] + " us", false, v[i]);
              }
            });
    if (p.readDeviceWaits() != null) { // how many device requests a Get waited for
      readDeviceWaitFigures(f, p.readDeviceWaits());
    }
    if (p.writeStalls() != null && p.writes() > 0) {
      f.add("write stall s", false, p.writeStalls().seconds());
    }
    if (p.device() != null) {
      amplificationFigures(f, p.device());
      placementFigures(f, p.device(), p.writes());
      walZoneFigures(f, p.device().walZones());
    }
    if (p.plm() != null) { // the ablation ladder's figures (docs/plm.md)
      plmFigures(f, p.plm());
    }
    if (p.writes() > 0) {
      // Equal on every configuration (ratio 1.00x) when the phase left the same data.
      f.add("writes", true, p.writes());
    }
  }

  /** The clients' throughput and its steadiness, and the background writer's. */
  private static void throughputFigures(FigureTable.Row f, PhaseResult p) {
    f.add("ops/s", true, p.opsPerSecond());
    if (!Double.isNaN(p.opsPerSecondStddev())) { // ZoneKV's stability: lower is steadier
      f.add("ops/s stddev", false, p.opsPerSecondStddev());
    }
    if (p.writerOps() > 0) {
      f.add("writer ops/s", true, p.writerOpsPerSecond());
    }
  }

  private static void readDeviceWaitFigures(FigureTable.Row f, Histogram h) {
    double[] waits = {h.getMean(), h.getValueAtPercentile(99.9), h.getMaxValue()};
    String[] names = {"avg", "p99.9", "max"};
    for (int i = 0; i < names.length; i++) {
      f.add("READ device waits " + names[i], false, waits[i]);
    }
  }

  /** What the device wrote and held for the data: write and space amplification, GC's bytes. */
  private static void amplificationFigures(FigureTable.Row f, DeviceFigures d) {
    f.add("write amplification", false, d.writeAmplification());
    f.add("space amplification", false, d.spaceAmplification());
    f.add("zones used", false, d.zonesUsed());
    f.add("GC MiB", false, d.gcBytes() / MIB);
    if (d.hostBytes() > 0) { // GC's own amplification: (host + GC) / host
      f.add(
          "GC write amplification", false, (d.hostBytes() + d.gcBytes()) / (double) d.hostBytes());
    }
    if (!Double.isNaN(d.zoneSpaceAmplification())) { // ZoneKV's: zones used x capacity / live
      f.add("zone space amplification", false, d.zoneSpaceAmplification());
    }
  }

  /** How placement and GC did: resets, GC runs, compaction inputs, hints, metadata, overrides. */
  private static void placementFigures(FigureTable.Row f, DeviceFigures d, long writes) {
    if (d.resets() > 0) { // CAZA's Fig. 5: resets whose zone held nothing live
      f.add("zero-copy resets %", true, d.zeroCopyResetPercent());
    }
    if (d.gcRuns() > 0 || d.gcBytes() > 0) {
      f.add("GC runs", false, d.gcRuns());
    }
    if (!Double.isNaN(d.inputZonesPerCompaction())) { // CAZA's Fig. 6(a)
      f.add("zones per compaction", false, d.inputZonesPerCompaction());
    }
    if (!Double.isNaN(d.hintOverlaps().ratio())) { // issue 25: the hints CAZA ranks by
      f.add("hint/own L+1 overlaps", false, d.hintOverlaps().ratio());
    }
    if (writes > 0) {
      f.add("metadata bytes per write", false, (double) d.metaBytes() / writes);
    }
    if (d.policyDecisions() > 0) {
      // The file system's safety rules overriding the placement policy (0 = none).
      f.add("policy overrides", false, d.policyOverrides());
    }
  }

  private static void walZoneFigures(FigureTable.Row f, WalZoneCounts wal) {
    if (wal.switches() + wal.waits() > 0) { // WALTZ's +R: WAL zones off the put path
      f.add("WAL zone switches", true, wal.switches());
      f.add("WAL zone waits", false, wal.waits());
      f.add("WAL zone wait max us", false, wal.waitMaxNanos() / 1000.0);
    }
  }

  private static void plmFigures(FigureTable.Row f, PlmCounters c) {
    f.add("reads rebuilt %", false, c.rebuiltPercent());
    f.add("internal writes in DTWIN %", false, c.writesInDtwinPercent());
    f.add("device reads outside DTWIN %", false, c.readsOutsideDtwinPercent());
    f.add("modelled reads > 200 us", false, c.modelReadsOver200us());
  }

  /** A reopen's figures: recovery and its parts, then the flush after it. */
  private static void recoveryFigures(FigureTable.Row f, RecoveryFigures r) {
    f.add("recovery s", false, r.seconds());
    f.add("mount s", false, r.mountSeconds());
    f.add("mount chunk scan s", false, r.chunkScanSeconds());
    f.add("mount chunk scan MiB", false, r.chunkBytes() / MIB);
    f.add("mount chunk scan reads", false, r.chunkReads());
    f.add("replay s", false, r.replaySeconds());
    f.add("replay MiB read", false, r.replayReadBytes() / MIB);
    f.add("replay device reads", false, r.replayReads());
    f.add("WAL MiB", false, r.walBytes() / MIB);
    f.add("flush after replay s", false, r.flushSeconds());
    f.add("entries recovered", true, r.entries());
  }

  private static final double MIB = 1024.0 * 1024.0;

  /**
   * Every figure's values across repeats, by phase, figure name and configuration, each in the
   * order first seen; whether higher is better goes by the figure's name.
   */
  private static final class FigureTable {
    // phase -> figure name -> config index -> values across repeats
    private final Map<String, Map<String, List<List<Double>>>> table = new LinkedHashMap<>();
    private final Map<String, Boolean> higherBetter = new LinkedHashMap<>();
    private final int configs;

    FigureTable(int configs) {
      this.configs = configs;
    }

    /** Where configuration {@code config}'s run of {@code phase} adds its figures. */
    Row phase(String phase, int config) {
      return new Row(table.computeIfAbsent(phase, k -> new LinkedHashMap<>()), config);
    }

    /** The figures with a value on some configuration, each with its spreads. */
    List<Figure> figures() {
      List<Figure> out = new ArrayList<>();
      table.forEach(
          (phase, figs) ->
              figs.forEach(
                  (name, perConfig) -> {
                    List<Spread> spreads = new ArrayList<>();
                    for (List<Double> v : perConfig) {
                      spreads.add(v.isEmpty() ? null : Spread.of(v));
                    }
                    // A figure no configuration has (WA of a phase that wrote nothing) is left out.
                    if (spreads.stream().anyMatch(sp -> sp != null && sp.count() > 0)) {
                      out.add(new Figure(phase, name, higherBetter.get(name), spreads));
                    }
                  }));
      return out;
    }

    /** One configuration's figures of one phase. */
    final class Row {
      private final Map<String, List<List<Double>>> figs;
      private final int config;

      Row(Map<String, List<List<Double>>> figs, int config) {
        this.figs = figs;
        this.config = config;
      }

      void add(String name, boolean higher, double value) {
        higherBetter.put(name, higher);
        figs.computeIfAbsent(name, k -> perConfig()).get(config).add(value);
      }

      private List<List<Double>> perConfig() {
        List<List<Double>> l = new ArrayList<>();
        for (int i = 0; i < configs; i++) {
          l.add(new ArrayList<>());
        }
        return l;
      }
    }
  }
}
