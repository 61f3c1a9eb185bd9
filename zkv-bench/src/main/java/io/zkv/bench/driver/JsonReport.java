package io.zkv.bench.driver;

import io.zkv.cli.Json;
import io.zkv.cli.Versions;
import io.zkv.fs.HintOverlapCounts;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report as JSON: settings, configurations, every run's phases (latency per operation type,
 * throughput timeline, device figures) and the compared figures with their ratios. Latencies are in
 * microseconds; NaN and infinite numbers are written as {@code null}. Field names are described in
 * {@code docs/benchmarks.md}.
 */
public final class JsonReport {
  private final StringBuilder b = new StringBuilder();

  private JsonReport() {}

  public static String render(BenchReport r) {
    JsonReport j = new JsonReport();
    j.report(r);
    return j.b.append('\n').toString();
  }

  private void report(BenchReport r) {
    b.append("{\n");
    field(1, "tool", str("zkv bench")).append(",\n");
    field(1, "command", str(r.command())).append(",\n");
    field(1, "started", str(r.started().toString())).append(",\n");
    field(1, "environment", strings(r.environment())).append(",\n");
    versions(r.versions());
    field(1, "parityProblems", strings(Comparison.parityProblems(r.runs()))).append(",\n");
    settings(r.settings());
    indent(1).append("\"configs\": [");
    for (int i = 0; i < r.configs().size(); i++) {
      b.append(i == 0 ? "\n" : ",\n");
      config(r.configs().get(i));
    }
    b.append("\n  ],\n");
    indent(1).append("\"runs\": [");
    for (int i = 0; i < r.runs().size(); i++) {
      b.append(i == 0 ? "\n" : ",\n");
      run(r.runs().get(i));
    }
    b.append("\n  ],\n");
    indent(1).append("\"comparison\": [");
    List<String> labels = r.labels();
    for (int i = 0; i < r.figures().size(); i++) {
      b.append(i == 0 ? "\n" : ",\n");
      figure(r.figures().get(i), labels);
    }
    b.append("\n  ]\n}");
  }

  private void versions(Versions v) {
    indent(1).append("\"versions\": {\"zkv\": ").append(str(v.zkv()));
    b.append(", \"commit\": ").append(str(v.commit()));
    b.append(", \"rocksdb\": ").append(str(v.rocksDb()));
    b.append(", \"rocksdbjni\": ").append(str(v.rocksDb()));
    b.append(", \"java\": ").append(str(v.java()));
    b.append(", \"jvm\": ").append(str(v.jvm())).append("},\n");
  }

  private void settings(BenchSettings s) {
    indent(1).append("\"settings\": {");
    b.append("\"workloads\": ").append(strings(s.workloads()));
    b.append(", \"threads\": ").append(s.threads());
    b.append(", \"keySize\": ").append(s.keySize());
    b.append(", \"valueSize\": ").append(s.valueSize());
    b.append(", \"ycsbFieldLength\": ").append(s.ycsbFieldLength());
    b.append(", \"keys\": ").append(s.keys());
    b.append(", \"ops\": ").append(s.ops());
    b.append(", \"durationSeconds\": ").append(num(s.durationSeconds()));
    b.append(", \"distribution\": ").append(str(s.zipfian() ? "zipfian-0.99" : "uniform"));
    b.append(", \"writeBufferSize\": ").append(s.writeBufferSize());
    b.append(", \"bloomBitsPerKey\": ").append(num(s.bloomBitsPerKey()));
    b.append(", \"seed\": ").append(s.seed());
    b.append(", \"intervalSeconds\": ").append(num(s.intervalSeconds()));
    b.append(", \"repeat\": ").append(s.repeat());
    b.append("},\n");
  }

  private void config(TargetConfig c) {
    indent(2).append("{\"label\": ").append(str(c.label()));
    b.append(", \"target\": ").append(str(c.target().spec()));
    b.append(", \"description\": ").append(str(c.describe())).append('}');
  }

  /** One compared figure: each configuration's spread (where it has one) and ratio. */
  private void figure(Comparison.Figure f, List<String> labels) {
    indent(2).append("{\"workload\": ").append(str(f.workload()));
    b.append(", \"figure\": ").append(str(f.name()));
    b.append(", \"higherIsBetter\": ").append(f.higherIsBetter());
    b.append(", \"configs\": [");
    for (int c = 0; c < labels.size(); c++) {
      Comparison.Spread sp = f.spreads().get(c);
      b.append(c == 0 ? "" : ", ").append("{\"config\": ").append(str(labels.get(c)));
      if (sp != null) {
        b.append(", \"median\": ").append(num(sp.median()));
        b.append(", \"min\": ").append(num(sp.min()));
        b.append(", \"max\": ").append(num(sp.max()));
        b.append(", \"repeats\": ").append(sp.count());
      }
      b.append(", \"ratio\": ").append(num(f.ratio(c))).append('}');
    }
    b.append("]}");
  }

  private void run(RunResult run) {
    indent(2).append("{\"config\": ").append(str(run.config()));
    b.append(", \"repeat\": ").append(run.repeat());
    b.append(", \"notes\": ").append(strings(run.notes()));
    b.append(", \"phases\": [");
    for (int i = 0; i < run.phases().size(); i++) {
      b.append(i == 0 ? "\n" : ",\n");
      phase(run.phases().get(i));
    }
    b.append("]}");
  }

  private void phase(PhaseResult p) {
    indent(3).append("{\"workload\": ").append(str(p.workload()));
    b.append(", \"ops\": ").append(p.ops());
    b.append(", \"seconds\": ").append(num(p.seconds()));
    b.append(", \"opsPerSecond\": ").append(num(p.opsPerSecond()));
    b.append(", \"writes\": ").append(p.writes());
    b.append(", \"writesDigest\": ").append(str(Long.toHexString(p.writesDigest())));
    b.append(", \"userBytes\": ").append(p.userBytes());
    b.append(", \"writer\": ");
    writer(p);
    b.append(",\n");
    latency(p.latency());
    b.append(",\n");
    timeline(p);
    b.append(",\n");
    section("device", p.device(), this::device);
    b.append(",\n");
    section("writeStalls", p.writeStalls(), this::writeStalls);
    b.append(",\n");
    section("plm", p.plm(), this::plm);
    b.append(",\n");
    section("recovery", p.recovery(), this::recovery);
    b.append('}');
  }

  /** The background writer's figures, or null where the phase had none. */
  private void writer(PhaseResult p) {
    if (p.writerOps() > 0) {
      b.append("{\"ops\": ").append(p.writerOps());
      b.append(", \"seconds\": ").append(num(p.writerSeconds()));
      b.append(", \"opsPerSecond\": ").append(num(p.writerOpsPerSecond())).append('}');
    } else {
      b.append("null");
    }
  }

  private void latency(Map<String, LatencyStats> latency) {
    indent(4).append("\"latencyUs\": {");
    int k = 0;
    for (Map.Entry<String, LatencyStats> e : latency.entrySet()) {
      LatencyStats l = e.getValue();
      b.append(k++ == 0 ? "" : ", ").append(str(e.getKey())).append(": {");
      b.append("\"count\": ").append(l.count());
      double[] v = l.values();
      for (int n = 0; n < v.length; n++) {
        b.append(", ").append(str(LatencyStats.NAMES[n])).append(": ").append(num(v[n]));
      }
      b.append('}');
    }
    b.append('}');
  }

  private void timeline(PhaseResult p) {
    indent(4).append("\"timeline\": {\"intervalSeconds\": ").append(num(p.intervalSeconds()));
    b.append(", \"seconds\": ");
    numbers(p.timelineSeconds());
    b.append(", \"opsPerSecond\": ");
    numbers(p.timeline());
    b.append(", \"writeP99Us\": ");
    numbers(p.writeP99Timeline());
    b.append('}');
  }

  /** A JSON array of numbers. */
  private void numbers(double[] v) {
    b.append('[');
    for (int i = 0; i < v.length; i++) {
      b.append(i == 0 ? "" : ", ").append(num(v[i]));
    }
    b.append(']');
  }

  private void device(DeviceFigures d) {
    b.append("{\"userBytes\": ").append(d.userBytes());
    b.append(", \"hostBytes\": ").append(d.hostBytes());
    b.append(", \"gcBytes\": ").append(d.gcBytes());
    b.append(", \"metaBytes\": ").append(d.metaBytes());
    b.append(", \"deviceBytes\": ").append(d.deviceBytes());
    b.append(", \"writeAmplification\": ").append(num(d.writeAmplification()));
    b.append(", \"fsWriteAmplification\": ").append(num(d.fsWriteAmplification()));
    b.append(", \"zonesUsed\": ").append(d.zonesUsed());
    b.append(", \"dataZones\": ").append(d.dataZones());
    b.append(", \"spaceAmplification\": ").append(num(d.spaceAmplification()));
    b.append(", \"policyDecisions\": ").append(d.policyDecisions());
    b.append(", \"policyOverrides\": ").append(d.policyOverrides());
    b.append(", \"gcRuns\": ").append(d.gcRuns());
    b.append(", \"resets\": ").append(d.resets());
    b.append(", \"resetsWithoutCopy\": ").append(d.resetsWithoutCopy());
    b.append(", \"zoneFinishes\": ").append(d.zoneFinishes());
    b.append(", \"zoneSpaceAmplification\": ").append(num(d.zoneSpaceAmplification()));
    b.append(", \"inputZonesPerCompaction\": ").append(num(d.inputZonesPerCompaction()));
    hintOverlaps(d.hintOverlaps());
    b.append(", \"overridesByReason\": ");
    counts(d.overridesByReason());
    walZones(d.walZones());
    b.append('}');
  }

  private void hintOverlaps(HintOverlapCounts h) {
    b.append(", \"hintOverlaps\": {\"outputs\": ").append(h.outputs());
    b.append(", \"hint\": ").append(h.hintOverlaps());
    b.append(", \"own\": ").append(h.ownOverlaps());
    b.append(", \"coarse\": ").append(h.coarse());
    b.append(", \"unresolved\": ").append(h.unresolved()).append('}');
  }

  private void walZones(WalZoneCounts w) {
    b.append(", \"walZoneSwitches\": ").append(w.switches());
    b.append(", \"walZoneWaits\": ").append(w.waits());
    b.append(", \"walZoneWaitMaxUs\": ").append(w.waitMaxNanos() / 1000);
    b.append(", \"walReserveReturns\": ").append(w.returns());
    b.append(", \"walReserveDeclined\": ").append(w.declined());
  }

  private void writeStalls(WriteStalls w) {
    b.append("{\"seconds\": ").append(num(w.seconds()));
    b.append(", \"counts\": ");
    counts(w.counts());
    b.append('}');
  }

  private void plm(PlmCounters c) {
    b.append("{\"chunkReadsDirect\": ").append(c.chunkReadsDirect());
    b.append(", \"chunkReadsRebuilt\": ").append(c.chunkReadsRebuilt());
    b.append(", \"chunkReadsBuffered\": ").append(c.chunkReadsBuffered());
    b.append(", \"writesDirect\": ").append(c.writesDirect());
    b.append(", \"writesHeld\": ").append(c.writesHeld());
    b.append(", \"writesForced\": ").append(c.writesForced());
    b.append(", \"writesUnscheduled\": ").append(c.writesUnscheduled());
    b.append(", \"dtwinEntries\": ").append(c.dtwinEntries());
    b.append(", \"autonomousExits\": ").append(c.autonomousExits());
    b.append(", \"deviceReads\": ").append(c.deviceReads());
    b.append(", \"deviceReadsOutsideDtwin\": ").append(c.deviceReadsOutsideDtwin());
    b.append(", \"deviceReadsStalled\": ").append(c.deviceReadsStalled());
    b.append(", \"modelReadsOver200us\": ").append(c.modelReadsOver200us()).append('}');
  }

  private void recovery(RecoveryFigures r) {
    b.append("{\"seconds\": ").append(num(r.seconds()));
    b.append(", \"mountSeconds\": ").append(num(r.mountSeconds()));
    b.append(", \"chunkScanSeconds\": ").append(num(r.chunkScanSeconds()));
    b.append(", \"chunks\": ").append(r.chunks());
    b.append(", \"chunkBytes\": ").append(r.chunkBytes());
    b.append(", \"chunkReads\": ").append(r.chunkReads());
    b.append(", \"mountReads\": ").append(r.mountReads());
    b.append(", \"replaySeconds\": ").append(num(r.replaySeconds()));
    b.append(", \"replayReadBytes\": ").append(r.replayReadBytes());
    b.append(", \"replayReads\": ").append(r.replayReads());
    b.append(", \"flushSeconds\": ").append(num(r.flushSeconds()));
    b.append(", \"walBytes\": ").append(r.walBytes());
    b.append(", \"entries\": ").append(r.entries());
    b.append(", \"recoveryCompletionsTimed\": ").append(r.recoveryLateness().completions());
    b.append(", \"recoveryCompletionsLate\": ").append(r.recoveryLateness().late());
    b.append(", \"flushCompletionsTimed\": ").append(r.flushLateness().completions());
    b.append(", \"flushCompletionsLate\": ").append(r.flushLateness().late()).append('}');
  }

  /** A phase's section {@code "name": {...}}, or null where the phase has none. */
  private <T> void section(String name, T value, java.util.function.Consumer<T> body) {
    indent(4).append(str(name)).append(": ");
    if (value == null) {
      b.append("null");
    } else {
      body.accept(value);
    }
  }

  private StringBuilder indent(int n) {
    return b.append("  ".repeat(n));
  }

  private StringBuilder field(int indent, String name, String value) {
    return indent(indent).append(str(name)).append(": ").append(value);
  }

  private static String str(String s) {
    return Json.quote(s);
  }

  private static String strings(List<String> l) {
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < l.size(); i++) {
      s.append(i == 0 ? "" : ", ").append(Json.quote(l.get(i)));
    }
    return s.append(']').toString();
  }

  /** A JSON object of named counts. */
  private void counts(Map<String, Long> counts) {
    b.append('{');
    int n = 0;
    for (Map.Entry<String, Long> e : counts.entrySet()) {
      b.append(n++ == 0 ? "" : ", ").append(str(e.getKey())).append(": ").append(e.getValue());
    }
    b.append('}');
  }

  static String num(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "null";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    String g = String.format(Locale.ROOT, "%.6g", v);
    // Trailing zeros of the fraction only: 170000.128 prints as "170000", which is not "17".
    return g.indexOf('.') < 0 ? g : g.replaceAll("0+(e|$)", "$1").replaceAll("\\.(e|$)", "$1");
  }
}
