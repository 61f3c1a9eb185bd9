package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.bench.workload.MixGraphWorkload.Coupling;
import io.zkv.bench.workload.MixGraphWorkload.Params;
import io.zkv.bench.workload.MixGraphWorkload.Variant;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MixGraphWorkloadTest {
  /** WALTZ's key range, 64M keys. */
  private static final long NUM = 64_000_000L;

  private static final int VALUE = 4000;

  private static OpType expectedType(long x, QueryDecider d) {
    return switch (d.type(x)) {
      case MixGraphWorkload.PUT -> OpType.WRITE;
      case MixGraphWorkload.SEEK -> OpType.SCAN;
      default -> OpType.READ;
    };
  }

  @Test
  void queryDeciderSlotsMatchDbBench() {
    QueryDecider waltz = new QueryDecider(0.83, 0.14, 0.03);
    assertEquals(830, waltz.bound(0));
    assertEquals(970, waltz.bound(1));
    assertEquals(1000, waltz.bound(2));
    QueryDecider example = new QueryDecider(0.85, 0.14, 0.01);
    assertEquals(850, example.bound(0));
    assertEquals(990, example.bound(1));
    assertEquals(1000, example.range());
    assertEquals(0, waltz.type(829));
    assertEquals(1, waltz.type(830));
    assertEquals(2, waltz.type(1999));
  }

  @Test
  void waltzVariantsSetTheFlagsOfBenchSh() {
    Params allRand = Params.waltz(Variant.ALL_RAND, NUM, VALUE);
    assertTrue(allRand.randomModeling() && !allRand.prefixModeling());
    assertEquals(1, allRand.keyrangeNum());
    Params allDist = Params.waltz(Variant.ALL_DIST, NUM, VALUE);
    assertTrue(!allDist.randomModeling() && !allDist.prefixModeling());
    assertEquals(0.002312, allDist.keyDistA());
    assertEquals(0.3467, allDist.keyDistB());
    Params preRand = Params.waltz(Variant.PRE_RAND, NUM, VALUE);
    assertTrue(preRand.randomModeling() && preRand.prefixModeling());
    assertEquals(30, preRand.keyrangeNum());
    assertEquals(-0.08082, preRand.keyrangeDistD());
    Params preDist = Params.waltz(Variant.PRE_DIST, NUM, VALUE);
    assertTrue(!preDist.randomModeling() && preDist.prefixModeling());
    for (Params p : new Params[] {allRand, allDist, preRand, preDist}) {
      assertEquals(0.83, p.getRatio());
      assertEquals(0.14, p.putRatio());
      assertEquals(0.03, p.seekRatio());
      assertEquals(VALUE, p.valueTheta());
      assertEquals(0, p.valueSigma());
      assertEquals(VALUE, p.mixMaxValueSize());
      assertEquals(2.517, p.iterK());
      assertEquals(14.236, p.iterSigma());
      assertEquals(10000, p.mixMaxScanLen());
    }
    assertNull(new MixGraphWorkload(allDist).ranges());
  }

  @Test
  void getPutSeekRatiosWithinOnePercent() {
    int ops = 100_000;
    for (Coupling coupling : Coupling.values()) {
      for (Variant v : Variant.values()) {
        check(new MixGraphWorkload(Params.waltz(v, NUM, VALUE), coupling), ops, 0.83, 0.14, 0.03);
      }
      check(new MixGraphWorkload(Params.rocksDbExample(NUM), coupling), ops, 0.85, 0.14, 0.01);
    }
  }

  private static void check(MixGraphWorkload w, int ops, double get, double put, double seek) {
    SplittableRandom rng = new SplittableRandom(1);
    Operation op = new Operation();
    long[] c = new long[OpType.values().length];
    for (int i = 0; i < ops; i++) {
      w.next(rng, op);
      assertTrue(op.key() >= 0 && op.key() < NUM, "key " + op.key());
      c[op.type().ordinal()]++;
    }
    String what = w.params().toString();
    assertEquals(get, c[OpType.READ.ordinal()] / (double) ops, 0.01, what);
    assertEquals(put, c[OpType.WRITE.ordinal()] / (double) ops, 0.01, what);
    assertEquals(seek, c[OpType.SCAN.ordinal()] / (double) ops, 0.01, what);
    assertEquals(
        ops, c[OpType.READ.ordinal()] + c[OpType.WRITE.ordinal()] + c[OpType.SCAN.ordinal()]);
  }

  @Test
  void allRandKeysAreUniformAndFixTheQueryType() {
    MixGraphWorkload w = MixGraphWorkload.waltz(Variant.ALL_RAND, NUM, VALUE);
    QueryDecider d = w.decider();
    SplittableRandom rng = new SplittableRandom(2);
    Operation op = new Operation();
    int ops = 200_000;
    long[] buckets = new long[100];
    for (int i = 0; i < ops; i++) {
      w.next(rng, op);
      assertEquals(expectedType(op.key(), d), op.type(), "db_bench: the key decides the type");
      buckets[(int) (op.key() * 100 / NUM)]++;
      if (op.type() == OpType.WRITE) {
        assertEquals(VALUE, op.valueSize(), "WALTZ: value_sigma=0 makes every Put 4000 bytes");
      }
    }
    double[] flat = new double[100];
    Arrays.fill(flat, 0.01);
    Stats.assertFits("AllRand keys", buckets, flat, ops);

    MixGraphWorkload indep =
        new MixGraphWorkload(Params.waltz(Variant.ALL_RAND, NUM, VALUE), Coupling.INDEPENDENT);
    long mismatched = 0;
    for (int i = 0; i < ops; i++) {
      indep.next(rng, op);
      mismatched += op.type() != expectedType(op.key(), d) ? 1 : 0;
    }
    // Independent draws disagree with the key's slot with probability 1 - sum(p_i^2).
    double p = 1 - (0.83 * 0.83 + 0.14 * 0.14 + 0.03 * 0.03);
    Stats.assertFrequency("independent coupling", mismatched, ops, p, 4, 0);
  }

  @Test
  void scanLengthsFollowTheParetoLawModuloTheMaximum() {
    MixGraphWorkload w = MixGraphWorkload.waltz(Variant.ALL_RAND, NUM, VALUE);
    GeneralizedPareto law = w.scanLengthDistribution();
    int ops = 1_000_000;
    int[] lengths = new int[ops];
    int n = 0;
    SplittableRandom rng = new SplittableRandom(3);
    Operation op = new Operation();
    for (int i = 0; i < ops; i++) {
      w.next(rng, op);
      if (op.type() == OpType.SCAN) {
        assertTrue(op.scanLength() >= 0 && op.scanLength() < 10_000);
        lengths[n++] = op.scanLength();
      } else {
        assertEquals(0, op.scanLength());
      }
    }
    assertTrue(n > 25_000, "scans: " + n);
    // P(L <= s) = F(s) plus what wraps around from beyond M = 10000; the wrapped part is at
    // most (s + 1) * (f(M) + (1 - F(M)) / M) for a decreasing density f.
    double m = 10_000;
    double k = law.k();
    double sigma = law.sigma();
    double densityAtM = Math.pow(1 + k * m / sigma, -1 / k - 1) / sigma;
    double wrapPerLength = densityAtM + (1 - law.cdf(m)) / m;
    for (int s : new int[] {0, 1, 5, 10, 27, 50, 100, 1000}) {
      long count = 0;
      for (int i = 0; i < n; i++) {
        count += lengths[i] <= s ? 1 : 0;
      }
      double f = law.cdf(s);
      double observed = count / (double) n;
      double tol = 4 * Stats.se(Math.max(f, 1.0 / n), n);
      assertTrue(
          observed >= f - tol && observed <= f + tol + (s + 1) * wrapPerLength,
          "P(L <= " + s + ") = " + observed + ", F = " + f);
    }
  }

  @Test
  void paretoValueSizesMatchTheCdfMeanAndPercentiles() {
    MixGraphWorkload w = new MixGraphWorkload(Params.rocksDbExample(NUM));
    GeneralizedPareto law = w.valueSizeDistribution();
    assertEquals(1024, w.valueMax());
    int ops = 600_000;
    int[] sizes = new int[ops];
    int n = 0;
    SplittableRandom rng = new SplittableRandom(4);
    Operation op = new Operation();
    for (int i = 0; i < ops; i++) {
      w.next(rng, op);
      if (op.type() == OpType.WRITE) {
        assertTrue(op.valueSize() >= 0 && op.valueSize() <= 1024);
        sizes[n++] = op.valueSize();
      }
    }
    int[] sorted = Arrays.copyOf(sizes, n);
    Arrays.sort(sorted);
    // The sampled size is ceil(X), so P(V <= s) = F(s) for integers s; sizes above 1024 (mass
    // 8.6e-5) wrap modulo 1024, allowed as slack.
    double wrap = 1 - law.cdf(1024);
    assertTrue(wrap < 1e-4);
    for (int s : new int[] {5, 10, 15, 20, 30, 50, 100, 227, 500}) {
      int count = upperBound(sorted, s);
      double f = law.cdf(s);
      double observed = count / (double) n;
      assertEquals(f, observed, 4 * Stats.se(f, n) + wrap, "P(V <= " + s + ")");
    }
    // Percentiles: the sample quantile is within 4 standard errors (se = sqrt(p(1-p)/n) / f(x_p))
    // plus 1 for rounding up of the exact quantile ceil(F^-1(p)).
    for (double p : new double[] {0.5, 0.9, 0.99}) {
      double x = law.inverse(1 - p);
      double density = Math.pow(1 + law.k() * x / law.sigma(), -1 / law.k() - 1) / law.sigma();
      double tol = 4 * Math.sqrt(p * (1 - p) / n) / density + 1;
      int sample = sorted[(int) Math.ceil(p * n) - 1];
      assertEquals(Math.ceil(x), sample, tol, "p" + (int) (p * 100));
    }
    // Mean: E[V] = sum_{t=0}^{1023} P(V > t), less what wrapping removes (at most 1024 * wrap).
    double expected = 0;
    for (int t = 0; t < 1024; t++) {
      expected += 1 - law.cdf(t);
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += sizes[i];
    }
    double sd = law.sigma() / ((1 - law.k()) * Math.sqrt(1 - 2 * law.k()));
    double mean = sum / n;
    assertTrue(
        mean <= expected + 4 * sd / Math.sqrt(n)
            && mean >= expected - 1024 * wrap - 4 * sd / Math.sqrt(n),
        "mean " + mean + " vs " + expected);
    assertEquals(35, expected, 1, "about 35 bytes, as reported for these parameters");
  }

  private static int upperBound(int[] sorted, int s) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= s) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Test
  void keyRangeWeightsFollowTheTwoTermExponential() {
    KeyRangeHotness r =
        new KeyRangeHotness(
            NUM,
            Params.KEYRANGE_NUM,
            Params.KEYRANGE_DIST_A,
            Params.KEYRANGE_DIST_B,
            Params.KEYRANGE_DIST_C,
            Params.KEYRANGE_DIST_D);
    assertEquals(NUM / 30, r.rangeSize());
    double coldest = f(30);
    long amplify = (long) Math.floor(1 / coldest) + 1;
    assertEquals(689, amplify);
    boolean[] seen = new boolean[31];
    long total = 0;
    for (int i = 0; i < r.rangeCount(); i++) {
      int x = (int) r.exponentIndex(i);
      assertFalse(seen[x], "range index " + x + " twice");
      seen[x] = true;
      assertEquals((long) Math.floor(amplify * f(x)), r.access(i), "range x=" + x);
      total += r.access(i);
    }
    // Reference values from an independent computation of db_bench's formula.
    assertEquals(667, total);
    assertEquals(667, r.totalSlots());
    int hottest = hottest(r);
    assertEquals(1, r.exponentIndex(hottest));
    assertEquals(538, r.access(hottest));
  }

  private static double f(int x) {
    return Params.KEYRANGE_DIST_A * StrictMath.exp(Params.KEYRANGE_DIST_B * x)
        + Params.KEYRANGE_DIST_C * StrictMath.exp(Params.KEYRANGE_DIST_D * x);
  }

  private static int hottest(KeyRangeHotness r) {
    int best = 0;
    for (int i = 1; i < r.rangeCount(); i++) {
      if (r.access(i) > r.access(best)) {
        best = i;
      }
    }
    return best;
  }

  @Test
  void preRandPicksRangesByWeightAndKeysUniformlyInside() {
    MixGraphWorkload w = MixGraphWorkload.waltz(Variant.PRE_RAND, NUM, VALUE);
    KeyRangeHotness r = w.ranges();
    int ops = 300_000;
    long[] perRange = new long[r.rangeCount()];
    int hot = hottest(r);
    long[] inHot = new long[20];
    SplittableRandom rng = new SplittableRandom(5);
    Operation op = new Operation();
    for (int i = 0; i < ops; i++) {
      w.next(rng, op);
      int pos = (int) (op.key() / r.rangeSize());
      perRange[pos]++;
      if (pos == hot) {
        inHot[(int) ((op.key() % r.rangeSize()) * 20 / r.rangeSize())]++;
      }
    }
    double[] p = new double[r.rangeCount()];
    for (int i = 0; i < p.length; i++) {
      p[i] = r.access(i) / (double) r.totalSlots();
    }
    Stats.assertFits("PreRand range frequencies", perRange, p, ops);
    double[] flat = new double[20];
    Arrays.fill(flat, 0.05);
    Stats.assertFits("PreRand offsets in the hottest range", inHot, flat, perRange[hot]);
  }

  @Test
  void allDistHotKeysFollowThePowerLaw() {
    MixGraphWorkload w = MixGraphWorkload.waltz(Variant.ALL_DIST, NUM, VALUE);
    long key1 = Long.remainderUnsigned(Mt19937x64.firstOutput(1), NUM);
    long key2 = Long.remainderUnsigned(Mt19937x64.firstOutput(2), NUM);
    int ops = 600_000;
    long c1 = 0;
    long c2 = 0;
    SplittableRandom rng = new SplittableRandom(6);
    Operation op = new Operation();
    for (int i = 0; i < ops; i++) {
      w.next(rng, op);
      c1 += op.key() == key1 ? 1 : 0;
      c2 += op.key() == key2 ? 1 : 0;
    }
    // Seed s = ceil((u/a)^(1/b)) has P(s) = a (s^b - (s-1)^b): seed 1 gets a.
    double a = Params.KEY_DIST_A;
    double b = Params.KEY_DIST_B;
    Stats.assertFrequency("key of seed 1", c1, ops, a, 4, 0);
    Stats.assertFrequency("key of seed 2", c2, ops, a * (Math.pow(2, b) - 1), 4, 0);
  }

  @Test
  void preDistConcentratesOnPowerLawKeysOfHotRanges() {
    MixGraphWorkload w = MixGraphWorkload.waltz(Variant.PRE_DIST, NUM, VALUE);
    KeyRangeHotness r = w.ranges();
    int hot = hottest(r);
    long key =
        r.rangeSize() * hot + Long.remainderUnsigned(Mt19937x64.firstOutput(1), r.rangeSize());
    int ops = 600_000;
    long c = 0;
    SplittableRandom rng = new SplittableRandom(7);
    Operation op = new Operation();
    for (int i = 0; i < ops; i++) {
      w.next(rng, op);
      c += op.key() == key ? 1 : 0;
    }
    // Range and offset both come from the same draw, so independence holds only approximately.
    double p = r.access(hot) / (double) r.totalSlots() * Params.KEY_DIST_A;
    Stats.assertFrequency("hottest key of the hottest range", c, ops, p, 4, 0.05 * p);
  }

  @Test
  void deterministicForASeed() {
    for (Variant v : Variant.values()) {
      MixGraphWorkload w = MixGraphWorkload.waltz(v, NUM, VALUE);
      long[] a = trace(w, 77);
      assertArrayEquals(a, trace(w, 77), v.name());
      assertFalse(Arrays.equals(a, trace(w, 78)), v.name());
    }
    MixGraphWorkload example = new MixGraphWorkload(Params.rocksDbExample(NUM));
    assertArrayEquals(trace(example, 5), trace(example, 5));
  }

  private static long[] trace(MixGraphWorkload w, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    Operation op = new Operation();
    long[] t = new long[4 * 5000];
    for (int i = 0; i < 5000; i++) {
      w.next(rng, op);
      t[4 * i] = op.type().ordinal();
      t[4 * i + 1] = op.key();
      t[4 * i + 2] = op.valueSize();
      t[4 * i + 3] = op.scanLength();
    }
    return t;
  }
}
