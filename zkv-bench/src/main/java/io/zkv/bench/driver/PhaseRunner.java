package io.zkv.bench.driver;

import io.zkv.bench.workload.KeyFormat;
import io.zkv.bench.workload.OpType;
import io.zkv.bench.workload.Operation;
import io.zkv.bench.workload.OperationMix;
import io.zkv.bench.workload.ValueGenerator;
import io.zkv.bench.workload.YcsbWorkload;
import io.zkv.device.ThreadModelTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * Runs one phase: client threads draw operations from the phase's mix and execute them on the store
 * until their share of the operation budget, the time limit, or the end of the background writer;
 * each operation's latency goes to the thread's HdrHistogram of its type, and the calling thread
 * samples the clients' completed count once per interval for the throughput timeline.
 *
 * <p>The budget is split evenly over the threads and each thread draws from its own RNG, split from
 * one seeded root and restarted for every operation ({@link OperationRandom}), so a phase limited
 * by count writes the same keys on every configuration however fast each thread runs. Threads are
 * created first and released together; the phase's clock starts at the release.
 *
 * <p>Latency is the time of the store call(s) of one operation (a YCSB update is a read and a
 * write, as YCSB's RocksDB binding does it); generating keys and values is outside it. On a store
 * whose emulated device takes modelled time, each Get's device time in the model (the service times
 * of the device requests the client thread waited for, {@link ThreadModelTime}: what the host's
 * scheduling cannot bend) goes to a second histogram, {@value #READ_MODEL}.
 */
final class PhaseRunner {
  /** YCSB {@code fieldcount}: fixed at YCSB's default. */
  static final int YCSB_FIELDS = 10;

  /** The latency entry of the Gets' device time in the timing model. */
  static final String READ_MODEL = "READ device model";

  private final BenchStore store;
  private final BenchSettings settings;
  private final Progress progress;
  // WRITE latencies of the running phase by timeline interval (the per-second P99 timeline)
  private org.HdrHistogram.Recorder writeLatencies = new org.HdrHistogram.Recorder(3);

  PhaseRunner(BenchStore store, BenchSettings settings, Progress progress) {
    this.store = store;
    this.settings = settings;
    this.progress = progress;
  }

  /** Thread {@code t}'s share of {@code budget} operations over {@code threads} threads. */
  static long share(long budget, int threads, int t) {
    if (budget == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return budget / threads + (t < budget % threads ? 1 : 0);
  }

  PhaseResult run(PhaseSpec phase, String label) throws InterruptedException {
    double limit =
        phase.timeLimited() && settings.durationSeconds() > 0 ? settings.durationSeconds() : 0;
    Release release = new Release();
    LongAdder completed = new LongAdder();
    writeLatencies = new org.HdrHistogram.Recorder(3);
    AtomicBoolean writerDone = new AtomicBoolean();
    SplittableRandom root = new SplittableRandom(settings.seed() ^ phase.name().hashCode());
    List<Worker> workers = clients(phase, root, release, writerDone, completed);
    // The writer splits the root after the clients: their RNGs are those of a phase without one.
    Worker writer = writer(phase, root, release, writerDone);
    List<Thread> clientThreads = startClients(phase, workers);
    Thread writerThread =
        writer == null ? null : start(writer, "bench-" + phase.name() + "-writer");
    // Everything is built and every thread waits: start the clock and release them.
    long start = System.nanoTime();
    release.open(start, limit);
    Sampler sampler = new Sampler(start, completed);
    progress.start();
    for (Thread t : clientThreads) {
      while (t.isAlive()) {
        long now = System.nanoTime();
        if (now >= sampler.nextSample) {
          long c = sampler.sample(now);
          reportProgress(phase, label, writer, limit, c, (now - start) / 1e9);
        }
        t.join(Math.min(sampler.waitMillis(), 200));
      }
    }
    long end = System.nanoTime();
    if (writerThread != null) {
      writerThread.join();
    }
    sampler.finish(end);
    progress.finish();
    List<Worker> all = new ArrayList<>(workers);
    if (writer != null) {
      all.add(writer);
    }
    checkFailures(phase, label, all);
    return result(phase, sampler, writer, all);
  }

  /** The client threads' workers, each with its share of the budget and its own RNG. */
  private List<Worker> clients(
      PhaseSpec phase,
      SplittableRandom root,
      Release release,
      AtomicBoolean writerDone,
      LongAdder completed) {
    List<Worker> workers = new ArrayList<>();
    int threads = settings.threads();
    for (int t = 0; t < threads; t++) {
      workers.add(
          new Worker(
              phase.mix(),
              root.split(),
              share(phase.ops(), threads, t),
              release,
              phase.backgroundWriter() != null ? writerDone : null,
              completed,
              t));
    }
    return workers;
  }

  /** The background writer's worker, which sets {@code writerDone} at its end; null if none. */
  private Worker writer(
      PhaseSpec phase, SplittableRandom root, Release release, AtomicBoolean writerDone) {
    if (phase.backgroundWriter() == null) {
      return null;
    }
    Worker writer =
        new Worker(
            phase.backgroundWriter(),
            root.split(),
            phase.writerOps(),
            release,
            null,
            new LongAdder(),
            -1);
    writer.signalWhenDone = writerDone;
    return writer;
  }

  private List<Thread> startClients(PhaseSpec phase, List<Worker> workers) {
    List<Thread> threads = new ArrayList<>();
    for (Worker w : workers) {
      threads.add(start(w, "bench-" + phase.name() + "-" + w.index));
    }
    return threads;
  }

  /** The progress line after a sample: {@code c} operations done in {@code elapsed} seconds. */
  private void reportProgress(
      PhaseSpec phase, String label, Worker writer, double limit, long c, double elapsed) {
    long budget = phase.ops();
    // Done: the clients' share of their budget, of the time limit, or the writer's progress
    // (readwhilewriting's readers stop when it finishes).
    double fraction =
        Math.max(
            Math.max(
                budget == Long.MAX_VALUE ? 0 : (double) c / budget,
                limit > 0 ? elapsed / limit : 0),
            writer == null ? 0 : (double) writer.completed.sum() / phase.writerOps());
    progress.update(label + " " + phase.name(), c, elapsed, fraction, c / elapsed);
  }

  /** A worker's failure fails the phase. */
  private static void checkFailures(PhaseSpec phase, String label, List<Worker> all) {
    for (Worker w : all) {
      if (w.failure != null) {
        throw new IllegalStateException(
            "phase " + phase.name() + " on " + label + " failed: " + w.failure, w.failure);
      }
    }
  }

  /** The phase's result: the workers' counts and histograms merged, and the timeline. */
  private PhaseResult result(PhaseSpec phase, Sampler sampler, Worker writer, List<Worker> all) {
    Totals totals = new Totals(all);
    Map<String, LatencyStats> stats = new TreeMap<>();
    totals.merged.forEach((k, h) -> stats.put(k, LatencyStats.of(h)));
    long start = sampler.start;
    return new PhaseResult(
        phase.name(),
        sampler.ops,
        (sampler.end - start) / 1e9,
        totals.writes,
        totals.digest,
        totals.userBytes,
        stats,
        totals.merged,
        settings.intervalSeconds(),
        array(sampler.timeline),
        array(sampler.sampleTimes),
        writer == null ? 0 : writer.completed.sum(),
        writer == null ? 0 : (writer.finishedAt - start) / 1e9,
        null,
        null,
        null,
        totals.readWaits,
        null,
        null,
        array(sampler.writeP99s));
  }

  private static double[] array(List<Double> l) {
    return l.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /**
   * The phase's clock and timeline: the clients' throughput and the writes' P99 once per interval,
   * sampled by the calling thread while the clients run.
   */
  private final class Sampler {
    final long start;
    final LongAdder completed;
    final long interval = (long) (settings.intervalSeconds() * 1e9);
    final List<Double> timeline = new ArrayList<>();
    final List<Double> sampleTimes = new ArrayList<>();
    final List<Double> writeP99s = new ArrayList<>();
    long nextSample;
    long lastCount;
    long lastTime;
    long end; // set by finish
    long ops; // the clients' operations, set by finish

    Sampler(long start, LongAdder completed) {
      this.start = start;
      this.completed = completed;
      this.nextSample = start + interval;
      this.lastTime = start;
    }

    /** Takes the interval's sample at {@code now}; returns the clients' operations so far. */
    long sample(long now) {
      long c = completed.sum();
      add(c, now);
      lastCount = c;
      lastTime = now;
      // Keep the nominal cadence; after a late sample, the next one is an interval from now.
      nextSample = Math.max(nextSample + interval, now + interval / 2);
      return c;
    }

    /** Milliseconds to the next sample, at least 1. */
    long waitMillis() {
      return Math.max(1, (nextSample - System.nanoTime()) / 1_000_000);
    }

    /** Ends the phase's clock at {@code end}, after the clients: the last, partial interval. */
    void finish(long end) {
      this.end = end;
      long c = completed.sum();
      ops = c;
      // The last, partial interval counts unless it is a sliver (its rate would be noise); a phase
      // shorter than one interval still gets its one point.
      if ((end - lastTime > interval / 20 || timeline.isEmpty()) && c > lastCount) {
        add(c, end);
      }
    }

    private void add(long count, long now) {
      timeline.add((count - lastCount) / ((now - lastTime) / 1e9));
      sampleTimes.add((now - start) / 1e9);
      writeP99s.add(intervalP99(writeLatencies));
    }
  }

  /** The workers' counts, digest and histograms, summed and merged. */
  private static final class Totals {
    final Map<String, Histogram> merged = new TreeMap<>();
    Histogram readWaits;
    long userBytes;
    long writes;
    long digest;

    Totals(List<Worker> all) {
      for (Worker w : all) {
        userBytes += w.userBytes;
        writes += w.writes;
        digest += w.writesDigest;
        for (Map.Entry<OpType, Histogram> e : w.histograms.entrySet()) {
          merged
              .computeIfAbsent(e.getKey().name(), k -> LatencyStats.newHistogram())
              .add(e.getValue());
        }
        if (w.readModel != null && w.readModel.getTotalCount() > 0) {
          merged.computeIfAbsent(READ_MODEL, k -> LatencyStats.newHistogram()).add(w.readModel);
          if (readWaits == null) {
            readWaits = LatencyStats.newHistogram();
          }
          readWaits.add(w.readWaits);
        }
      }
    }
  }

  /**
   * The writes' 99th percentile since the last call, microseconds; NaN if none. The recorder's
   * interval histograms are swapped, not locked: the writers never wait for the sampler.
   */
  private static double intervalP99(org.HdrHistogram.Recorder r) {
    Histogram h = r.getIntervalHistogram();
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1000.0;
  }

  private static Thread start(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.start();
    return t;
  }

  /** Holds the threads until the clock starts, and tells them the deadline. */
  private static final class Release {
    private final CountDownLatch latch = new CountDownLatch(1);
    private volatile long deadline = Long.MAX_VALUE;

    void open(long start, double limitSeconds) {
      deadline = limitSeconds > 0 ? start + (long) (limitSeconds * 1e9) : Long.MAX_VALUE;
      latch.countDown();
    }

    long await() throws InterruptedException {
      latch.await();
      return deadline;
    }
  }

  /**
   * One client, or the background writer (index -1: no deadline, it runs to its budget, then sets
   * {@link #signalWhenDone}).
   */
  private final class Worker implements Runnable {
    final OperationMix mix;
    final OperationRandom rng;
    final long budget;
    final Release release;
    final AtomicBoolean stopWhenSet;
    final LongAdder completed;
    final int index;
    final Map<OpType, Histogram> histograms = new EnumMap<>(OpType.class);
    final KeyFormat keys = new KeyFormat(settings.keySize());
    final ValueGenerator values;
    final Map<Integer, byte[]> valueBuffers = new HashMap<>();
    final Histogram readModel = store.modelTimed() ? LatencyStats.newHistogram() : null;
    final Histogram readWaits = readModel != null ? LatencyStats.newHistogram() : null;
    AtomicBoolean signalWhenDone;
    long userBytes;
    long writes;
    long writesDigest;
    volatile long finishedAt;
    volatile Throwable failure;

    Worker(
        OperationMix mix,
        SplittableRandom rng,
        long budget,
        Release release,
        AtomicBoolean stopWhenSet,
        LongAdder completed,
        int index) {
      this.mix = mix;
      this.rng = new OperationRandom(rng.nextLong());
      this.budget = budget;
      this.release = release;
      this.stopWhenSet = stopWhenSet;
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
      ThreadModelTime model = readModel != null ? ThreadModelTime.start() : null;
      try {
        runBudget(model);
      } catch (Throwable e) {
        failure = e;
      } finally {
        if (model != null) {
          model.close();
        }
        finishedAt = System.nanoTime();
        if (signalWhenDone != null) {
          signalWhenDone.set(true);
        }
      }
    }

    /** Operations until the budget, the deadline or the end of the writer the client waits on. */
    private void runBudget(ThreadModelTime model) throws InterruptedException {
      Operation op = new Operation();
      byte[] key = new byte[settings.keySize()];
      long clientDeadline = release.await();
      // The background writer always completes its budget (state parity); clients may stop early.
      long deadline = index >= 0 ? clientDeadline : Long.MAX_VALUE;
      for (long done = 0; done < budget; done++) {
        if ((stopWhenSet != null && stopWhenSet.get()) || System.nanoTime() >= deadline) {
          break;
        }
        runOne(done, op, key, model);
      }
    }

    /** Operation number {@code done}: drawn, executed and timed, then counted. */
    private void runOne(long done, Operation op, byte[] key, ThreadModelTime model) {
      rng.startOperation(done);
      mix.next(rng, op);
      keys.encode(op.key(), key, 0);
      byte[] value = writes(op.type()) ? value(op.valueSize()) : null;
      long m0 = model != null ? model.nanos() : 0;
      long w0 = model != null ? model.waits() : 0;
      long t0 = System.nanoTime();
      execute(op, key, value);
      long t1 = System.nanoTime();
      mix.acknowledge(op);
      recordLatency(op.type(), t1 - t0);
      if (model != null && op.type() == OpType.READ) {
        readModel.recordValue(model.nanos() - m0);
        readWaits.recordValue(model.waits() - w0);
      }
      completed.increment();
      if (value != null) {
        userBytes += key.length + value.length;
        writes++;
        writesDigest += mix64(op.key());
      }
    }

    private void recordLatency(OpType type, long nanos) {
      histograms.computeIfAbsent(type, x -> LatencyStats.newHistogram()).recordValue(nanos);
      if (type == OpType.WRITE) {
        writeLatencies.recordValue(nanos);
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
          // A scan length of 0 (MixGraph draws some) is a seek that reads no entry.
        case SCAN -> store.scan(key, op.scanLength());
      }
    }
  }

  /** SplitMix64's finalizer: spreads key numbers so the digest's sum is order-independent. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
