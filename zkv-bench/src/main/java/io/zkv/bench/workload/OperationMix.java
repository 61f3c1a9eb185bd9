package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * An endless stream of operations. The operation count (db_bench {@code --num}/{@code --reads},
 * YCSB {@code recordcount}/{@code operationcount}) is the runner's business.
 *
 * <p>A mix draws all randomness from the RNG it is given, so one RNG per thread makes the stream of
 * each thread deterministic. Mixes are safe to share between threads; state that must be shared
 * (YCSB's insert counter) is thread-safe.
 */
public interface OperationMix {
  /** Fills {@code op} with the next operation. */
  void next(RandomGenerator rng, Operation op);

  /**
   * Reports that {@code op} has been executed (successfully or not). Only YCSB run mixes care: an
   * inserted record becomes readable once acknowledged. Calling it for other operations is
   * harmless.
   */
  default void acknowledge(Operation op) {}
}
