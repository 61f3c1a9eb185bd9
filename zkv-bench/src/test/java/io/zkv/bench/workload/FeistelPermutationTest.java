package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class FeistelPermutationTest {
  @Test
  void isABijectionForAnySize() {
    long[] sizes = {1, 2, 3, 5, 64, 65, 1000, 10_007, 65_536, 100_003};
    for (long n : sizes) {
      FeistelPermutation p = new FeistelPermutation(n, 99);
      BitSet seen = new BitSet((int) n);
      for (long x = 0; x < n; x++) {
        long y = p.apply(x);
        assertTrue(y >= 0 && y < n, "n=" + n + " image " + y);
        assertFalse(seen.get((int) y), "n=" + n + ": " + y + " hit twice");
        seen.set((int) y);
      }
      assertEquals(n, seen.cardinality());
    }
  }

  @Test
  void looksRandomAndDependsOnTheSeed() {
    int n = 10_007;
    FeistelPermutation a = new FeistelPermutation(n, 1);
    FeistelPermutation b = new FeistelPermutation(n, 1);
    FeistelPermutation c = new FeistelPermutation(n, 2);
    int fixed = 0;
    int differ = 0;
    double displacement = 0;
    for (long x = 0; x < n; x++) {
      long y = a.apply(x);
      assertEquals(y, b.apply(x));
      fixed += y == x ? 1 : 0;
      differ += y != c.apply(x) ? 1 : 0;
      displacement += Math.abs(y - x);
    }
    // A random permutation has 1 fixed point on average and mean |p(x) - x| of n/3.
    assertTrue(fixed < 8, "fixed points " + fixed);
    assertTrue(differ > n * 0.99, "seeds 1 and 2 agree on " + (n - differ) + " points");
    double mean = displacement / n / n;
    assertTrue(Math.abs(mean - 1.0 / 3) < 0.02, "mean displacement " + mean + " n");
  }

  @Test
  void rejectsOutOfRange() {
    FeistelPermutation p = new FeistelPermutation(10, 0);
    assertThrows(IllegalArgumentException.class, () -> p.apply(10));
    assertThrows(IllegalArgumentException.class, () -> p.apply(-1));
    assertThrows(IllegalArgumentException.class, () -> new FeistelPermutation(0, 0));
  }

  @Test
  void handlesHugeDomains() {
    FeistelPermutation p = new FeistelPermutation(Long.MAX_VALUE, 3);
    for (long x : new long[] {0, 1, Long.MAX_VALUE - 1, 1L << 62}) {
      long y = p.apply(x);
      assertTrue(y >= 0 && y < Long.MAX_VALUE);
    }
  }
}
