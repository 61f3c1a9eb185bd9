package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * Zipfian key popularity with the hot keys spread over the key space instead of clustered at the
 * low key numbers. Two variants:
 *
 * <ul>
 *   <li>{@link #ycsb}: YCSB's {@code ScrambledZipfianGenerator} exactly. A rank is drawn from a
 *       {@link ZipfianGenerator} over {@code 10^16 + 1} items and mapped to {@code min +
 *       fnvhash64(rank) % itemcount} ({@link Fnv64}). For {@code theta = 0.99} YCSB passes the
 *       precomputed {@code ZETAN = 26.46902820178302}, which is {@code zeta(10^10, 0.99)}, not
 *       {@code zeta(10^16 + 1, 0.99) = 45.12} ({@code ZetaTest} shows this); the mismatch is YCSB's
 *       and is kept, because it shapes the distribution: the hottest key gets {@code 1/26.469 =
 *       3.78%} of the draws whatever the key count, and the frequency profile is that of 10^16
 *       ranks folded onto {@code itemcount} keys, flatter than {@code Zipf(itemcount)}. Hash
 *       collisions merge ranks. This is what YCSB workloads A, B, C, E, F (and so ZWAL's YCSB runs)
 *       use.
 *   <li>{@link #permuted}: a rank from {@code ZipfianGenerator(items, theta)} mapped through a
 *       {@link FeistelPermutation} of {@code [0, items)}. The key-frequency profile is exactly that
 *       of the unscrambled generator; only the placement changes. This is what WALTZ's {@code
 *       db_bench} Zipfian micro-benchmarks do (a shuffled key array indexed by the Zipfian rank,
 *       {@code SharedState::get_key}); see the notes digest §5.1 ({@code --waltz_zipf_dist=0.99}).
 * </ul>
 */
public final class ScrambledZipfianGenerator implements KeyGenerator {
  /** YCSB's {@code ScrambledZipfianGenerator.ZETAN}; equals {@code zeta(10^10, 0.99)}. */
  public static final double YCSB_ZETAN = 26.46902820178302;

  /** YCSB's {@code ScrambledZipfianGenerator.ITEM_COUNT}. */
  public static final long YCSB_ITEM_COUNT = 10_000_000_000_000_000L;

  private final long min;
  private final long itemCount;
  private final ZipfianGenerator ranks;
  private final FeistelPermutation permutation;

  private ScrambledZipfianGenerator(
      long min, long itemCount, ZipfianGenerator ranks, FeistelPermutation permutation) {
    this.min = min;
    this.itemCount = itemCount;
    this.ranks = ranks;
    this.permutation = permutation;
  }

  /** YCSB's generator for keys {@code [min, max]} (inclusive, as YCSB) with theta 0.99. */
  public static ScrambledZipfianGenerator ycsb(long min, long max) {
    return ycsb(min, max, ZipfianGenerator.YCSB_ZIPFIAN_CONSTANT);
  }

  /**
   * YCSB's generator for keys {@code [min, max]}. For {@code theta != 0.99} YCSB sums {@code
   * zeta(10^16 + 1, theta)} term by term (it never finishes); here {@link Zeta} computes it.
   */
  public static ScrambledZipfianGenerator ycsb(long min, long max, double theta) {
    if (max < min) {
      throw new IllegalArgumentException("max < min");
    }
    long rankItems = YCSB_ITEM_COUNT + 1; // YCSB: new ZipfianGenerator(0, ITEM_COUNT, ...)
    double zetan =
        theta == ZipfianGenerator.YCSB_ZIPFIAN_CONSTANT ? YCSB_ZETAN : Zeta.of(rankItems, theta);
    return new ScrambledZipfianGenerator(
        min, max - min + 1, new ZipfianGenerator(rankItems, theta, zetan), null);
  }

  /**
   * Keys {@code [0, items)} with exactly the {@code Zipf(items, theta)} profile, spread by seed.
   */
  public static ScrambledZipfianGenerator permuted(long items, double theta, long permutationSeed) {
    return new ScrambledZipfianGenerator(
        0,
        items,
        new ZipfianGenerator(items, theta),
        new FeistelPermutation(items, permutationSeed));
  }

  @Override
  public long next(RandomGenerator rng) {
    return keyOfRank(ranks.next(rng));
  }

  /** The key a popularity rank maps to (rank 0 is the hottest). */
  public long keyOfRank(long rank) {
    if (permutation == null) {
      return min + Fnv64.ycsbHash(rank) % itemCount;
    }
    return permutation.apply(rank);
  }

  /** The rank generator underneath. */
  public ZipfianGenerator ranks() {
    return ranks;
  }

  public long itemCount() {
    return itemCount;
  }
}
