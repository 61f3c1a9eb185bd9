package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Test statistics: chi-square goodness of fit and binomial tolerances. */
final class Stats {
  /** z for a one-sided p of 0.001: chi-square tests fail with probability 0.1% under the null. */
  static final double Z_999 = 3.0902;

  private Stats() {}

  /** Pearson's statistic; expected are probabilities summing to about 1. */
  static double chiSquare(long[] observed, double[] expected, long n) {
    double chi = 0;
    for (int i = 0; i < observed.length; i++) {
      double e = expected[i] * n;
      double d = observed[i] - e;
      chi += d * d / e;
    }
    return chi;
  }

  /** Upper 0.1% point of chi-square with {@code df} degrees (Wilson-Hilferty approximation). */
  static double chiSquareCritical(int df) {
    double t = 2.0 / (9 * df);
    double c = 1 - t + Z_999 * Math.sqrt(t);
    return df * c * c * c;
  }

  /** Asserts the counts fit the probabilities at the 0.1% level (every bin must expect >= 5). */
  static void assertFits(String what, long[] observed, double[] expected, long n) {
    for (double e : expected) {
      assertTrue(e * n >= 5, what + ": bin expects fewer than 5 draws");
    }
    double chi = chiSquare(observed, expected, n);
    double crit = chiSquareCritical(observed.length - 1);
    assertTrue(
        chi < crit,
        String.format("%s: chi-square %.1f >= %.1f (df %d)", what, chi, crit, observed.length - 1));
  }

  /** Standard error of a frequency estimate of {@code p} from {@code n} draws. */
  static double se(double p, long n) {
    return Math.sqrt(p * (1 - p) / n);
  }

  /**
   * Asserts {@code count / n} is within {@code sigmas} standard errors (plus slack) of {@code p}.
   */
  static void assertFrequency(
      String what, long count, long n, double p, double sigmas, double slack) {
    double f = (double) count / n;
    double tol = sigmas * se(p, n) + slack;
    assertTrue(
        Math.abs(f - p) <= tol,
        String.format("%s: frequency %.6f, expected %.6f +- %.6f", what, f, p, tol));
  }

  /** Kahan-summed {@code sum_{i=1..n} i^-theta}, the reference for {@link Zeta}. */
  static double zetaDirect(long n, double theta) {
    double sum = 0;
    double c = 0;
    for (long i = 1; i <= n; i++) {
      double y = Math.pow(i, -theta) - c;
      double t = sum + y;
      c = (t - sum) - y;
      sum = t;
    }
    return sum;
  }
}
