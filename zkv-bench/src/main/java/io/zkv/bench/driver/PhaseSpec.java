package io.zkv.bench.driver;

import io.zkv.bench.workload.OperationMix;

/**
 * One measured phase of a workload.
 *
 * <p>State parity: a phase that writes is limited by its operation count only, never by time, and
 * that count is split evenly over the client threads, each drawing from its own seeded random
 * stream; so every configuration ends the phase with the same keys written (the time a phase takes
 * differs, the data it leaves does not), and a following phase reads the same database on every
 * configuration. Only read-only phases, and the readers of {@code readwhilewriting}, may stop at
 * {@code --duration}.
 *
 * @param name phase name in reports (e.g. {@code readrandom}, {@code ycsb-a-run})
 * @param mix the operation mix the client threads share (each thread draws from its own RNG)
 * @param backgroundWriter a mix for one extra writer thread ({@code readwhilewriting}), or null
 * @param ops operation budget of the clients, split evenly over the threads ({@link
 *     Long#MAX_VALUE}: until the time limit, or until the background writer finishes)
 * @param writerOps operation budget of the background writer (0 without one); it always completes
 *     it, and the clients stop when it has
 * @param timeLimited whether the duration limit applies to the clients (only if they do not write)
 * @param readsData whether the phase expects a populated database (one is loaded first if no
 *     earlier phase wrote)
 * @param writesData whether the phase writes
 * @param settles whether the store settles after it (flush, compactions), as every phase that
 *     writes does except the {@code recover} workload's, whose data must stay in the WAL
 * @param reopens a phase of no operations: the store is closed as a crash leaves it and reopened
 *     ({@link BenchStore#reopen}), the {@code recover} workload's measured phase
 */
public record PhaseSpec(
    String name,
    OperationMix mix,
    OperationMix backgroundWriter,
    long ops,
    long writerOps,
    boolean timeLimited,
    boolean readsData,
    boolean writesData,
    boolean settles,
    boolean reopens) {
  /** The {@code recover} workload's reopen. */
  static PhaseSpec reopen(String name) {
    return new PhaseSpec(name, null, null, 0, 0, false, false, false, false, true);
  }

  /** The same phase under another name. */
  PhaseSpec named(String other) {
    return new PhaseSpec(
        other,
        mix,
        backgroundWriter,
        ops,
        writerOps,
        timeLimited,
        readsData,
        writesData,
        settles,
        reopens);
  }

  public PhaseSpec {
    if (writesData && timeLimited && backgroundWriter == null) {
      throw new IllegalArgumentException(
          "phase " + name + " writes: it must be limited by operation count, not by time");
    }
    if ((backgroundWriter == null) != (writerOps == 0)) {
      throw new IllegalArgumentException("phase " + name + ": writerOps needs a background writer");
    }
  }
}
