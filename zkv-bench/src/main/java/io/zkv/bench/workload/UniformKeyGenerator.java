package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * Uniform key numbers in {@code [min, min + count)}.
 *
 * <p>Source: YCSB {@code UniformLongGenerator} and {@code db_bench}'s {@code GetRandomKey} ({@code
 * rand.Next() % FLAGS_num}). Deviation: both of those reduce a 64-bit random number modulo the
 * range, which is biased by up to {@code count / 2^64}; this class uses {@link
 * RandomGenerator#nextLong(long)}, which is unbiased.
 */
public final class UniformKeyGenerator implements KeyGenerator {
  private final long min;
  private final long count;

  /** Keys {@code [0, count)}. */
  public UniformKeyGenerator(long count) {
    this(0, count);
  }

  /** Keys {@code [min, min + count)}. */
  public UniformKeyGenerator(long min, long count) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    this.min = min;
    this.count = count;
  }

  @Override
  public long next(RandomGenerator rng) {
    return min + rng.nextLong(count);
  }

  public long min() {
    return min;
  }

  public long count() {
    return count;
  }
}
