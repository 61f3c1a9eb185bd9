package io.zkv.bench.driver;

import io.zkv.ZkvOptions;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.rocksdb.Options;

/**
 * What every configuration of one invocation runs: the workloads and their parameters.
 *
 * @param workloads workload names in run order (see {@link WorkloadCatalog})
 * @param threads client threads ({@code readwhilewriting} adds one writer, as db_bench)
 * @param keySize key bytes (db_bench {@code --key_size})
 * @param valueSize value bytes of db_bench workloads and MixGraph's value size parameter
 * @param ycsbFieldLength YCSB {@code fieldlength} (10 fields per record)
 * @param keys key space (db_bench {@code --num}, YCSB {@code recordcount})
 * @param ops operations per measured phase, or 0 for the default, {@code keys} (YCSB load: {@code
 *     keys}, always; readwhilewriting: the writer's writes)
 * @param durationSeconds time limit of read-only phases and of readwhilewriting's readers, 0 for
 *     none (phases that write ignore it, so that every configuration holds the same data after)
 * @param zipfian Zipfian (theta 0.99) instead of uniform keys for readrandom, overwrite,
 *     readwhilewriting and the mixed workloads
 * @param writeBufferSize RocksDB memtable size for every target (db_bench default 64 MiB)
 * @param bloomBitsPerKey bits per key of every target's SST Bloom filters, 0 for none (RocksDB's
 *     default, and db_bench's {@code --bloom_bits})
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
    double bloomBitsPerKey,
    long seed,
    double intervalSeconds,
    int repeat) {
  public BenchSettings {
    workloads = List.copyOf(workloads);
  }

  /** These settings with {@code n} client threads (a configuration's {@code threads} key). */
  public BenchSettings withThreads(int n) {
    return with(n, bloomBitsPerKey);
  }

  /**
   * These settings with {@code bits} Bloom filter bits per key (a configuration's {@code bloom}).
   */
  public BenchSettings withBloomBitsPerKey(double bits) {
    return with(threads, bits);
  }

  /**
   * These settings with {@code factor} times the key space and, where {@code --ops} is given, the
   * operations: a workload written {@code name*factor} (ZoneKV's fillrandom of k times the fill).
   */
  BenchSettings scaled(int factor) {
    return new BenchSettings(
        workloads,
        threads,
        keySize,
        valueSize,
        ycsbFieldLength,
        Math.multiplyExact(keys, (long) factor),
        Math.multiplyExact(ops, (long) factor),
        durationSeconds,
        zipfian,
        writeBufferSize,
        bloomBitsPerKey,
        seed,
        intervalSeconds,
        repeat);
  }

  private BenchSettings with(int n, double bits) {
    return new BenchSettings(
        workloads,
        n,
        keySize,
        valueSize,
        ycsbFieldLength,
        keys,
        ops,
        durationSeconds,
        zipfian,
        writeBufferSize,
        bits,
        seed,
        intervalSeconds,
        repeat);
  }

  /** The database options of a run on either store (zkv's or RocksDB's own Env). */
  ZkvOptions dbOptions(boolean sync, LsmShape lsm) {
    return dbOptions(sync, lsm, null);
  }

  /** Like {@link #dbOptions(boolean, LsmShape)}, then {@code more} on RocksDB's options. */
  ZkvOptions dbOptions(boolean sync, LsmShape lsm, Consumer<Options> more) {
    ZkvOptions.Builder b =
        ZkvOptions.builder()
            .syncWrites(sync)
            .writeBufferSize(writeBufferSize)
            .bloomFilterBitsPerKey(bloomBitsPerKey);
    return lsm.applyTo(b, more).build();
  }

  /** Bloom filter bits per key as a phrase for reports: "Bloom filters 10 bits/key". */
  static String bloomNote(double bitsPerKey) {
    return bitsPerKey > 0
        ? "Bloom filters " + JsonReport.num(bitsPerKey) + " bits/key"
        : "no Bloom filters";
  }

  /** Operations of a read-only phase: {@code --ops}, else unlimited with a duration, else keys. */
  long opsOfReadOnlyPhase() {
    if (ops > 0) {
      return ops;
    }
    return durationSeconds > 0 ? Long.MAX_VALUE : keys;
  }

  /** Operations of a phase that writes: {@code --ops}, else keys; never limited by time. */
  long opsOfWritingPhase() {
    return ops > 0 ? ops : keys;
  }

  /**
   * The limits as a phrase for reports, e.g. "writing phases 100,000 ops; read-only phases 3 s".
   */
  public String limits() {
    String writing =
        String.format(Locale.ROOT, "%,d ops%s", opsOfWritingPhase(), ops > 0 ? "" : " (= keys)");
    if (durationSeconds <= 0) {
      return writing + " per phase";
    }
    String d = String.format(Locale.ROOT, "%.3g s", durationSeconds);
    String reading =
        ops > 0 ? String.format(Locale.ROOT, "%,d ops or %s, whichever comes first", ops, d) : d;
    return "writing phases "
        + writing
        + "; read-only phases (and readwhilewriting's readers) "
        + reading;
  }
}
