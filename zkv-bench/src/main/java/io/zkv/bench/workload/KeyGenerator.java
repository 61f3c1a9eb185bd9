package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * Chooses the next key number. Implementations draw all randomness from the {@code rng} argument,
 * so a sequence of keys is a pure function of the generator's parameters and the RNG state.
 * Implementations are safe to share between threads as long as each thread passes its own RNG (the
 * only mutable state, in {@link SequentialKeyGenerator} and {@link SkewedLatestGenerator}, is
 * atomic).
 */
@FunctionalInterface
public interface KeyGenerator {
  /** Returns the next key number. */
  long next(RandomGenerator rng);
}
