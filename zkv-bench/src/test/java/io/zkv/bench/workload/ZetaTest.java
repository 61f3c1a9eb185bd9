package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ZetaTest {
  @Test
  void matchesDirectSummationToRoundoff() {
    long[] ns = {1, 2, 3, 10, 1024, 1025, 1100, 5000, 100_000, 1_000_000};
    for (double theta : new double[] {0.2, 0.5, 0.99, 1.0, 1.3}) {
      Zeta zeta = new Zeta(theta);
      for (long n : ns) {
        double expected = Stats.zetaDirect(n, theta);
        double rel = Math.abs(zeta.sum(n) - expected) / expected;
        assertTrue(rel < 1e-13, "theta " + theta + " n " + n + ": relative error " + rel);
      }
    }
  }

  @Test
  void ycsbZetanIsZetaOfTenToTheTen() {
    // YCSB's ScrambledZipfianGenerator.ZETAN; its ITEM_COUNT is 10^16, whose zeta is far larger.
    double z10 = Zeta.of(10_000_000_000L, 0.99);
    assertEquals(ScrambledZipfianGenerator.YCSB_ZETAN, z10, 1e-9 * z10);
    double z16 = Zeta.of(ScrambledZipfianGenerator.YCSB_ITEM_COUNT + 1, 0.99);
    assertEquals(45.1205, z16, 1e-3);
  }

  @Test
  void edgeCases() {
    assertEquals(0.0, Zeta.of(0, 0.99));
    assertEquals(1.0, Zeta.of(1, 0.99));
    assertEquals(1 + Math.pow(2, -0.99), Zeta.of(2, 0.99), 1e-15);
    assertThrows(IllegalArgumentException.class, () -> new Zeta(0));
    assertThrows(IllegalArgumentException.class, () -> Zeta.of(-1, 0.5));
  }
}
