/**
 * The benchmark driver behind {@code zkv bench} and {@code zkv demo}: runs the workloads of {@link
 * io.zkv.bench.workload} against zkv ({@link io.zkv.ZkvDb} on an emulated zoned device) and against
 * RocksJava on its default Env, measures per-operation latency (HdrHistogram), throughput over time
 * and the zone file system's counters, and writes JSON, Markdown and PNG plots. Several
 * configurations are run in alternating order (A B, B A, ...) and repeated, and each figure is
 * given as a ratio to the first configuration. See {@code docs/benchmarks.md}.
 */
package io.zkv.bench.driver;
