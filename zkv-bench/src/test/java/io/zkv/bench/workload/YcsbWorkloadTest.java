package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.bench.workload.YcsbWorkload.Core;
import io.zkv.bench.workload.YcsbWorkload.Proportions;
import io.zkv.bench.workload.YcsbWorkload.RequestDistribution;
import io.zkv.bench.workload.YcsbWorkload.Settings;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class YcsbWorkloadTest {
  private static final int RECORDS = 10_000;
  private static final int OPS = 100_000;

  @Test
  void runPhaseProportionsWithinOnePercent() {
    for (Core core : Core.values()) {
      YcsbWorkload w = YcsbWorkload.core(core, RECORDS, OPS);
      OperationMix run = w.run();
      long[] c = new long[OpType.values().length];
      SplittableRandom rng = new SplittableRandom(1);
      Operation op = new Operation();
      for (int i = 0; i < OPS; i++) {
        run.next(rng, op);
        c[op.type().ordinal()]++;
        run.acknowledge(op);
      }
      Proportions p = core.proportions();
      String what = "workload " + core;
      assertEquals(p.read(), frac(c, OpType.READ), 0.01, what + " read");
      assertEquals(p.update(), frac(c, OpType.UPDATE), 0.01, what + " update");
      assertEquals(p.insert(), frac(c, OpType.INSERT), 0.01, what + " insert");
      assertEquals(p.scan(), frac(c, OpType.SCAN), 0.01, what + " scan");
      assertEquals(p.rmw(), frac(c, OpType.READ_MODIFY_WRITE), 0.01, what + " rmw");
      assertEquals(0, c[OpType.WRITE.ordinal()], what);
    }
  }

  private static double frac(long[] c, OpType t) {
    return c[t.ordinal()] / (double) OPS;
  }

  @Test
  void coreWorkloadsUseYcsbsDistributions() {
    assertEquals(RequestDistribution.ZIPFIAN, Core.A.distribution());
    assertEquals(RequestDistribution.LATEST, Core.D.distribution());
    assertEquals(100, Core.E.maxScanLength());
    assertEquals(1000, Core.A.maxScanLength());
    Proportions b = Core.B.proportions();
    assertEquals(0.95, b.read());
    assertEquals(0.05, b.update());
  }

  @Test
  void workloadEScansAreUniformOneToHundred() {
    OperationMix run = YcsbWorkload.core(Core.E, RECORDS, OPS).run();
    long[] c = new long[100];
    long scans = 0;
    double sum = 0;
    SplittableRandom rng = new SplittableRandom(2);
    Operation op = new Operation();
    for (int i = 0; i < 2 * OPS; i++) {
      run.next(rng, op);
      if (op.type() == OpType.SCAN) {
        assertTrue(op.scanLength() >= 1 && op.scanLength() <= 100, "length " + op.scanLength());
        c[op.scanLength() - 1]++;
        scans++;
        sum += op.scanLength();
      }
      run.acknowledge(op);
    }
    double[] flat = new double[100];
    Arrays.fill(flat, 0.01);
    Stats.assertFits("E scan lengths", c, flat, scans);
    double sd = Math.sqrt((100.0 * 100 - 1) / 12);
    assertEquals(50.5, sum / scans, 4 * sd / Math.sqrt(scans));
  }

  @Test
  void zipfianRequestsHitYcsbsHotRecord() {
    YcsbWorkload w = YcsbWorkload.core(Core.C, RECORDS, OPS);
    OperationMix run = w.run();
    long[] c = new long[RECORDS];
    SplittableRandom rng = new SplittableRandom(3);
    Operation op = new Operation();
    for (int i = 0; i < OPS; i++) {
      run.next(rng, op);
      assertTrue(op.keyNumber() >= 0 && op.keyNumber() < RECORDS);
      assertEquals(w.keyOf(op.keyNumber()), op.key());
      c[(int) op.keyNumber()]++;
    }
    // C has no inserts: key space [0, recordcount] (YCSB's inclusive max), record 10000 redrawn.
    long hot = ScrambledZipfianGenerator.ycsb(0, RECORDS).keyOfRank(0);
    long max = Arrays.stream(c).max().orElseThrow();
    assertEquals(max, c[(int) hot]);
    Stats.assertFrequency(
        "hottest record",
        c[(int) hot],
        OPS,
        1 / ScrambledZipfianGenerator.YCSB_ZETAN,
        4,
        2.0 / RECORDS);
  }

  @Test
  void workloadDReadsTheLatestInserts() {
    YcsbWorkload w = YcsbWorkload.core(Core.D, RECORDS, OPS);
    OperationMix run = w.run();
    Map<Long, Double> top10 = new HashMap<>();
    long limit = RECORDS;
    long reads = 0;
    long recent = 0;
    double expected = 0;
    SplittableRandom rng = new SplittableRandom(4);
    Operation op = new Operation();
    for (int i = 0; i < OPS; i++) {
      run.next(rng, op);
      if (op.type() == OpType.READ) {
        assertTrue(op.keyNumber() < limit, "read of a record not yet inserted");
        reads++;
        recent += op.keyNumber() >= limit - 10 ? 1 : 0;
        expected += top10.computeIfAbsent(limit, n -> new ZipfianGenerator(n).cdf(9));
      } else {
        assertEquals(OpType.INSERT, op.type());
        assertEquals(limit, op.keyNumber(), "inserts continue after the loaded records");
        run.acknowledge(op);
        limit++;
      }
    }
    double p = expected / reads;
    Stats.assertFrequency("reads of the 10 newest records", recent, reads, p, 4, 0);
  }

  @Test
  void readsSkipRecordsWhoseInsertIsNotAcknowledged() {
    OperationMix run = YcsbWorkload.core(Core.E, RECORDS, OPS).run();
    SplittableRandom rng = new SplittableRandom(5);
    Operation op = new Operation();
    long inserts = 0;
    for (int i = 0; i < OPS; i++) {
      run.next(rng, op);
      if (op.type() == OpType.INSERT) {
        assertEquals(RECORDS + inserts, op.keyNumber());
        inserts++;
      } else {
        assertTrue(op.keyNumber() < RECORDS, "scan of an unacknowledged record");
      }
    }
    assertTrue(inserts > 4000);
  }

  @Test
  void loadInsertsEveryRecordOnceInOrder() {
    YcsbWorkload hashed = YcsbWorkload.core(Core.A, RECORDS, OPS);
    OperationMix load = hashed.load();
    SplittableRandom rng = new SplittableRandom(6);
    Operation op = new Operation();
    for (long i = 0; i < 1000; i++) {
      load.next(rng, op);
      assertEquals(OpType.INSERT, op.type());
      assertEquals(i, op.keyNumber());
      assertEquals(Fnv64.ycsbHash(i), op.key(), "insertorder=hashed");
      assertEquals(1140, op.valueSize());
    }
    Settings ordered =
        new Settings(RECORDS, OPS, 10, 100, 1, 1000, false, ZipfianGenerator.YCSB_ZIPFIAN_CONSTANT);
    OperationMix orderedLoad = new YcsbWorkload(Core.A, ordered).load();
    orderedLoad.next(rng, op);
    orderedLoad.next(rng, op);
    assertEquals(1, op.key());
  }

  @Test
  void writesCarryTheWholeSerializedRecord() {
    assertEquals(1140, YcsbWorkload.rocksDbRecordBytes(10, 100));
    assertEquals(4000, YcsbWorkload.rocksDbRecordBytes(10, 386), "ZWAL's emulated-SSD records");
    YcsbWorkload zwal =
        new YcsbWorkload(Core.F, Settings.of(Core.F, RECORDS, OPS).withFields(10, 386));
    OperationMix run = zwal.run();
    SplittableRandom rng = new SplittableRandom(7);
    Operation op = new Operation();
    for (int i = 0; i < 10_000; i++) {
      run.next(rng, op);
      int expected = op.type() == OpType.READ ? 0 : 4000;
      assertEquals(expected, op.valueSize(), op.toString());
    }
  }

  @Test
  void proportionsAreNormalised() {
    YcsbWorkload w =
        new YcsbWorkload(
            new Proportions(2, 2, 0, 0, 0),
            RequestDistribution.UNIFORM,
            Settings.of(Core.A, RECORDS, OPS));
    OperationMix run = w.run();
    SplittableRandom rng = new SplittableRandom(8);
    Operation op = new Operation();
    long reads = 0;
    for (int i = 0; i < OPS; i++) {
      run.next(rng, op);
      reads += op.type() == OpType.READ ? 1 : 0;
    }
    assertEquals(0.5, reads / (double) OPS, 0.01);
  }

  @Test
  void deterministicForASeed() {
    YcsbWorkload w = YcsbWorkload.core(Core.D, RECORDS, OPS);
    assertArrayEquals(trace(w.run(), 9), trace(w.run(), 9));
  }

  private static long[] trace(OperationMix run, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    Operation op = new Operation();
    long[] t = new long[3 * 5000];
    for (int i = 0; i < 5000; i++) {
      run.next(rng, op);
      run.acknowledge(op);
      t[3 * i] = op.type().ordinal();
      t[3 * i + 1] = op.key();
      t[3 * i + 2] = op.scanLength();
    }
    return t;
  }
}
