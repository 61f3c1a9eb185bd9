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
 * @param writesData whether the phase writes (it is then settled afterwards)
 */
public record PhaseSpec(
    String name,
    OperationMix mix,
    OperationMix backgroundWriter,
    long ops,
    long writerOps,
    boolean timeLimited,
    boolean readsData,
    boolean writesData) {
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
