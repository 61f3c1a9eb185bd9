package io.zkv.bench.driver;

import java.util.random.RandomGenerator;

/**
 * The random numbers of one client thread, restarted before each of its operations from the
 * thread's seed and the operation's index (SplitMix64 from {@code seed ^ mix64(index)}).
 *
 * <p>Why: a mix may draw a varying number of values for one operation, depending on what other
 * threads did (YCSB's key chooser redraws keys above the acknowledged inserts). With one continuous
 * stream, that shifts every later draw, so the operation types, and the data written, would depend
 * on timing; restarted per operation, operation {@code i} of thread {@code t} is the same on every
 * configuration (state parity).
 */
final class OperationRandom implements RandomGenerator {
  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
  private final long seed;
  private long state;

  OperationRandom(long seed) {
    this.seed = seed;
    this.state = seed;
  }

  /** Restarts the stream for operation {@code index} of this thread. */
  void startOperation(long index) {
    state = seed ^ PhaseRunner.mix64(index);
  }

  @Override
  public long nextLong() {
    state += GOLDEN_GAMMA;
    return PhaseRunner.mix64(state);
  }
}
