package io.zkv.bench.driver;

import io.zkv.bench.workload.DbBenchWorkloads;
import io.zkv.bench.workload.OperationMix;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.HostLateness;
import io.zkv.device.ZonedDeviceException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One run of one configuration: opens a fresh store, runs every phase of every workload in order on
 * it (as db_bench's {@code --benchmarks=a,b,c} does), and closes it. A phase that reads, when no
 * earlier phase wrote, is preceded by an unmeasured {@code fillseq} of all keys so that it reads
 * existing data; the run's notes say so. After the prefill and after every phase that writes, the
 * store settles (flush, then wait for compactions; unmeasured), so that the next phase starts from
 * the same quiet state on every configuration; the {@code recover} workload's writing phase does
 * not (its data must stay in the WAL), and its reopen phase runs no operations: {@link
 * BenchStore#reopen}. A phase's device figures span the phase and its settling: the flushes and
 * compactions it caused count in its write amplification. A phase in which the host could not
 * honour the emulated device's timing profile (more than 1% of the timed completions late, see
 * {@link HostLateness}) gets a note saying so.
 */
final class ConfigRunner {
  private ConfigRunner() {}

  static RunResult run(
      TargetConfig config, BenchSettings settings, int repeat, Path scratchDir, Progress progress)
      throws InterruptedException {
    BenchSettings s = config.settingsFor(settings);
    try (BenchStore store = open(config, s, scratchDir)) {
      return runOn(store, config.label(), s, repeat, progress);
    }
  }

  /** Runs every phase on {@code store} (which the caller opened and closes). */
  static RunResult runOn(
      BenchStore store, String label, BenchSettings settings, int repeat, Progress progress)
      throws InterruptedException {
    List<PhaseSpec> phases = new ArrayList<>();
    for (String w : settings.workloads()) {
      phases.addAll(WorkloadCatalog.phases(w, settings));
    }
    List<PhaseResult> results = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    PhaseRunner runner = new PhaseRunner(store, settings, progress);
    if (store.deviceNote() != null) {
      notes.add(store.deviceNote());
    }
    boolean populated = false;
    for (PhaseSpec p : phases) {
      if (p.reopens()) {
        RecoveryFigures recovery = store.reopen();
        if (recovery.recoveryLateness().notHonoured()) {
          notes.add(p.name() + ": " + recovery.recoveryLateness().describe());
        }
        if (recovery.flushLateness().notHonoured()) {
          notes.add(p.name() + " (flush after replay): " + recovery.flushLateness().describe());
        }
        results.add(PhaseResult.ofRecovery(p.name(), recovery));
        addShapeNote(store, label, repeat, p.name() + " (its flush included)", notes);
        continue;
      }
      if (p.readsData() && !populated) {
        BenchSettings keySpace = settings.scaled(WorkloadCatalog.scaleOf(p.name())); // NAME*K's
        runner.run(prefill(keySpace), label);
        notes.add(
            String.format(
                Locale.ROOT,
                "unmeasured fillseq of %,d keys before %s",
                keySpace.keys(),
                p.name()));
        settle(store, "the prefill", notes, Settling.TIMEOUT_MILLIS);
        populated = true;
      }
      ZoneCounters before = store.counters();
      PlmCounters plmBefore = plmCounters(store);
      HostLateness lateBefore = EmulatedDevice.lateness();
      WindowTimeline.Sampler windows =
          store.plmArray() != null ? WindowTimeline.start(store.plmArray()) : null;
      WriteStalls stallsBefore = WriteStalls.read(store);
      PhaseResult r = runner.run(p, label);
      if (stallsBefore != null) {
        r = r.withWriteStalls(WriteStalls.read(store).since(stallsBefore));
      }
      WindowTimeline timeline = windows != null ? windows.stop() : null;
      HostLateness late = EmulatedDevice.lateness().since(lateBefore);
      if (late.notHonoured()) {
        notes.add(p.name() + ": " + late.describe());
      }
      if (p.settles()) {
        settle(store, p.name(), notes, Settling.timeoutAfter(r.seconds()));
        addShapeNote(store, label, repeat, p.name(), notes);
      }
      ZoneCounters after = store.counters();
      if (before != null && p.writesData()) {
        notes.add(
            String.format(
                Locale.ROOT,
                "%s #%d after %s: zones by level %s",
                label,
                repeat,
                p.name(),
                store.zoneLevels()));
      }
      if (before != null) {
        r = r.withDevice(DeviceFigures.between(before, after, r.userBytes()));
        if (!r.device().overridesByReason().isEmpty()) { // which safety rule stepped in
          notes.add(
              String.format(
                  Locale.ROOT,
                  "%s #%d %s: policy overrides by reason %s",
                  label,
                  repeat,
                  p.name(),
                  r.device().overridesByReason()));
        }
      }
      if (plmBefore != null) {
        r = r.withPlm(plmCounters(store).since(plmBefore), timeline);
      }
      results.add(r);
      populated |= p.writesData();
    }
    return new RunResult(label, repeat, results, notes);
  }

  /** The LSM tree's shape after a phase, for the notes (stores with RocksDB). */
  private static void addShapeNote(
      BenchStore store, String label, int repeat, String after, List<String> notes) {
    String shape = store.lsmShape();
    if (shape != null) {
      notes.add(
          String.format(
              Locale.ROOT,
              "%s #%d after %s: LSM files per level L0-L6 %s",
              label,
              repeat,
              after,
              shape));
    }
  }

  private static PlmCounters plmCounters(BenchStore store) {
    try {
      return store.plmArray() == null ? null : PlmCounters.of(store.plmArray());
    } catch (ZonedDeviceException e) {
      throw new IllegalStateException("cannot read the plmarray: counters: " + e.getMessage(), e);
    }
  }

  private static void settle(BenchStore store, String after, List<String> notes, long timeoutMillis)
      throws InterruptedException {
    if (!store.settle(timeoutMillis)) {
      notes.add(
          String.format(
              Locale.ROOT,
              "compactions after %s still ran after %d s; its figures and any next phase went on"
                  + " anyway",
              after,
              timeoutMillis / 1000));
    }
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
    return new PhaseSpec("prefill", sequence, null, s.keys(), 0, false, false, true, true, false);
  }
}
