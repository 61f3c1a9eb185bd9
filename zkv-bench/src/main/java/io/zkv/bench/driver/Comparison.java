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
    // phase -> figure name -> config index -> values across repeats
    Map<String, Map<String, List<List<Double>>>> table = new LinkedHashMap<>();
    Map<String, Boolean> higherBetter = new LinkedHashMap<>();
    for (RunResult run : runs) {
      int ci = configs.indexOf(run.config());
      if (ci < 0) {
        throw new IllegalArgumentException("run of unknown configuration " + run.config());
      }
      for (PhaseResult p : run.phases()) {
        Map<String, List<List<Double>>> figs =
            table.computeIfAbsent(p.workload(), k -> new LinkedHashMap<>());
        if (p.recovery() != null) {
          recoveryFigures(figs, higherBetter, configs.size(), ci, p.recovery());
          continue;
        }
        add(figs, higherBetter, "ops/s", true, configs.size(), ci, p.opsPerSecond());
        if (!Double.isNaN(p.opsPerSecondStddev())) { // ZoneKV's stability: lower is steadier
          add(
              figs,
              higherBetter,
              "ops/s stddev",
              false,
              configs.size(),
              ci,
              p.opsPerSecondStddev());
        }
        if (p.writerOps() > 0) {
          add(figs, higherBetter, "writer ops/s", true, configs.size(), ci, p.writerOpsPerSecond());
        }
        p.latency()
            .forEach(
                (op, st) -> {
                  double[] v = st.values();
                  for (int i = 0; i < v.length; i++) {
                    add(
                        figs,
                        higherBetter,
                        op + " " + LatencyStats.NAMES[i] + " us",
                        false,
                        configs.size(),
                        ci,
                        v[i]);
                  }
                });
        if (p.readDeviceWaits() != null) { // how many device requests a Get waited for
          Histogram h = p.readDeviceWaits();
          double[] waits = {h.getMean(), h.getValueAtPercentile(99.9), h.getMaxValue()};
          String[] names = {"avg", "p99.9", "max"};
          for (int i = 0; i < names.length; i++) {
            add(
                figs,
                higherBetter,
                "READ device waits " + names[i],
                false,
                configs.size(),
                ci,
                waits[i]);
          }
        }
        if (p.writeStalls() != null && p.writes() > 0) {
          add(
              figs,
              higherBetter,
              "write stall s",
              false,
              configs.size(),
              ci,
              p.writeStalls().seconds());
        }
        if (p.device() != null) {
          add(
              figs,
              higherBetter,
              "write amplification",
              false,
              configs.size(),
              ci,
              p.device().writeAmplification());
          add(
              figs,
              higherBetter,
              "space amplification",
              false,
              configs.size(),
              ci,
              p.device().spaceAmplification());
          add(figs, higherBetter, "zones used", false, configs.size(), ci, p.device().zonesUsed());
          add(
              figs,
              higherBetter,
              "GC MiB",
              false,
              configs.size(),
              ci,
              p.device().gcBytes() / (double) (1 << 20));
          if (p.device().hostBytes() > 0) { // GC's own amplification: (host + GC) / host
            add(
                figs,
                higherBetter,
                "GC write amplification",
                false,
                configs.size(),
                ci,
                (p.device().hostBytes() + p.device().gcBytes()) / (double) p.device().hostBytes());
          }
          DeviceFigures d = p.device();
          if (!Double.isNaN(d.zoneSpaceAmplification())) { // ZoneKV's: zones used x capacity / live
            add(
                figs,
                higherBetter,
                "zone space amplification",
                false,
                configs.size(),
                ci,
                d.zoneSpaceAmplification());
          }
          if (d.resets() > 0) { // CAZA's Fig. 5: resets whose zone held nothing live
            add(
                figs,
                higherBetter,
                "zero-copy resets %",
                true,
                configs.size(),
                ci,
                d.zeroCopyResetPercent());
          }
          if (d.gcRuns() > 0 || d.gcBytes() > 0) {
            add(figs, higherBetter, "GC runs", false, configs.size(), ci, d.gcRuns());
          }
          if (!Double.isNaN(d.inputZonesPerCompaction())) { // CAZA's Fig. 6(a)
            add(
                figs,
                higherBetter,
                "zones per compaction",
                false,
                configs.size(),
                ci,
                d.inputZonesPerCompaction());
          }
          if (!Double.isNaN(d.hintOverlaps().ratio())) { // issue 25: the hints CAZA ranks by
            add(
                figs,
                higherBetter,
                "hint/own L+1 overlaps",
                false,
                configs.size(),
                ci,
                d.hintOverlaps().ratio());
          }
          if (p.writes() > 0) {
            add(
                figs,
                higherBetter,
                "metadata bytes per write",
                false,
                configs.size(),
                ci,
                (double) p.device().metaBytes() / p.writes());
          }
          if (p.device().policyDecisions() > 0) {
            // The file system's safety rules overriding the placement policy (0 = none).
            add(
                figs,
                higherBetter,
                "policy overrides",
                false,
                configs.size(),
                ci,
                p.device().policyOverrides());
          }
          WalZoneCounts wal = d.walZones();
          if (wal.switches() + wal.waits() > 0) { // WALTZ's +R: WAL zones off the put path
            add(figs, higherBetter, "WAL zone switches", true, configs.size(), ci, wal.switches());
            add(figs, higherBetter, "WAL zone waits", false, configs.size(), ci, wal.waits());
            add(
                figs,
                higherBetter,
                "WAL zone wait max us",
                false,
                configs.size(),
                ci,
                wal.waitMaxNanos() / 1000.0);
          }
        }
        if (p.plm() != null) { // the ablation ladder's figures (docs/plm.md)
          PlmCounters c = p.plm();
          add(figs, higherBetter, "reads rebuilt %", false, configs.size(), ci, c.rebuiltPercent());
          add(
              figs,
              higherBetter,
              "internal writes in DTWIN %",
              false,
              configs.size(),
              ci,
              c.writesInDtwinPercent());
          add(
              figs,
              higherBetter,
              "device reads outside DTWIN %",
              false,
              configs.size(),
              ci,
              c.readsOutsideDtwinPercent());
          add(
              figs,
              higherBetter,
              "modelled reads > 200 us",
              false,
              configs.size(),
              ci,
              c.modelReadsOver200us());
        }
        if (p.writes() > 0) {
          // Equal on every configuration (ratio 1.00x) when the phase left the same data.
          add(figs, higherBetter, "writes", true, configs.size(), ci, p.writes());
        }
      }
    }
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

  /** A reopen's figures: recovery and its parts, then the flush after it. */
  private static void recoveryFigures(
      Map<String, List<List<Double>>> figs,
      Map<String, Boolean> higherBetter,
      int configs,
      int ci,
      RecoveryFigures r) {
    add(figs, higherBetter, "recovery s", false, configs, ci, r.seconds());
    add(figs, higherBetter, "mount s", false, configs, ci, r.mountSeconds());
    add(figs, higherBetter, "mount chunk scan s", false, configs, ci, r.chunkScanSeconds());
    add(figs, higherBetter, "mount chunk scan MiB", false, configs, ci, r.chunkBytes() / MIB);
    add(figs, higherBetter, "mount chunk scan reads", false, configs, ci, r.chunkReads());
    add(figs, higherBetter, "replay s", false, configs, ci, r.replaySeconds());
    add(figs, higherBetter, "replay MiB read", false, configs, ci, r.replayReadBytes() / MIB);
    add(figs, higherBetter, "replay device reads", false, configs, ci, r.replayReads());
    add(figs, higherBetter, "WAL MiB", false, configs, ci, r.walBytes() / MIB);
    add(figs, higherBetter, "flush after replay s", false, configs, ci, r.flushSeconds());
    add(figs, higherBetter, "entries recovered", true, configs, ci, r.entries());
  }

  private static final double MIB = 1024.0 * 1024.0;

  private static void add(
      Map<String, List<List<Double>>> figs,
      Map<String, Boolean> higherBetter,
      String name,
      boolean higher,
      int configs,
      int config,
      double value) {
    higherBetter.put(name, higher);
    figs.computeIfAbsent(
            name,
            k -> {
              List<List<Double>> l = new ArrayList<>();
              for (int i = 0; i < configs; i++) {
                l.add(new ArrayList<>());
              }
              return l;
            })
        .get(config)
        .add(value);
  }
}
