package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * Zipfian ranks {@code 0..items-1}, rank 0 the most popular, drawn with YCSB's algorithm.
 *
 * <p>Source: YCSB {@code site.ycsb.generator.ZipfianGenerator}, which implements Gray et al.,
 * "Quickly Generating Billion-Record Synthetic Databases", SIGMOD 1994. With {@code u} uniform in
 * {@code [0,1)}, {@code zetan = zeta(items, theta)}, {@code alpha = 1/(1-theta)} and {@code eta =
 * (1 - (2/items)^(1-theta)) / (1 - zeta(2,theta)/zetan)}:
 *
 * <pre>
 *   u*zetan &lt; 1                  -&gt; 0
 *   u*zetan &lt; 1 + 0.5^theta      -&gt; 1
 *   otherwise                     -&gt; floor(items * (eta*u - eta + 1)^alpha)
 * </pre>
 *
 * <p>The algorithm is exact for ranks 0 and 1 and approximates the rest by inverting a continuous
 * density, so it does <em>not</em> follow the zeta law {@code P(i) = (i+1)^-theta / zetan} exactly:
 * for {@code theta = 0.99} rank 2 comes out about 18% too often, the top-10 mass about 5% too high
 * (relative), and ranks beyond 20 stay within about 2.6% of the zeta law. {@link #cdf} gives the
 * exact distribution the algorithm produces, which {@code ZipfianGeneratorTest} checks against; the
 * same test bounds the deviation from the zeta law. YCSB and WALTZ's {@code db_bench} both use this
 * algorithm, so their "Zipfian 0.99" means this distribution.
 *
 * <p>{@code theta} must be in {@code (0, 1)} (the algorithm needs {@code alpha > 0}). The default
 * is YCSB's {@code ZIPFIAN_CONSTANT = 0.99}. {@code zetan} is computed with {@link Zeta} (exact to
 * double precision, O(1) in {@code items}). Deviation: YCSB can grow {@code items} after
 * construction; this class is fixed-size and immutable ({@link SkewedLatestGenerator} makes a new
 * one when the key count grows), and it clamps the (floating-point only) result {@code items} to
 * {@code items - 1}.
 */
public final class ZipfianGenerator implements KeyGenerator {
  /** YCSB's default Zipfian constant ({@code ZipfianGenerator.ZIPFIAN_CONSTANT}). */
  public static final double YCSB_ZIPFIAN_CONSTANT = 0.99;

  private final long items;
  private final double theta;
  private final double zetan;
  private final double alpha;
  private final double eta;
  private final double rank1Bound;

  /** {@code items} ranks with {@code theta = 0.99}. */
  public ZipfianGenerator(long items) {
    this(items, YCSB_ZIPFIAN_CONSTANT);
  }

  public ZipfianGenerator(long items, double theta) {
    this(items, theta, Zeta.of(items, theta));
  }

  /** With a given normalizer; YCSB's scrambled generator passes a precomputed constant. */
  ZipfianGenerator(long items, double theta, double zetan) {
    if (items < 1) {
      throw new IllegalArgumentException("items must be positive: " + items);
    }
    if (!(theta > 0 && theta < 1)) {
      throw new IllegalArgumentException("theta must be in (0, 1): " + theta);
    }
    this.items = items;
    this.theta = theta;
    this.zetan = zetan;
    this.alpha = 1 / (1 - theta);
    this.rank1Bound = 1 + Math.pow(0.5, theta);
    this.eta = (1 - Math.pow(2.0 / items, 1 - theta)) / (1 - rank1Bound / zetan);
  }

  @Override
  public long next(RandomGenerator rng) {
    return rank(rng.nextDouble());
  }

  /** The rank for uniform {@code u} in {@code [0, 1)}. */
  long rank(double u) {
    double uz = u * zetan;
    if (uz < 1) {
      return 0;
    }
    if (uz < rank1Bound) {
      return 1;
    }
    long r = (long) (items * Math.pow(eta * u - eta + 1, alpha));
    return Math.min(r, items - 1);
  }

  /**
   * {@code P(rank <= i)} for the values this generator returns (Gray's approximation, not the zeta
   * law). Derived by inverting the third branch: {@code rank <= i} iff {@code u < 1 - (1 -
   * ((i+1)/items)^(1-theta)) / eta}.
   */
  public double cdf(long i) {
    if (i < 0) {
      return 0;
    }
    if (i >= items - 1) {
      return 1;
    }
    double p0 = 1 / zetan;
    double p1 = rank1Bound / zetan;
    if (i == 0) {
      return Math.min(p0, 1);
    }
    if (i == 1) {
      return Math.min(p1, 1);
    }
    double v = 1 - (1 - Math.pow((i + 1.0) / items, 1 - theta)) / eta;
    return Math.max(Math.min(v, 1), Math.min(p1, 1));
  }

  public long items() {
    return items;
  }

  public double theta() {
    return theta;
  }

  /** The normalizer used, {@code zeta(items, theta)} unless given explicitly. */
  public double zetan() {
    return zetan;
  }
}
