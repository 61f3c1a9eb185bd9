package io.zkv.bench.driver;

import io.zkv.bench.workload.OperationMix;
import java.util.function.IntFunction;

/**
 * One measured phase of a workload.
 *
 * @param name phase name in reports (e.g. {@code readrandom}, {@code ycsb-a-run})
 * @param mixForThread the operation mix of client thread {@code i} (most phases share one mix)
 * @param backgroundWriter a mix for one extra writer thread that runs until the clients finish
 *     ({@code readwhilewriting}), or null
 * @param ops operation budget of the clients ({@link Long#MAX_VALUE}: until the time limit)
 * @param timeLimited whether the duration limit applies
 * @param readsData whether the phase expects a populated database (one is loaded first if no
 *     earlier phase wrote)
 * @param writesData whether the phase populates the database
 */
public record PhaseSpec(
    String name,
    IntFunction<OperationMix> mixForThread,
    OperationMix backgroundWriter,
    long ops,
    boolean timeLimited,
    boolean readsData,
    boolean writesData) {}
