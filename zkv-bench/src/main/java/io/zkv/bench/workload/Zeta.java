package io.zkv.bench.workload;

/**
 * The generalized harmonic number {@code zeta(n, theta) = sum_{i=1..n} i^-theta}, the normalizing
 * constant of a Zipf distribution over {@code n} ranks.
 *
 * <p>Source: YCSB {@code ZipfianGenerator.zetastatic} computes it by summing all {@code n} terms,
 * which takes seconds for 64M keys and is hopeless for the 10^16 items of YCSB's scrambled
 * generator. This class sums the first {@value #EXACT_TERMS} terms directly and the rest with the
 * Euler-Maclaurin formula (Abramowitz and Stegun, 23.1.30):
 *
 * <pre>
 *   sum_{i=a..b} f(i) = integral_a^b f(x) dx + (f(a) + f(b)) / 2
 *                       + sum_{k>=1} B_2k / (2k)! * (f^(2k-1)(b) - f^(2k-1)(a)) + R
 * </pre>
 *
 * with {@code f(x) = x^-theta}, {@code a = 1025}, truncated after the {@code B_6} term. The next
 * term is below {@code 1e-20} for {@code theta <= 2}, far under double rounding ({@code ZetaTest}
 * checks the formula against direct summation). Sums up to {@value #EXACT_TERMS} terms come from a
 * prefix table, so {@link #sum} costs O(1) for every {@code n}, which {@link SkewedLatestGenerator}
 * relies on as the key count grows.
 */
public final class Zeta {
  /** Terms summed directly; the tail starts at {@code EXACT_TERMS + 1}. */
  static final int EXACT_TERMS = 1024;

  private static final double B2_OVER_2 = 1.0 / 12;
  private static final double B4_OVER_24 = -1.0 / 720;
  private static final double B6_OVER_720 = 1.0 / 30240;

  private final double theta;
  private final double[] prefix;

  /** Precomputes the first {@value #EXACT_TERMS} partial sums for this {@code theta > 0}. */
  public Zeta(double theta) {
    if (!(theta > 0) || Double.isInfinite(theta)) {
      throw new IllegalArgumentException("theta must be positive and finite: " + theta);
    }
    this.theta = theta;
    prefix = new double[EXACT_TERMS + 1];
    double s = 0;
    for (int i = 1; i <= EXACT_TERMS; i++) {
      s += 1 / Math.pow(i, theta);
      prefix[i] = s;
    }
  }

  /** {@code zeta(n, theta)} for one {@code n}. */
  public static double of(long n, double theta) {
    return new Zeta(theta).sum(n);
  }

  public double theta() {
    return theta;
  }

  /** {@code sum_{i=1..n} i^-theta}; 0 for {@code n = 0}. */
  public double sum(long n) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be non-negative: " + n);
    }
    if (n <= EXACT_TERMS) {
      return prefix[(int) n];
    }
    return prefix[EXACT_TERMS] + tail(EXACT_TERMS + 1, n);
  }

  /** Euler-Maclaurin estimate of {@code sum_{i=a..b} i^-theta}. */
  private double tail(double a, double b) {
    double integral =
        theta == 1
            ? Math.log(b / a)
            : (Math.pow(b, 1 - theta) - Math.pow(a, 1 - theta)) / (1 - theta);
    return integral
        + (f(a) + f(b)) / 2
        + B2_OVER_2 * (d1(b) - d1(a))
        + B4_OVER_24 * (d3(b) - d3(a))
        + B6_OVER_720 * (d5(b) - d5(a));
  }

  private double f(double x) {
    return Math.pow(x, -theta);
  }

  private double d1(double x) {
    return -theta * Math.pow(x, -theta - 1);
  }

  private double d3(double x) {
    return -theta * (theta + 1) * (theta + 2) * Math.pow(x, -theta - 3);
  }

  private double d5(double x) {
    return -theta * (theta + 1) * (theta + 2) * (theta + 3) * (theta + 4) * Math.pow(x, -theta - 5);
  }
}
