package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GeneralizedParetoTest {
  @Test
  void inversionAndCdfAreInverse() {
    double[][] params = {{0, 0.2615, 25.45}, {0, 2.517, 14.236}, {10, 0, 5}, {3, -0.25, 2}};
    for (double[] p : params) {
      GeneralizedPareto g = new GeneralizedPareto(p[0], p[1], p[2]);
      for (double q : new double[] {1e-6, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999999}) {
        // db_bench's u is the survival probability 1 - F.
        assertEquals(q, g.cdf(g.inverse(1 - q)), 1e-9, "params " + p[1] + " q " + q);
      }
    }
  }

  @Test
  void sampleMeanMatchesTheFormula() {
    // k = 0.2615 < 1/2: finite variance, sd = sigma / ((1 - k) sqrt(1 - 2k)).
    GeneralizedPareto g = new GeneralizedPareto(0, 0.2615, 25.45);
    assertEquals(25.45 / (1 - 0.2615), g.mean(), 1e-12);
    int n = 400_000;
    SplittableRandom rng = new SplittableRandom(1);
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += g.inverse(1 - rng.nextDouble());
    }
    double sd = 25.45 / ((1 - 0.2615) * Math.sqrt(1 - 2 * 0.2615));
    assertEquals(g.mean(), sum / n, 4 * sd / Math.sqrt(n));
    assertEquals(Double.POSITIVE_INFINITY, new GeneralizedPareto(0, 2.517, 14.236).mean());
  }

  @Test
  void zeroScaleIsAPointMass() {
    // WALTZ: --value_theta=4000 --value_sigma=0 (value_k defaults to 0).
    GeneralizedPareto g = new GeneralizedPareto(4000, 0, 0);
    for (double u : new double[] {0, 1e-300, 0.5, 1}) {
      assertEquals(4000, g.dbBenchSample(u));
    }
    assertEquals(0.0, g.cdf(3999.9));
    assertEquals(1.0, g.cdf(4000));
  }

  @Test
  void castFollowsX86() {
    assertEquals(Long.MIN_VALUE, GeneralizedPareto.toInt64(Double.NaN));
    assertEquals(Long.MIN_VALUE, GeneralizedPareto.toInt64(Double.POSITIVE_INFINITY));
    assertEquals(Long.MIN_VALUE, GeneralizedPareto.toInt64(1e19));
    assertEquals(-3, GeneralizedPareto.toInt64(-3.7));
    assertEquals(Long.MAX_VALUE - 1023, GeneralizedPareto.toInt64(Math.nextDown(0x1p63)));
    // u = 0 with k > 0 is the pole: db_bench gets the "integer indefinite" value.
    assertEquals(Long.MIN_VALUE, new GeneralizedPareto(0, 0.2615, 25.45).dbBenchSample(0));
    assertTrue(new GeneralizedPareto(0, 0.2615, 25.45).dbBenchSample(0.5) > 0);
  }
}
