package io.zkv.bench.workload;

import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * Key numbers {@code start, start+1, ..., start+count-1}, then wraps around to {@code start}.
 *
 * <p>Source: YCSB {@code SequentialGenerator} ({@code counter++ % interval + countstart}) and the
 * {@code SEQUENTIAL} mode of {@code db_bench}'s {@code KeyGenerator} used by {@code fillseq}. The
 * RNG is ignored. The counter is atomic: one instance shared by several threads hands out disjoint
 * keys; {@code db_bench fillseq} instead gives every thread its own sequence from 0, which is one
 * instance per thread.
 */
public final class SequentialKeyGenerator implements KeyGenerator {
  private final long start;
  private final long count;
  private final AtomicLong counter = new AtomicLong();

  /** Keys {@code [0, count)} in order. */
  public SequentialKeyGenerator(long count) {
    this(0, count);
  }

  /** Keys {@code [start, start + count)} in order. */
  public SequentialKeyGenerator(long start, long count) {
    if (count <= 0) {
      throw new IllegalArgumentException("count must be positive: " + count);
    }
    this.start = start;
    this.count = count;
  }

  @Override
  public long next(RandomGenerator rng) {
    return start + Long.remainderUnsigned(counter.getAndIncrement(), count);
  }
}
