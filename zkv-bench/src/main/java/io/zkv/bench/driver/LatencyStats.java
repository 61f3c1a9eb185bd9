package io.zkv.bench.driver;

import org.HdrHistogram.Histogram;

/**
 * Latency figures of one operation type, in microseconds, from an HdrHistogram of nanoseconds (3
 * significant digits: every figure is within 0.1% of the exact value of the recorded samples).
 */
public record LatencyStats(
    long count,
    double avgUs,
    double p50Us,
    double p75Us,
    double p99Us,
    double p999Us,
    double p9999Us,
    double maxUs) {

  /** The percentiles the reports show, in order, with their column names. */
  static final double[] PERCENTILES = {50, 75, 99, 99.9, 99.99};

  static final String[] NAMES = {"avg", "p50", "p75", "p99", "p99.9", "p99.99", "max"};

  /** A new histogram for nanosecond latencies (auto-resizing, 3 significant digits). */
  public static Histogram newHistogram() {
    return new Histogram(3);
  }

  public static LatencyStats of(Histogram h) {
    if (h.getTotalCount() == 0) {
      return new LatencyStats(0, 0, 0, 0, 0, 0, 0, 0);
    }
    return new LatencyStats(
        h.getTotalCount(),
        h.getMean() / 1000.0,
        us(h, 50),
        us(h, 75),
        us(h, 99),
        us(h, 99.9),
        us(h, 99.99),
        h.getMaxValue() / 1000.0);
  }

  private static double us(Histogram h, double p) {
    return h.getValueAtPercentile(p) / 1000.0;
  }

  /** The figures in the order of {@link #NAMES}. */
  double[] values() {
    return new double[] {avgUs, p50Us, p75Us, p99Us, p999Us, p9999Us, maxUs};
  }
}
