package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * The RocksDB {@code db_bench} micro-benchmarks the notes list (§5 of {@code
 * wal-papers-waltz-zwal.md}), as operation mixes over key numbers {@code [0, num)}.
 *
 * <p>Sources: RocksDB {@code tools/db_bench_tool.cc} ({@code WriteSeq}, {@code WriteRandom}, {@code
 * ReadRandom}, {@code ReadWhileWriting}/{@code BGWriter}) and WALTZ's modified copy (SNU-ARC/WALTZ
 * {@code tools/db_bench_tool.cc} at {@code 6fc1dff}: {@code GenerateReqType}, {@code
 * WaltzMicroBench}, {@code SharedState::get_zipf}). Random keys are uniform in {@code [0, num)} as
 * {@code rand.Next() % FLAGS_num}; values have a fixed size ({@code --value_size}: WALTZ 4000, ZWAL
 * 3980, default 100), to be filled with {@link ValueGenerator}.
 */
public final class DbBenchWorkloads {
  private DbBenchWorkloads() {}

  /**
   * {@code fillseq}: WRITE keys {@code 0, 1, ..., num-1} in order (then wraps). db_bench gives
   * every thread its own sequence from 0; to reproduce that, make one mix per thread (sharing one
   * mix splits the sequence between threads instead). WALTZ's prefill is a single-threaded fillseq.
   */
  public static OperationMix fillSeq(long num, int valueSize) {
    return new KeyedMix(100, new SequentialKeyGenerator(num), valueSize);
  }

  /** {@code fillrandom}: WRITE uniformly random keys into a fresh database. */
  public static OperationMix fillRandom(long num, int valueSize) {
    return new KeyedMix(100, new UniformKeyGenerator(num), valueSize);
  }

  /**
   * {@code overwrite}: the same stream as {@link #fillRandom}; db_bench runs it on the existing
   * database (no {@code fresh_db}), so most writes replace a value.
   */
  public static OperationMix overwrite(long num, int valueSize) {
    return fillRandom(num, valueSize);
  }

  /** {@code readrandom}: READ uniformly random keys. */
  public static OperationMix readRandom(long num) {
    return new KeyedMix(0, new UniformKeyGenerator(num), 0);
  }

  /**
   * {@code readwhilewriting}: db_bench adds one thread to {@code --threads}; that thread ({@code
   * tid 0}) runs {@code BGWriter}, writing random keys until the readers finish (rate-limited only
   * if {@code --benchmark_write_rate_limit} is set), and the other threads run {@code readrandom}.
   */
  public static ReadWhileWriting readWhileWriting(long num, int valueSize) {
    return new ReadWhileWriting(readRandom(num), fillRandom(num, valueSize));
  }

  /**
   * WALTZ's micro-benchmark mix: each operation is a WRITE with probability {@code writePercent}%
   * and a READ otherwise, keys from {@code keys}. As WALTZ's {@code GenerateReqType}: draw {@code r
   * = uniform(100)}, write iff {@code r >= 100 - writePercent}. WALTZ ran write:read 100:0, 70:30
   * and 30:70 ("Write only", "Mixed 7:3", "Mixed 3:7"), with uniform keys or {@link #waltzZipfian}
   * keys, 4000-byte values and 4 threads. (db_bench's own {@code readrandomwriterandom} interleaves
   * reads and writes in fixed blocks of {@code readwritepercent} instead; that is not this mix.)
   */
  public static OperationMix writeReadMix(int writePercent, KeyGenerator keys, int valueSize) {
    if (writePercent < 0 || writePercent > 100) {
      throw new IllegalArgumentException("writePercent must be in [0, 100]: " + writePercent);
    }
    return new KeyedMix(writePercent, keys, valueSize);
  }

  /**
   * WALTZ's Zipfian keys ({@code --waltz_zipf_dist=0.99}): YCSB's Zipfian rank over {@code
   * keyRange} keys, placed through a fixed random permutation ({@link
   * ScrambledZipfianGenerator#permuted}). Deviations: WALTZ shuffled an array of the keys {@code
   * 1..keyRange} with C {@code rand()} and drew {@code u} with 31-bit resolution; the permutation
   * and its seed here are ours, the key range is {@code [0, keyRange)}.
   */
  public static KeyGenerator waltzZipfian(long keyRange, long permutationSeed) {
    return ScrambledZipfianGenerator.permuted(
        keyRange, ZipfianGenerator.YCSB_ZIPFIAN_CONSTANT, permutationSeed);
  }

  /** The two roles of {@code readwhilewriting}: many reader threads and one writer thread. */
  public record ReadWhileWriting(OperationMix readers, OperationMix writer) {}

  /** Reads or blind writes of keys from one generator. */
  static final class KeyedMix implements OperationMix {
    private final int writePercent;
    private final KeyGenerator keys;
    private final int valueSize;

    KeyedMix(int writePercent, KeyGenerator keys, int valueSize) {
      if (valueSize < 0) {
        throw new IllegalArgumentException("valueSize must be non-negative: " + valueSize);
      }
      this.writePercent = writePercent;
      this.keys = keys;
      this.valueSize = valueSize;
    }

    @Override
    public void next(RandomGenerator rng, Operation op) {
      boolean write;
      if (writePercent >= 100) {
        write = true;
      } else if (writePercent <= 0) {
        write = false;
      } else {
        write = rng.nextInt(100) >= 100 - writePercent;
      }
      long key = keys.next(rng);
      if (write) {
        op.set(OpType.WRITE, key, key, valueSize, 0);
      } else {
        op.set(OpType.READ, key, key, 0, 0);
      }
    }
  }
}
