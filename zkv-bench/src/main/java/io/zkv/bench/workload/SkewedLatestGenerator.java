package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * Favours the most recently inserted records: returns {@code limit - 1 - r}, with {@code r} a
 * Zipfian rank over the {@code limit} records that exist now.
 *
 * <p>Source: YCSB {@code SkewedLatestGenerator} ({@code next = max - zipfian.nextLong(max)} with
 * {@code max = basis.lastValue()}), used by {@code requestdistribution=latest}, i.e. workload D.
 * The basis is the insert counter, so newly acknowledged inserts become the hottest records at
 * once. Deviations: YCSB draws the rank over {@code max = lastValue} items and returns {@code max -
 * rank}, in {@code [1, max]}, so record 0 is never read; this class draws the rank over all {@code
 * limit} records and returns {@code [0, limit - 1]} (the newest record has the rank-0 probability
 * in both). YCSB keeps using the initial item count in {@code eta} after the count grows; this
 * class rebuilds the whole {@link ZipfianGenerator} (O(1) with {@link Zeta}) whenever the limit
 * changes, so the distribution is always Gray's for the current count.
 */
public final class SkewedLatestGenerator implements KeyGenerator {
  private final InsertCounter basis;
  private final Zeta zeta;
  private volatile ZipfianGenerator current;

  /** With YCSB's theta 0.99. */
  public SkewedLatestGenerator(InsertCounter basis) {
    this(basis, ZipfianGenerator.YCSB_ZIPFIAN_CONSTANT);
  }

  public SkewedLatestGenerator(InsertCounter basis, double theta) {
    this.basis = basis;
    this.zeta = new Zeta(theta);
  }

  @Override
  public long next(RandomGenerator rng) {
    long limit = basis.limit();
    if (limit < 1) {
      throw new IllegalStateException("no records inserted yet");
    }
    ZipfianGenerator z = current;
    if (z == null || z.items() != limit) {
      z = new ZipfianGenerator(limit, zeta.theta(), zeta.sum(limit));
      current = z;
    }
    return limit - 1 - z.next(rng);
  }
}
