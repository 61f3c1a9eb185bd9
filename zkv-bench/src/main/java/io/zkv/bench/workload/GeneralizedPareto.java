package io.zkv.bench.workload;

/**
 * The generalized Pareto distribution with location {@code theta}, shape {@code k} and scale {@code
 * sigma}, used by MixGraph for value sizes and iterator scan lengths.
 *
 * <p>Source: Cao et al., "Characterizing, Modeling, and Benchmarking RocksDB Key-Value Workloads at
 * Facebook", FAST 2020, and the {@code db_bench} flags {@code --value_theta/_k/_sigma} and {@code
 * --iter_theta/_k/_sigma} whose help text gives the density {@code f(x) = (1/sigma) (1 + k (x -
 * theta) / sigma)^-(1/k + 1)}. Hence
 *
 * <pre>
 *   CDF  F(x) = 1 - (1 + k (x - theta) / sigma)^(-1/k)     (k != 0)
 *             = 1 - exp(-(x - theta) / sigma)              (k == 0)
 *   mean      = theta + sigma / (1 - k)                    (k &lt; 1; infinite otherwise)
 * </pre>
 *
 * <p>{@code db_bench} samples with {@code ParetoCdfInversion(u, theta, k, sigma)}: {@code theta +
 * sigma (u^-k - 1) / k} ({@code theta - sigma ln u} for {@code k == 0}), rounded up and cast to
 * {@code int64_t}, where {@code u} plays the role of {@code 1 - F}; {@link #dbBenchSample}
 * reproduces that, including the x86 result of casting an infinite or NaN value ({@code u == 0}).
 * Since {@code ceil(X) <= s} iff {@code X <= s}, the sampled integer {@code s} has {@code P(S <= s)
 * = F(s)}. With {@code sigma == 0} the distribution is the point mass at {@code theta} (how WALTZ
 * fixes MixGraph values at 4000 bytes).
 */
public final class GeneralizedPareto {
  private final double theta;
  private final double k;
  private final double sigma;

  public GeneralizedPareto(double theta, double k, double sigma) {
    if (!(sigma >= 0) || Double.isNaN(theta) || Double.isNaN(k)) {
      throw new IllegalArgumentException("need sigma >= 0 and finite theta, k");
    }
    this.theta = theta;
    this.k = k;
    this.sigma = sigma;
  }

  public double theta() {
    return theta;
  }

  public double k() {
    return k;
  }

  public double sigma() {
    return sigma;
  }

  /** {@code P(X <= x)}. */
  public double cdf(double x) {
    if (x < theta) {
      return 0;
    }
    if (sigma == 0) {
      return 1;
    }
    double z = (x - theta) / sigma;
    if (k == 0) {
      return -Math.expm1(-z);
    }
    double t = 1 + k * z;
    if (t <= 0) {
      return 1; // beyond the upper end of the support (k < 0)
    }
    return -Math.expm1(-Math.log(t) / k);
  }

  /** The mean; {@code +Infinity} for {@code k >= 1}. */
  public double mean() {
    return k < 1 ? theta + sigma / (1 - k) : Double.POSITIVE_INFINITY;
  }

  /** {@code db_bench}'s inversion before rounding, for {@code u} = survival probability. */
  public double inverse(double u) {
    if (sigma == 0) {
      return theta;
    }
    if (k == 0) {
      return theta - sigma * Math.log(u);
    }
    return theta + sigma * (Math.pow(u, -k) - 1) / k;
  }

  /** {@code static_cast<int64_t>(ceil(inverse(u)))} as {@code db_bench} computes it on x86-64. */
  public long dbBenchSample(double u) {
    return toInt64(Math.ceil(inverse(u)));
  }

  /**
   * C++ {@code static_cast<int64_t>(double)} as x86-64 executes it ({@code cvttsd2si}): truncation,
   * and {@code Long.MIN_VALUE} ("integer indefinite") for NaN or out-of-range values, where Java's
   * cast would saturate instead.
   */
  static long toInt64(double x) {
    if (Double.isNaN(x) || x >= 0x1p63 || x < -0x1p63) {
      return Long.MIN_VALUE;
    }
    return (long) x;
  }
}
