package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Checks the YCSB/Gray Zipfian generator two ways: exactly against the distribution the algorithm
 * defines ({@link ZipfianGenerator#cdf}), and approximately against the zeta law {@code P(i) =
 * (i+1)^-theta / zeta(n, theta)}, with the approximation's known error as the tolerance.
 */
class ZipfianGeneratorTest {
  private static final int N_ITEMS = 10_000;
  private static final int DRAWS = 1_000_000;

  private static long[] counts(ZipfianGenerator z, long seed, int draws) {
    long[] c = new long[(int) z.items()];
    SplittableRandom rng = new SplittableRandom(seed);
    for (int i = 0; i < draws; i++) {
      c[(int) z.next(rng)]++;
    }
    return c;
  }

  /** Bins: ranks 0..99 one by one, then wider rank intervals up to n. */
  private static final long[] EDGES = {100, 200, 500, 1000, 2000, 5000, N_ITEMS};

  @Test
  void rankFrequenciesFitTheAlgorithmsOwnDistribution() {
    ZipfianGenerator z = new ZipfianGenerator(N_ITEMS, 0.99);
    long[] c = counts(z, 1, DRAWS);
    int bins = 100 + EDGES.length - 1;
    long[] obs = new long[bins];
    double[] exp = new double[bins];
    for (int r = 0; r < 100; r++) {
      obs[r] = c[r];
      exp[r] = z.cdf(r) - z.cdf(r - 1);
    }
    for (int b = 0; b + 1 < EDGES.length; b++) {
      for (long r = EDGES[b]; r < EDGES[b + 1]; r++) {
        obs[100 + b] += c[(int) r];
      }
      exp[100 + b] = z.cdf(EDGES[b + 1] - 1) - z.cdf(EDGES[b] - 1);
    }
    Stats.assertFits("Gray pmf, n=10k theta=0.99", obs, exp, DRAWS);
  }

  @Test
  void agreesWithTheZetaLawWithinGraysApproximation() {
    double theta = 0.99;
    ZipfianGenerator z = new ZipfianGenerator(N_ITEMS, theta);
    long[] c = counts(z, 2, DRAWS);
    double zetan = Stats.zetaDirect(N_ITEMS, theta);
    // Ranks 0 and 1 are exact in Gray's algorithm: within 4 standard errors.
    Stats.assertFrequency("rank 0", c[0], DRAWS, 1 / zetan, 4, 0);
    Stats.assertFrequency("rank 1", c[1], DRAWS, Math.pow(2, -theta) / zetan, 4, 0);
    // Ranks >= 2 come from a continuous inversion: rank 2 is ~18% high, the top-10 mass ~4.7%
    // high; rank buckets beyond rank 20 stay within 2.6% of the zeta law (see class doc).
    double zetaTop10 = 0;
    long top10 = 0;
    for (int r = 0; r < 10; r++) {
      zetaTop10 += Math.pow(r + 1, -theta) / zetan;
      top10 += c[r];
    }
    double ratio = top10 / (double) DRAWS / zetaTop10;
    assertTrue(ratio > 1.03 && ratio < 1.065, "top-10 mass / zeta top-10 mass = " + ratio);
    for (int r = 2; r < 20; r++) {
      double p = Math.pow(r + 1, -theta) / zetan;
      double rel = c[r] / (double) DRAWS / p - 1;
      assertTrue(rel > -0.02 && rel < 0.20, "rank " + r + " relative error " + rel);
    }
    long[][] buckets = {{20, 100}, {100, 1000}, {1000, N_ITEMS}};
    for (long[] b : buckets) {
      double p = 0;
      long obs = 0;
      for (long r = b[0]; r < b[1]; r++) {
        p += Math.pow(r + 1, -theta) / zetan;
        obs += c[(int) r];
      }
      double rel = Math.abs(obs / (double) DRAWS / p - 1);
      assertTrue(rel < 0.035, "ranks " + Arrays.toString(b) + " relative error " + rel);
    }
  }

  @Test
  void millionItemsTopMasses() {
    int n = 1_000_000;
    int draws = 400_000;
    ZipfianGenerator z = new ZipfianGenerator(n);
    double zetan = Stats.zetaDirect(n, 0.99);
    assertEquals(zetan, z.zetan(), 1e-12 * zetan);
    SplittableRandom rng = new SplittableRandom(3);
    long top1 = 0;
    long top10 = 0;
    for (int i = 0; i < draws; i++) {
      long r = z.next(rng);
      assertTrue(r >= 0 && r < n);
      if (r == 0) {
        top1++;
      }
      if (r < 10) {
        top10++;
      }
    }
    Stats.assertFrequency("top-1, n=1M", top1, draws, 1 / zetan, 4, 0);
    Stats.assertFrequency("top-10 vs Gray cdf, n=1M", top10, draws, z.cdf(9), 4, 0);
  }

  @Test
  void otherThetaFitsToo() {
    ZipfianGenerator z = new ZipfianGenerator(1000, 0.5);
    int draws = 300_000;
    long[] c = counts(z, 4, draws);
    long[] obs = new long[21];
    double[] exp = new double[21];
    for (int r = 0; r < 20; r++) {
      obs[r] = c[r];
      exp[r] = z.cdf(r) - z.cdf(r - 1);
    }
    for (int r = 20; r < 1000; r++) {
      obs[20] += c[r];
    }
    exp[20] = 1 - z.cdf(19);
    Stats.assertFits("Gray pmf, n=1000 theta=0.5", obs, exp, draws);
  }

  @Test
  void cdfIsAProperDistribution() {
    ZipfianGenerator z = new ZipfianGenerator(N_ITEMS);
    double prev = 0;
    for (long r = 0; r < N_ITEMS; r++) {
      double f = z.cdf(r);
      assertTrue(f >= prev, "cdf decreases at " + r);
      prev = f;
    }
    assertEquals(1.0, z.cdf(N_ITEMS - 1));
    assertEquals(0.0, z.cdf(-1));
    // cdf and rank agree at every boundary: u just above cdf(r-1) and just below cdf(r) give r.
    for (int r = 0; r < 200; r++) {
      assertEquals(r, z.rank(z.cdf(r - 1) + 1e-9), "just above cdf(" + (r - 1) + ")");
      assertEquals(r, z.rank(z.cdf(r) - 1e-9), "just below cdf(" + r + ")");
    }
  }

  @Test
  void tinyItemCounts() {
    SplittableRandom rng = new SplittableRandom(5);
    ZipfianGenerator one = new ZipfianGenerator(1);
    for (int i = 0; i < 1000; i++) {
      assertEquals(0, one.next(rng));
    }
    ZipfianGenerator two = new ZipfianGenerator(2);
    int draws = 100_000;
    long zeros = 0;
    for (int i = 0; i < draws; i++) {
      long r = two.next(rng);
      assertTrue(r == 0 || r == 1);
      zeros += r == 0 ? 1 : 0;
    }
    Stats.assertFrequency("n=2 rank 0", zeros, draws, 1 / (1 + Math.pow(0.5, 0.99)), 4, 0);
  }

  @Test
  void deterministicForASeed() {
    ZipfianGenerator z = new ZipfianGenerator(N_ITEMS);
    long[] a = new long[1000];
    long[] b = new long[1000];
    long[] c = new long[1000];
    SplittableRandom ra = new SplittableRandom(42);
    SplittableRandom rb = new SplittableRandom(42);
    SplittableRandom rc = new SplittableRandom(43);
    for (int i = 0; i < a.length; i++) {
      a[i] = z.next(ra);
      b[i] = z.next(rb);
      c[i] = z.next(rc);
    }
    assertArrayEquals(a, b);
    assertFalse(Arrays.equals(a, c));
  }

  @Test
  void rejectsBadParameters() {
    assertThrows(IllegalArgumentException.class, () -> new ZipfianGenerator(0));
    assertThrows(IllegalArgumentException.class, () -> new ZipfianGenerator(10, 1.0));
    assertThrows(IllegalArgumentException.class, () -> new ZipfianGenerator(10, 0));
  }
}
