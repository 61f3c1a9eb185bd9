package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.bench.workload.OpType;
import io.zkv.bench.workload.OperationMix;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ProfileGeometry;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner on an in-memory store that records what it is asked to do. */
class PhaseRunnerTest {
  /** A thread-safe map that counts the puts of each key; puts may be slowed per thread. */
  static class RecordingStore implements BenchStore {
    final Map<ByteBuffer, AtomicLong> puts = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<Integer> scanCounts = new ConcurrentLinkedQueue<>();
    final String slowThread;
    final long putNanos;

    /** "put" (once per run of puts), "settle" and "counters", in call order. */
    final List<String> events = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    boolean settles = true;

    RecordingStore(String slowThread, long putNanos) {
      this.slowThread = slowThread;
      this.putNanos = putNanos;
    }

    @Override
    public void put(byte[] key, byte[] value) {
      if (putNanos > 0
          && (slowThread == null || Thread.currentThread().getName().endsWith(slowThread))) {
        LockSupport.parkNanos(putNanos);
      }
      puts.computeIfAbsent(ByteBuffer.wrap(key.clone()), k -> new AtomicLong()).incrementAndGet();
      synchronized (events) {
        if (events.isEmpty() || !events.get(events.size() - 1).equals("put")) {
          events.add("put");
        }
      }
    }

    @Override
    public byte[] get(byte[] key) {
      return puts.containsKey(ByteBuffer.wrap(key)) ? new byte[1] : null;
    }

    @Override
    public int scan(byte[] from, int count) {
      scanCounts.add(count);
      return count;
    }

    @Override
    public boolean settle(long timeoutMillis) {
      events.add("settle");
      return settles;
    }

    @Override
    public RecoveryFigures reopen() {
      throw new UnsupportedOperationException("a recording store has nothing to recover");
    }

    @Override
    public ZoneCounters counters() {
      events.add("counters");
      return null;
    }

    @Override
    public void close() {}
  }

  static BenchSettings settings(String workload, int threads, long keys, double seconds) {
    return new BenchSettings(
        List.of(workload), threads, 16, 100, 100, keys, 0, seconds, false, 64L << 20, 0, 7, 1, 1);
  }

  static PhaseResult run(BenchStore store, BenchSettings s) throws InterruptedException {
    PhaseSpec phase = WorkloadCatalog.phases(s.workloads().get(0), s).get(0);
    return new PhaseRunner(store, s, Progress.off()).run(phase, "test");
  }

  @Test
  void fillseqWithTwoThreadsWritesEveryKeyExactlyOnce() throws Exception {
    RecordingStore store = new RecordingStore(null, 0);
    PhaseResult r = run(store, settings("fillseq", 2, 1000, 0));
    assertEquals(1000, r.ops());
    assertEquals(1000, store.puts.size(), "every key of 0..999");
    assertTrue(store.puts.values().stream().allMatch(n -> n.get() == 1), "each once");
  }

  @Test
  void aWritingPhaseIgnoresTheDurationAndWritesItsCount() throws Exception {
    RecordingStore store = new RecordingStore(null, 20_000);
    // 2,000 puts of at least 20 us each take 20 ms or more on two threads: more than 5 ms.
    PhaseResult r = run(store, settings("fillrandom", 2, 2000, 0.005));
    assertEquals(2000, r.ops());
    assertEquals(2000, r.writes());
    assertTrue(r.seconds() > 0.005, "ran past the duration: " + r.seconds());
  }

  @Test
  void theSameSettingsWriteTheSameKeysHoweverFastEachThreadIs() throws Exception {
    BenchSettings s = settings("fillrandom", 2, 3000, 0);
    RecordingStore even = new RecordingStore(null, 0);
    // Thread 0 is slow here: with one budget shared by the threads, thread 1 would take most of
    // the operations and write keys of its own random stream instead of thread 0's.
    RecordingStore skewed = new RecordingStore("-0", 200_000);
    PhaseResult a = run(even, s);
    PhaseResult b = run(skewed, s);
    assertEquals(a.writes(), b.writes());
    assertEquals(a.writesDigest(), b.writesDigest());
    assertEquals(even.puts.keySet(), skewed.puts.keySet());
    PhaseResult other = run(new RecordingStore(null, 0), settings("fillrandom", 2, 2999, 0));
    assertNotEquals(a.writesDigest(), other.writesDigest(), "the digest tells different keys");
  }

  /**
   * The readers read while the writer writes: its first put waits until a reader has read (the
   * schedule, not the host, makes them overlap). One timeline interval longer than any run makes
   * the timeline a single point over the whole phase, so its count is the readers' exactly (with 1
   * s intervals a phase that ended just after a sample dropped the sliver after it, and its reads,
   * however slow the host made the 500 writes).
   */
  @Test
  void readWhileWritingCountsOnlyTheReadersInOpsPerSecond() throws Exception {
    java.util.concurrent.CountDownLatch read = new java.util.concurrent.CountDownLatch(1);
    RecordingStore store =
        new RecordingStore("-writer", 5_000) {
          @Override
          public byte[] get(byte[] key) {
            read.countDown();
            return super.get(key);
          }

          @Override
          public void put(byte[] key, byte[] value) {
            try {
              assertTrue(read.await(60, java.util.concurrent.TimeUnit.SECONDS), "no reader read");
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
            super.put(key, value);
          }
        };
    BenchSettings s =
        new BenchSettings(
            List.of("readwhilewriting"),
            2,
            16,
            100,
            100,
            500,
            0,
            0,
            false,
            64L << 20,
            0,
            7,
            3600,
            1);
    PhaseResult r = run(store, s);
    long reads = r.latency().get("READ").count();
    assertTrue(reads > 0, "the readers ran beside the writer");
    assertEquals(reads, r.ops(), "ops are the readers' reads only");
    assertEquals(500, r.writerOps(), "the writer writes its budget (keys)");
    assertEquals(500, r.latency().get("WRITE").count());
    assertEquals(500, r.writes());
    assertEquals(reads / r.seconds(), r.opsPerSecond(), 1e-6);
    assertEquals(1, r.timeline().length, "one interval: the whole phase");
    double timelineOps = r.timeline()[0] * r.timelineSeconds()[0];
    assertEquals(reads, timelineOps, reads * 1e-9, "the timeline counts the readers only");
    assertTrue(r.writerSeconds() > 0 && r.writerOpsPerSecond() > 0);
  }

  @Test
  void theTimelineRecordsWhenEachSampleWasTaken() throws Exception {
    RecordingStore store = new RecordingStore(null, 0);
    BenchSettings s =
        new BenchSettings(
            List.of("readrandom"), 1, 16, 100, 100, 1000, 0, 0.35, false, 64L << 20, 0, 7, 0.1, 1);
    PhaseResult r = run(store, s);
    double[] t = r.timelineSeconds();
    // How many samples fit in the 0.35 s is the host's (a sampler or client that does not run
    // for 0.1 s takes fewer, and with no operation after the last sample there is no closing
    // point): printed. What holds on any host is checked.
    System.out.println(
        "timeline of a 0.35 s phase in 0.1 s intervals ("
            + r.seconds()
            + " s): samples at "
            + java.util.Arrays.toString(t));
    assertEquals(r.timeline().length, t.length);
    assertTrue(r.ops() == 0 || t.length >= 1, "operations, and no point: " + r.ops());
    for (int i = 0; i < t.length; i++) {
      assertTrue(t[i] > (i == 0 ? 0 : t[i - 1]), "increasing");
      assertTrue(t[i] >= (i + 1) * 0.1 - 1e-9 || i == t.length - 1, "not before its interval");
      assertTrue(t[i] <= r.seconds(), "not after the phase");
    }
    if (t.length > 0) {
      double last = t[t.length - 1];
      // the closing point, taken at the phase's end, or a sample not before its interval
      assertTrue(last == r.seconds() || last >= t.length * 0.1 - 1e-9, "the last: " + last);
    }
  }

  @Test
  void aScanOfLengthZeroIsASeekThatReadsNoEntry() throws Exception {
    RecordingStore store = new RecordingStore(null, 0);
    OperationMix scans = (rng, op) -> op.set(OpType.SCAN, 1, 1, 0, 0);
    PhaseSpec phase = new PhaseSpec("scans", scans, null, 10, 0, true, true, false, false, false);
    BenchSettings s = settings("readrandom", 1, 100, 0);
    new PhaseRunner(store, s, Progress.off()).run(phase, "test");
    assertEquals(List.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0), List.copyOf(store.scanCounts));
  }

  @Test
  void theBudgetIsSplitEvenlyOverTheThreads() {
    assertEquals(334, PhaseRunner.share(1000, 3, 0));
    assertEquals(333, PhaseRunner.share(1000, 3, 2));
    assertEquals(Long.MAX_VALUE, PhaseRunner.share(Long.MAX_VALUE, 3, 1));
  }

  @Test
  void theStoreSettlesAfterThePrefillAndAfterEveryWritingPhaseBeforeItsCountersAreRead()
      throws Exception {
    RecordingStore store = new RecordingStore(null, 0);
    BenchSettings s =
        new BenchSettings(
            List.of("readrandom", "fillrandom", "readrandom"),
            2,
            16,
            100,
            100,
            300,
            0,
            0,
            false,
            64L << 20,
            0,
            7,
            1,
            1);
    RunResult run = ConfigRunner.runOn(store, "test", s, 1, Progress.off());
    assertEquals(
        List.of(
            "put", // the prefill
            "settle",
            "counters", // readrandom: no settle, it wrote nothing
            "counters",
            "counters", // fillrandom
            "put",
            "settle",
            "counters",
            "counters", // readrandom
            "counters"),
        store.events);
    assertEquals(List.of("unmeasured fillseq of 300 keys before readrandom"), run.notes());
    store.settles = false;
    RunResult late =
        ConfigRunner.runOn(store, "test", settings("fillrandom", 1, 100, 0), 1, Progress.off());
    assertEquals(
        List.of(
            "compactions after fillrandom still ran after 60 s; its figures and any next phase"
                + " went on anyway"),
        late.notes());
  }

  /** Every get reads two blocks of an emulated zn540 device that runs on its model's own clock. */
  static final class ModelTimedStore extends RecordingStore {
    final ZonedDevice device;

    ModelTimedStore(ZonedDevice device) {
      super(null, 0);
      this.device = device;
    }

    @Override
    public boolean modelTimed() {
      return true;
    }

    @Override
    public byte[] get(byte[] key) {
      try {
        ByteBuffer b = ByteBuffer.allocateDirect(4096);
        device.read(0, b);
        b.clear();
        device.read(4096, b);
      } catch (ZonedDeviceException e) {
        throw new IllegalStateException(e);
      }
      return null;
    }
  }

  /**
   * A Get's device time is what the model took for its requests: on the model's own clock, which
   * only the client thread moves, the Gets' recorded device time adds up to the clock's movement,
   * and each Get waited for exactly its two requests. Wall time has no part in it.
   */
  @Test
  void eachGetsDeviceTimeIsTheModelsTimeForItsRequests(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("zn540.zkvemu");
    EmulatedDevice.format(file, ProfileGeometry.of("zn540", 4));
    try (ZonedDevice device =
        ZonedDevice.open(EmulatedDevice.uri(file, "zn540", "clock=virtual", "seed=5"))) {
      device.resetZone(0);
      device.append(0, ByteBuffer.allocateDirect(8192));
      long clock0 = EmulatedDevice.clockNanos(device);
      PhaseResult r = run(new ModelTimedStore(device), settings("readrandom", 1, 100, 0));
      long clock = EmulatedDevice.clockNanos(device) - clock0;
      Histogram model = r.histograms().get(PhaseRunner.READ_MODEL);
      assertEquals(r.ops(), model.getTotalCount());
      // The histogram keeps 3 significant digits: its sum is within 0.1% of the exact one.
      double sum = model.getMean() * model.getTotalCount();
      assertTrue(Math.abs(sum - clock) <= clock / 1000.0, sum + " vs the clock's " + clock);
      assertEquals(2, r.readDeviceWaits().getMinValue());
      assertEquals(2, r.readDeviceWaits().getMaxValue());
      assertTrue(r.latency().get(PhaseRunner.READ_MODEL).avgUs() > 0);
    }
  }
}
