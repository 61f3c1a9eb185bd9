package io.zkv.bench.driver;

import java.util.List;
import java.util.Locale;

/**
 * What every configuration of one invocation runs: the workloads and their parameters.
 *
 * @param workloads workload names in run order (see {@link WorkloadCatalog})
 * @param threads client threads ({@code readwhilewriting} adds one writer, as db_bench)
 * @param keySize key bytes (db_bench {@code --key_size})
 * @param valueSize value bytes of db_bench workloads and MixGraph's value size parameter
 * @param ycsbFieldLength YCSB {@code fieldlength} (10 fields per record)
 * @param keys key space (db_bench {@code --num}, YCSB {@code recordcount})
 * @param ops operations per measured phase, or 0 for the workload's default (db_bench: {@code
 *     keys}; YCSB load: {@code keys}, always)
 * @param durationSeconds time limit per measured phase, 0 for none (YCSB load phases ignore it)
 * @param zipfian Zipfian (theta 0.99) instead of uniform keys for readrandom, overwrite,
 *     readwhilewriting and the mixed workloads
 * @param writeBufferSize RocksDB memtable size for every target (db_bench default 64 MiB)
 * @param seed seed of all random choices
 * @param intervalSeconds length of one throughput-timeline interval
 * @param repeat how many times each configuration runs
 */
public record BenchSettings(
    List<String> workloads,
    int threads,
    int keySize,
    int valueSize,
    int ycsbFieldLength,
    long keys,
    long ops,
    double durationSeconds,
    boolean zipfian,
    long writeBufferSize,
    long seed,
    double intervalSeconds,
    int repeat) {
  public BenchSettings {
    workloads = List.copyOf(workloads);
  }

  /** Operations of a measured phase whose db_bench/YCSB default is {@code keys}. */
  long opsOrDefault() {
    if (ops > 0) {
      return ops;
    }
    return durationSeconds > 0 ? Long.MAX_VALUE : keys;
  }

  /** The limits as a phrase for reports, e.g. "100,000 ops or 3 s per phase". */
  public String limits() {
    String o = ops > 0 ? String.format(Locale.ROOT, "%,d ops", ops) : null;
    String d = durationSeconds > 0 ? String.format(Locale.ROOT, "%.3g s", durationSeconds) : null;
    if (o != null && d != null) {
      return o + " or " + d + " per phase, whichever comes first";
    }
    if (d != null) {
      return d + " per phase";
    }
    return (o != null ? o : String.format(Locale.ROOT, "%,d ops (= keys)", keys)) + " per phase";
  }
}
