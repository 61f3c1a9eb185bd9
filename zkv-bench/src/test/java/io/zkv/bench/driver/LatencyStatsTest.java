package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencyStatsTest {
  /** HdrHistogram with 3 significant digits: values are exact to within 0.1%. */
  private static void near(double expected, double actual, String what) {
    assertEquals(expected, actual, expected * 0.001 + 1e-9, what);
  }

  @Test
  void percentilesOfOneToTenThousandMicroseconds() {
    Histogram h = LatencyStats.newHistogram();
    for (int us = 1; us <= 10_000; us++) {
      h.recordValue(us * 1000L); // nanoseconds
    }
    LatencyStats s = LatencyStats.of(h);
    assertEquals(10_000, s.count());
    near(5000.5, s.avgUs(), "avg");
    near(5000, s.p50Us(), "p50");
    near(7500, s.p75Us(), "p75");
    near(9900, s.p99Us(), "p99");
    near(9990, s.p999Us(), "p99.9");
    near(9999, s.p9999Us(), "p99.99");
    near(10_000, s.maxUs(), "max");
  }

  @Test
  void aFewSlowOperationsShowOnlyInTheTail() {
    Histogram h = LatencyStats.newHistogram();
    for (int i = 0; i < 9_990; i++) {
      h.recordValue(2_000); // 2 us
    }
    for (int i = 0; i < 10; i++) {
      h.recordValue(5_000_000); // 5 ms: the slowest 0.1%
    }
    LatencyStats s = LatencyStats.of(h);
    near(2, s.p50Us(), "p50");
    near(2, s.p99Us(), "p99");
    near(2, s.p999Us(), "p99.9 is the last fast one");
    near(5000, s.p9999Us(), "p99.99");
    near(5000, s.maxUs(), "max");
    near((9_990 * 2.0 + 10 * 5000.0) / 10_000, s.avgUs(), "avg");
  }

  @Test
  void anEmptyHistogramIsAllZeros() {
    LatencyStats s = LatencyStats.of(LatencyStats.newHistogram());
    assertEquals(0, s.count());
    assertEquals(0, s.maxUs());
    assertEquals(7, s.values().length);
  }
}
