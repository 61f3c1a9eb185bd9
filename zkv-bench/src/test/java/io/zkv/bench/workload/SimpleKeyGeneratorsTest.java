package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Uniform, sequential and hotspot key generators. */
class SimpleKeyGeneratorsTest {
  @Test
  void uniformIsFlatOverEveryKey() {
    int keys = 1000;
    int draws = 500_000;
    UniformKeyGenerator g = new UniformKeyGenerator(keys);
    long[] c = new long[keys];
    SplittableRandom rng = new SplittableRandom(1);
    for (int i = 0; i < draws; i++) {
      c[(int) g.next(rng)]++;
    }
    double[] p = new double[keys];
    Arrays.fill(p, 1.0 / keys);
    Stats.assertFits("uniform over 1000 keys", c, p, draws);
  }

  @Test
  void uniformIsFlatOverALargeKeySpaceWithOffset() {
    long min = 5_000_000_000L;
    long count = 64_000_000L; // WALTZ's key range
    UniformKeyGenerator g = new UniformKeyGenerator(min, count);
    int buckets = 100;
    int draws = 300_000;
    long[] c = new long[buckets];
    SplittableRandom rng = new SplittableRandom(2);
    for (int i = 0; i < draws; i++) {
      long k = g.next(rng);
      assertTrue(k >= min && k < min + count);
      c[(int) ((k - min) * buckets / count)]++;
    }
    double[] p = new double[buckets];
    Arrays.fill(p, 1.0 / buckets);
    Stats.assertFits("uniform over 64M keys, 100 buckets", c, p, draws);
  }

  @Test
  void sequentialCountsAndWraps() {
    SequentialKeyGenerator g = new SequentialKeyGenerator(10, 5);
    SplittableRandom rng = new SplittableRandom(3);
    long[] got = new long[12];
    for (int i = 0; i < got.length; i++) {
      got[i] = g.next(rng);
    }
    assertEquals(
        Arrays.toString(new long[] {10, 11, 12, 13, 14, 10, 11, 12, 13, 14, 10, 11}),
        Arrays.toString(got));
  }

  @Test
  void hotspotSendsEightyPercentToTwentyPercent() {
    int keys = 10_000;
    int draws = 400_000;
    HotspotKeyGenerator g = HotspotKeyGenerator.ycsbDefault(keys);
    assertEquals(2000, g.hotCount());
    long[] hot = new long[10];
    long[] cold = new long[10];
    long hotDraws = 0;
    SplittableRandom rng = new SplittableRandom(4);
    for (int i = 0; i < draws; i++) {
      long k = g.next(rng);
      assertTrue(k >= 0 && k < keys);
      if (k < 2000) {
        hotDraws++;
        hot[(int) (k / 200)]++;
      } else {
        cold[(int) ((k - 2000) / 800)]++;
      }
    }
    Stats.assertFrequency("hot-set share", hotDraws, draws, 0.8, 4, 0);
    double[] flat = new double[10];
    Arrays.fill(flat, 0.1);
    Stats.assertFits("uniform inside the hot set", hot, flat, hotDraws);
    Stats.assertFits("uniform inside the cold set", cold, flat, draws - hotDraws);
  }

  @Test
  void rejectsEmptyRanges() {
    assertThrows(IllegalArgumentException.class, () -> new UniformKeyGenerator(0));
    assertThrows(IllegalArgumentException.class, () -> new SequentialKeyGenerator(0));
    assertThrows(IllegalArgumentException.class, () -> new HotspotKeyGenerator(0, 10, 1.5, 0.5));
  }
}
