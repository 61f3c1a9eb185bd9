package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ScrambledZipfianGeneratorTest {
  private static final int N = 10_000;
  private static final int DRAWS = 500_000;

  @Test
  void permutedKeepsTheExactFrequencyProfile() {
    ScrambledZipfianGenerator g = ScrambledZipfianGenerator.permuted(N, 0.99, 7);
    ZipfianGenerator ranks = g.ranks();
    long[] c = new long[N];
    SplittableRandom rng = new SplittableRandom(11);
    for (int i = 0; i < DRAWS; i++) {
      c[(int) g.next(rng)]++;
    }
    // Key keyOfRank(r) must be drawn with rank r's probability; the rest lumped together.
    int top = 60;
    long[] obs = new long[top + 1];
    double[] exp = new double[top + 1];
    long seen = 0;
    for (int r = 0; r < top; r++) {
      obs[r] = c[(int) g.keyOfRank(r)];
      exp[r] = ranks.cdf(r) - ranks.cdf(r - 1);
      seen += obs[r];
    }
    obs[top] = DRAWS - seen;
    exp[top] = 1 - ranks.cdf(top - 1);
    Stats.assertFits("permuted zipfian by rank", obs, exp, DRAWS);
  }

  @Test
  void permutedSpreadsHotKeysOverTheKeySpace() {
    ScrambledZipfianGenerator g = ScrambledZipfianGenerator.permuted(N, 0.99, 7);
    Set<Long> keys = new HashSet<>();
    int[] deciles = new int[10];
    double sum = 0;
    for (int r = 0; r < 100; r++) {
      long k = g.keyOfRank(r);
      assertTrue(k >= 0 && k < N);
      keys.add(k);
      deciles[(int) (k * 10 / N)]++;
      sum += k;
    }
    assertEquals(100, keys.size(), "hot keys must be distinct");
    int used = 0;
    for (int d : deciles) {
      used += d > 0 ? 1 : 0;
      assertTrue(d <= 25, "more than a quarter of the 100 hottest keys in one decile");
    }
    assertTrue(used >= 8, "hottest 100 keys fall in only " + used + " deciles");
    double mean = sum / 100 / N;
    assertTrue(mean > 0.35 && mean < 0.65, "mean position of hot keys " + mean);
    // Different seeds place the hottest key differently.
    assertTrue(
        ScrambledZipfianGenerator.permuted(N, 0.99, 8).keyOfRank(0) != g.keyOfRank(0)
            || ScrambledZipfianGenerator.permuted(N, 0.99, 9).keyOfRank(0) != g.keyOfRank(0));
  }

  @Test
  void ycsbVariantHasYcsbsHotKeyMass() {
    // YCSB: rank over 10^16+1 items with ZETAN = zeta(10^10), folded by fnvhash64 % 10000.
    ScrambledZipfianGenerator g = ScrambledZipfianGenerator.ycsb(0, N - 1);
    assertEquals(N, g.itemCount());
    long[] c = new long[N];
    SplittableRandom rng = new SplittableRandom(12);
    for (int i = 0; i < DRAWS; i++) {
      long k = g.next(rng);
      assertTrue(k >= 0 && k < N);
      c[(int) k]++;
    }
    double z = ScrambledZipfianGenerator.YCSB_ZETAN;
    // Other ranks that hash onto the same key add about 1/N of mass: allowed as slack.
    Stats.assertFrequency("hottest key", c[(int) g.keyOfRank(0)], DRAWS, 1 / z, 4, 1.0 / N);
    Stats.assertFrequency(
        "second key", c[(int) g.keyOfRank(1)], DRAWS, Math.pow(0.5, 0.99) / z, 4, 1.0 / N);
    long max = 0;
    for (long x : c) {
      max = Math.max(max, x);
    }
    assertEquals(c[(int) g.keyOfRank(0)], max, "rank 0's key is the most frequent");
    // Flatter than Zipf(10000), whose top key has 1/zeta(10000) = 9.8% of the mass.
    assertTrue(max / (double) DRAWS < 0.05);
  }

  @Test
  void ycsbVariantHonoursMinAndMax() {
    ScrambledZipfianGenerator g = ScrambledZipfianGenerator.ycsb(1000, 1999);
    SplittableRandom rng = new SplittableRandom(13);
    int[] deciles = new int[10];
    for (int i = 0; i < 100_000; i++) {
      long k = g.next(rng);
      assertTrue(k >= 1000 && k <= 1999, "key " + k);
      deciles[(int) ((k - 1000) / 100)]++;
    }
    for (int d : deciles) {
      assertTrue(d > 2000, "a decile of the key range is nearly empty: " + d);
    }
    assertEquals(1000 + Fnv64.ycsbHash(0) % 1000, g.keyOfRank(0));
  }

  @Test
  void fnvMatchesYcsbUtilsFnvhash64() {
    // Reference values from an independent implementation of YCSB's Utils.fnvhash64.
    assertEquals(6284781860667377211L, Fnv64.ycsbHash(0));
    assertEquals(8517097267634966620L, Fnv64.ycsbHash(1));
    assertEquals(1820151046732198393L, Fnv64.ycsbHash(2));
    assertEquals(1792800413050876852L, Fnv64.ycsbHash(12345));
    assertEquals(8289549613075766851L, Fnv64.ycsbHash(Long.MAX_VALUE));
    assertEquals(8289690350564177859L, Fnv64.ycsbHash(-1));
  }
}
