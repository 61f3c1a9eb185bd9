/**
 * Workload generators for zkv benchmarks: key distributions, key and value encoding, and the
 * operation mixes of the workloads the WALTZ and ZWAL papers measure (RocksDB {@code db_bench}
 * micro-benchmarks and MixGraph, YCSB core workloads A-F).
 *
 * <p>Everything here is deterministic given the {@link java.util.random.RandomGenerator} passed in:
 * a generator never draws randomness of its own (the few fixed internal seeds, such as the MixGraph
 * key-range shuffle, are functions of the workload parameters). Give each benchmark thread its own
 * {@link java.util.SplittableRandom}, e.g. {@code new SplittableRandom(seed).split()} per thread.
 *
 * <p>Map of the package:
 *
 * <ul>
 *   <li>{@link io.zkv.bench.workload.KeyGenerator} and its implementations: uniform, sequential,
 *       Zipfian (YCSB/Gray et al.), scrambled Zipfian, skewed-latest, hotspot.
 *   <li>{@link io.zkv.bench.workload.KeyFormat}: {@code db_bench}'s fixed-size key layout.
 *   <li>{@link io.zkv.bench.workload.ValueGenerator}: {@code db_bench}'s compressible value bytes;
 *       {@link io.zkv.bench.workload.GeneralizedPareto}: MixGraph's value-size and scan-length law.
 *   <li>{@link io.zkv.bench.workload.OperationMix} with {@link
 *       io.zkv.bench.workload.DbBenchWorkloads}, {@link io.zkv.bench.workload.YcsbWorkload} and
 *       {@link io.zkv.bench.workload.MixGraphWorkload}.
 * </ul>
 *
 * <p>Where a definition comes from is stated on each class. Faithfulness notes use these words:
 * <em>as in X</em> means the same arithmetic as X; <em>deviation</em> marks a deliberate difference
 * and why.
 */
package io.zkv.bench.workload;
