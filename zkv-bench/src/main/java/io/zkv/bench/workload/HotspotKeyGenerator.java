package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * A fraction {@code hotOpnFraction} of draws falls uniformly in the first {@code hotsetFraction} of
 * {@code [min, min + count)}, the rest uniformly in the remainder ("x% of operations access y% of
 * the data").
 *
 * <p>Source: YCSB {@code HotspotIntegerGenerator} (defaults {@code hotspotdatafraction=0.2}, {@code
 * hotspotopnfraction=0.8} in {@code CoreWorkload}). The hot set is {@code floor(count *
 * hotsetFraction)} keys and always precedes the cold set, as in YCSB. Deviations: YCSB casts the
 * hot-set size to {@code int} (overflowing above 2^31 keys) and uses the biased {@code
 * abs(nextLong()) % n}; this class keeps {@code long} and draws unbiased uniforms.
 */
public final class HotspotKeyGenerator implements KeyGenerator {
  private final long min;
  private final long hotCount;
  private final long coldCount;
  private final double hotOpnFraction;

  public HotspotKeyGenerator(long min, long count, double hotsetFraction, double hotOpnFraction) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    if (!(hotsetFraction >= 0 && hotsetFraction <= 1)
        || !(hotOpnFraction >= 0 && hotOpnFraction <= 1)) {
      throw new IllegalArgumentException("fractions must be in [0, 1]");
    }
    this.min = min;
    this.hotCount = (long) (count * hotsetFraction);
    this.coldCount = count - hotCount;
    this.hotOpnFraction = hotOpnFraction;
  }

  /** YCSB defaults: 80% of operations on the first 20% of the keys. */
  public static HotspotKeyGenerator ycsbDefault(long count) {
    return new HotspotKeyGenerator(0, count, 0.2, 0.8);
  }

  @Override
  public long next(RandomGenerator rng) {
    boolean hot = rng.nextDouble() < hotOpnFraction;
    if ((hot && hotCount > 0) || coldCount == 0) {
      return min + rng.nextLong(hotCount);
    }
    return min + hotCount + rng.nextLong(coldCount);
  }

  /** Number of keys in the hot set. */
  public long hotCount() {
    return hotCount;
  }
}
