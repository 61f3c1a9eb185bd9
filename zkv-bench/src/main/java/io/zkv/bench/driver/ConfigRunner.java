package io.zkv.bench.driver;

import io.zkv.bench.workload.DbBenchWorkloads;
import io.zkv.bench.workload.OperationMix;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of one configuration: opens a fresh store, runs every phase of every workload in order on
 * it (as db_bench's {@code --benchmarks=a,b,c} does), and closes it. A phase that reads, when no
 * earlier phase wrote, is preceded by an unmeasured {@code fillseq} of all keys so that it reads
 * existing data; the run's notes say so.
 */
final class ConfigRunner {
  private ConfigRunner() {}

  static RunResult run(
      TargetConfig config, BenchSettings settings, int repeat, Path scratchDir, Progress progress)
      throws InterruptedException {
    List<PhaseSpec> phases = new ArrayList<>();
    for (String w : settings.workloads()) {
      phases.addAll(WorkloadCatalog.phases(w, settings));
    }
    List<PhaseResult> results = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try (BenchStore store = open(config, settings, scratchDir)) {
      PhaseRunner runner = new PhaseRunner(store, settings, progress);
      boolean populated = false;
      for (PhaseSpec p : phases) {
        if (p.readsData() && !populated) {
          runner.run(prefill(settings), config.label());
          notes.add(
              String.format(
                  Locale.ROOT,
                  "unmeasured fillseq of %,d keys before %s",
                  settings.keys(),
                  p.name()));
          populated = true;
        }
        ZoneCounters before = store.counters();
        PhaseResult r = runner.run(p, config.label());
        ZoneCounters after = store.counters();
        if (before != null) {
          r = r.withDevice(DeviceFigures.between(before, after, r.userBytes()));
        }
        results.add(r);
        populated |= p.writesData();
      }
    }
    return new RunResult(config.label(), repeat, results, notes);
  }

  static BenchStore open(TargetConfig c, BenchSettings s, Path scratchDir) {
    return switch (c.target()) {
      case ZKV -> ZkvStore.open(c, s, scratchDir);
      case ROCKSDB_DEFAULT -> RocksDefaultStore.open(c, s, scratchDir);
    };
  }

  private static PhaseSpec prefill(BenchSettings s) {
    // One sequence shared by the threads: the keys 0..keys-1 once each.
    OperationMix sequence = DbBenchWorkloads.fillSeq(s.keys(), s.valueSize());
    return new PhaseSpec("prefill", t -> sequence, null, s.keys(), false, false, true);
  }
}
