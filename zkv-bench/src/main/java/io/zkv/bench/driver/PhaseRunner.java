package io.zkv.bench.driver;

import io.zkv.bench.workload.KeyFormat;
import io.zkv.bench.workload.OpType;
import io.zkv.bench.workload.Operation;
import io.zkv.bench.workload.OperationMix;
import io.zkv.bench.workload.ValueGenerator;
import io.zkv.bench.workload.YcsbWorkload;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * Runs one phase: client threads draw operations from the phase's mix and execute them on the store
 * until the operation budget or the time limit is reached; each operation's latency goes to the
 * thread's HdrHistogram of its type, and the calling thread samples the completed count once per
 * interval for the throughput timeline.
 *
 * <p>Latency is the time of the store call(s) of one operation (a YCSB update is a read and a
 * write, as YCSB's RocksDB binding does it); generating keys and values is outside it.
 */
final class PhaseRunner {
  /** YCSB {@code fieldcount}: fixed at YCSB's default. */
  static final int YCSB_FIELDS = 10;

  private final BenchStore store;
  private final BenchSettings settings;
  private final Progress progress;

  PhaseRunner(BenchStore store, BenchSettings settings, Progress progress) {
    this.store = store;
    this.settings = settings;
    this.progress = progress;
  }

  PhaseResult run(PhaseSpec phase, String label) throws InterruptedException {
    long budget = phase.ops();
    double limit =
        phase.timeLimited() && settings.durationSeconds() > 0 ? settings.durationSeconds() : 0;
    AtomicLong remaining = new AtomicLong(budget);
    AtomicBoolean clientsDone = new AtomicBoolean();
    LongAdder completed = new LongAdder();
    List<Worker> workers = new ArrayList<>();
    SplittableRandom root = new SplittableRandom(settings.seed() ^ phase.name().hashCode());
    long start = System.nanoTime();
    long deadline = limit > 0 ? start + (long) (limit * 1e9) : Long.MAX_VALUE;
    for (int t = 0; t < settings.threads(); t++) {
      workers.add(
          new Worker(
              phase.mixForThread().apply(t),
              root.split(),
              remaining,
              deadline,
              null,
              completed,
              t));
    }
    Worker writer = null;
    if (phase.backgroundWriter() != null) {
      writer =
          new Worker(
              phase.backgroundWriter(),
              root.split(),
              null,
              Long.MAX_VALUE,
              clientsDone,
              completed,
              -1);
    }
    List<Thread> threads = new ArrayList<>();
    for (Worker w : workers) {
      threads.add(start(w, "bench-" + phase.name() + "-" + w.index));
    }
    Thread writerThread =
        writer == null ? null : start(writer, "bench-" + phase.name() + "-writer");
    // The timeline: sample the completed count at each interval's end.
    List<Double> timeline = new ArrayList<>();
    long interval = (long) (settings.intervalSeconds() * 1e9);
    long nextSample = start + interval;
    long lastCount = 0;
    long lastTime = start;
    progress.start();
    for (Thread t : threads) {
      while (t.isAlive()) {
        long now = System.nanoTime();
        if (now >= nextSample) {
          long c = completed.sum();
          timeline.add((c - lastCount) / ((now - lastTime) / 1e9));
          lastCount = c;
          lastTime = now;
          nextSample += interval;
          double elapsed = (now - start) / 1e9;
          double fraction =
              Math.max(
                  budget == Long.MAX_VALUE
                      ? 0
                      : (double) (budget - Math.max(0, remaining.get())) / budget,
                  limit > 0 ? elapsed / limit : 0);
          progress.update(label + " " + phase.name(), c, elapsed, fraction, c / elapsed);
        }
        long waitMillis = Math.max(1, (nextSample - System.nanoTime()) / 1_000_000);
        t.join(Math.min(waitMillis, 200));
      }
    }
    clientsDone.set(true);
    if (writerThread != null) {
      writerThread.join();
    }
    long end = System.nanoTime();
    long c = completed.sum();
    // The last, partial interval counts unless it is a sliver (its rate would be noise); a phase
    // shorter than one interval still gets its one point.
    if ((end - lastTime > interval / 20 || timeline.isEmpty()) && c > lastCount) {
      timeline.add((c - lastCount) / ((end - lastTime) / 1e9));
    }
    progress.finish();
    List<Worker> all = new ArrayList<>(workers);
    if (writer != null) {
      all.add(writer);
    }
    for (Worker w : all) {
      if (w.failure != null) {
        throw new IllegalStateException(
            "phase " + phase.name() + " on " + label + " failed: " + w.failure, w.failure);
      }
    }
    Map<String, Histogram> merged = new TreeMap<>();
    long userBytes = 0;
    for (Worker w : all) {
      userBytes += w.userBytes;
      for (Map.Entry<OpType, Histogram> e : w.histograms.entrySet()) {
        merged
            .computeIfAbsent(e.getKey().name(), k -> LatencyStats.newHistogram())
            .add(e.getValue());
      }
    }
    Map<String, LatencyStats> stats = new TreeMap<>();
    merged.forEach((k, h) -> stats.put(k, LatencyStats.of(h)));
    double[] tl = timeline.stream().mapToDouble(Double::doubleValue).toArray();
    return new PhaseResult(
        phase.name(),
        c,
        (end - start) / 1e9,
        userBytes,
        stats,
        merged,
        settings.intervalSeconds(),
        tl,
        null);
  }

  private static Thread start(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.start();
    return t;
  }

  /** One client (or the background writer, which runs until {@code stop} is set). */
  private final class Worker implements Runnable {
    final OperationMix mix;
    final SplittableRandom rng;
    final AtomicLong remaining;
    final long deadline;
    final AtomicBoolean stop;
    final LongAdder completed;
    final int index;
    final Map<OpType, Histogram> histograms = new EnumMap<>(OpType.class);
    final KeyFormat keys = new KeyFormat(settings.keySize());
    final ValueGenerator values;
    final Map<Integer, byte[]> valueBuffers = new HashMap<>();
    long userBytes;
    volatile Throwable failure;

    Worker(
        OperationMix mix,
        SplittableRandom rng,
        AtomicLong remaining,
        long deadline,
        AtomicBoolean stop,
        LongAdder completed,
        int index) {
      this.mix = mix;
      this.rng = rng;
      this.remaining = remaining;
      this.deadline = deadline;
      this.stop = stop;
      this.completed = completed;
      this.index = index;
      int largest =
          Math.max(
              settings.valueSize(),
              YcsbWorkload.rocksDbRecordBytes(YCSB_FIELDS, settings.ycsbFieldLength()));
      this.values =
          new ValueGenerator(ValueGenerator.DEFAULT_COMPRESSION_RATIO, largest, rng.nextLong());
    }

    @Override
    public void run() {
      Operation op = new Operation();
      byte[] key = new byte[settings.keySize()];
      try {
        while (true) {
          if (stop != null ? stop.get() : remaining.getAndDecrement() <= 0) {
            break;
          }
          if (System.nanoTime() >= deadline) {
            break;
          }
          mix.next(rng, op);
          keys.encode(op.key(), key, 0);
          byte[] value = writes(op.type()) ? value(op.valueSize()) : null;
          long t0 = System.nanoTime();
          execute(op, key, value);
          long t1 = System.nanoTime();
          mix.acknowledge(op);
          histograms
              .computeIfAbsent(op.type(), x -> LatencyStats.newHistogram())
              .recordValue(t1 - t0);
          completed.increment();
          if (value != null) {
            userBytes += key.length + value.length;
          }
        }
      } catch (Throwable e) {
        failure = e;
      }
    }

    private static boolean writes(OpType t) {
      return t == OpType.WRITE
          || t == OpType.INSERT
          || t == OpType.UPDATE
          || t == OpType.READ_MODIFY_WRITE;
    }

    private byte[] value(int size) {
      byte[] v = valueBuffers.computeIfAbsent(size, byte[]::new);
      values.next(v, 0, size);
      return v;
    }

    private void execute(Operation op, byte[] key, byte[] value) {
      switch (op.type()) {
        case READ -> store.get(key);
        case WRITE, INSERT -> store.put(key, value);
          // YCSB's RocksDB binding reads the record, merges the fields and writes it back.
        case UPDATE, READ_MODIFY_WRITE -> {
          store.get(key);
          store.put(key, value);
        }
        case SCAN -> store.scan(key, Math.max(1, op.scanLength()));
      }
    }
  }
}
