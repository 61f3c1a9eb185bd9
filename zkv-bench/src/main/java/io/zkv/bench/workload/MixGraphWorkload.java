package io.zkv.bench.workload;

import java.util.random.RandomGenerator;

/**
 * RocksDB {@code db_bench}'s {@code mixgraph} benchmark: Get/Put/Seek queries whose keys, value
 * sizes and scan lengths follow the models of Cao et al., "Characterizing, Modeling, and
 * Benchmarking RocksDB Key-Value Workloads at Facebook", FAST 2020.
 *
 * <p>Source: {@code Benchmark::MixGraph} in WALTZ's {@code tools/db_bench_tool.cc} (SNU-ARC/WALTZ
 * at {@code 6fc1dff}, a modified copy of RocksDB's tool) and WALTZ's {@code script/bench.sh}. Per
 * query:
 *
 * <ol>
 *   <li>{@code iniRand} uniform in {@code [0, num)} ({@code GetRandomKey}); {@code u = iniRand /
 *       num}.
 *   <li>Key: with no {@code key_dist} and no key ranges, {@code iniRand} itself; with key ranges
 *       ({@code keyrange_dist_a..d} not all 0), {@link KeyRangeHotness}; with only {@code
 *       key_dist_a/b}, the power-law seed {@code ceil((u/a)^(1/b))} ({@code PowerCdfInversion})
 *       hashed to {@code mt19937_64(seed)() % num}.
 *   <li>Type: {@link QueryDecider} over {@code iniRand} with the get/put/seek ratios.
 *   <li>Put value size: {@code ParetoCdfInversion(u, value_theta, value_k, value_sigma)}; below 0
 *       it becomes 10, above {@code min(mix_max_value_size, 1 MiB)} it is taken modulo that.
 *   <li>Seek: {@code Seek(key)}, then {@code ParetoCdfInversion(u, iter_theta, iter_k, iter_sigma)
 *       % mix_max_scan_len} {@code Next} calls (none if that is negative).
 * </ol>
 *
 * <p><b>Coupling.</b> In db_bench one draw, {@code iniRand}, decides the key, the query type, the
 * value size and the scan length. With uniform keys (AllRand) the key therefore fixes the type: key
 * {@code k} is only ever read if {@code k % 1000 < 830}, only written if {@code 830 <= k % 1000 <
 * 970}, only scanned otherwise, and a key's value size never changes. {@link Coupling#DB_BENCH}
 * (the default) reproduces this, as WALTZ measured it; {@link Coupling#INDEPENDENT} draws type,
 * value size and scan length independently of the key.
 *
 * <p><b>The four WALTZ variants</b> (notes §5.1, from {@code bench.sh}: test types 6-9; all with
 * {@code --num=64M --reads=20M/4 --threads=4}, get/put/seek 0.83/0.14/0.03, {@code iter_k=2.517
 * iter_sigma=14.236}, {@code value_theta=value size, value_sigma=0}, so every Put writes exactly
 * the value size, 4000 bytes; {@code mix_max_scan_len} left at its default 10000; sine rate
 * limiting off. WALTZ's {@code --waltz_scan_max=100} only bounds seeks in its own micro-benchmark,
 * which never issues any, so it does not apply here):
 *
 * <ul>
 *   <li>{@link Variant#ALL_RAND}: {@code keyrange_num=1}, no key or range distribution: keys
 *       uniform over {@code [0, num)}.
 *   <li>{@link Variant#ALL_DIST}: {@code key_dist_a=0.002312 key_dist_b=0.3467}, {@code
 *       keyrange_num=1}: power-law key hotness over the whole key space (seed 1, the hottest, gets
 *       {@code a} = 0.23% of queries), hot keys hashed all over it.
 *   <li>{@link Variant#PRE_RAND}: {@code keyrange_dist_a=14.18 b=-2.917 c=0.0164 d=-0.08082
 *       keyrange_num=30}: 30 key ranges with two-term-exponential hotness (the hottest gets about
 *       81% of queries: 538 of 667 slots), keys uniform inside a range.
 *   <li>{@link Variant#PRE_DIST}: both: hot ranges, and power-law hot keys inside each range.
 * </ul>
 *
 * <p>The parameter values are those of the RocksDB example command for MixGraph (RocksDB PR #5953,
 * pulled by Zhichao Cao, the paper's first author). The expansion of the variant names ("All" = no
 * key ranges, "Pre" = prefix/key-range modeling, "Rand" = uniform keys, "Dist" = power-law key
 * distribution) is our reading of the flags, not a sentence from the WALTZ paper. The RocksDB
 * example itself uses get/put/seek 0.85/0.14/0.01 and Pareto value sizes ({@code value_k=0.2615
 * value_sigma=25.45}, mean about 35 bytes); {@link Params#rocksDbExample} gives that. Whether the
 * FAST'20 paper's own appendix uses 0.83/0.14/0.03 or 0.85/0.14/0.01 we have not checked.
 *
 * <p><b>Differences from upstream RocksDB's current MixGraph</b> (we follow WALTZ's copy): upstream
 * tests {@code use_random_modeling} first, so with key ranges but no {@code key_dist} (PreRand) it
 * ignores the ranges and behaves like AllRand; upstream raises value sizes below 10 to 10 (WALTZ:
 * only negative ones); upstream reduces the AllDist key modulo {@code num} as a signed number.
 *
 * <p>Stateless apart from construction, hence thread-safe.
 */
public final class MixGraphWorkload implements OperationMix {
  /** The four MixGraph variants of WALTZ's evaluation. */
  public enum Variant {
    ALL_RAND,
    ALL_DIST,
    PRE_RAND,
    PRE_DIST
  }

  /** Whether type, value size and scan length share the key's random draw (see class doc). */
  public enum Coupling {
    DB_BENCH,
    INDEPENDENT
  }

  /** Index of each query type in the ratios. */
  static final int GET = 0;

  static final int PUT = 1;
  static final int SEEK = 2;

  /** db_bench's hard cap on MixGraph values ({@code default_value_max}). */
  static final long DEFAULT_VALUE_MAX = 1024 * 1024;

  /**
   * The db_bench MixGraph flags.
   *
   * @param num {@code --num}: the key space {@code [0, num)}
   * @param keyrangeNum {@code --keyrange_num}
   * @param keyrangeDistA {@code --keyrange_dist_a} (all four 0 = no key-range modeling)
   * @param keyrangeDistB {@code --keyrange_dist_b}
   * @param keyrangeDistC {@code --keyrange_dist_c}
   * @param keyrangeDistD {@code --keyrange_dist_d}
   * @param keyDistA {@code --key_dist_a} (0 = uniform keys)
   * @param keyDistB {@code --key_dist_b} (0 = uniform keys)
   * @param valueTheta {@code --value_theta}
   * @param valueK {@code --value_k}
   * @param valueSigma {@code --value_sigma}
   * @param mixMaxValueSize {@code --mix_max_value_size} (default 1024)
   * @param iterTheta {@code --iter_theta}
   * @param iterK {@code --iter_k}
   * @param iterSigma {@code --iter_sigma}
   * @param mixMaxScanLen {@code --mix_max_scan_len} (default 10000)
   * @param getRatio {@code --mix_get_ratio}
   * @param putRatio {@code --mix_put_ratio}
   * @param seekRatio {@code --mix_seek_ratio}
   */
  public record Params(
      long num,
      int keyrangeNum,
      double keyrangeDistA,
      double keyrangeDistB,
      double keyrangeDistC,
      double keyrangeDistD,
      double keyDistA,
      double keyDistB,
      double valueTheta,
      double valueK,
      double valueSigma,
      long mixMaxValueSize,
      double iterTheta,
      double iterK,
      double iterSigma,
      long mixMaxScanLen,
      double getRatio,
      double putRatio,
      double seekRatio) {
    /** {@code key_dist_a}, {@code key_dist_b} of the RocksDB example (AllDist, PreDist). */
    public static final double KEY_DIST_A = 0.002312;

    public static final double KEY_DIST_B = 0.3467;

    /**
     * {@code keyrange_dist_a..d}, {@code keyrange_num} of the RocksDB example (PreRand, PreDist).
     */
    public static final double KEYRANGE_DIST_A = 14.18;

    public static final double KEYRANGE_DIST_B = -2.917;
    public static final double KEYRANGE_DIST_C = 0.0164;
    public static final double KEYRANGE_DIST_D = -0.08082;
    public static final int KEYRANGE_NUM = 30;

    /** {@code iter_k}, {@code iter_sigma} of the RocksDB example and WALTZ. */
    public static final double ITER_K = 2.517;

    public static final double ITER_SIGMA = 14.236;

    public Params {
      if (num < 1 || keyrangeNum < 1 || mixMaxValueSize < 1 || mixMaxScanLen < 1) {
        throw new IllegalArgumentException("num, keyrangeNum and maxima must be positive");
      }
    }

    /** WALTZ's settings for a variant ({@code script/bench.sh}, test types 6-9). */
    public static Params waltz(Variant variant, long num, int valueSize) {
      boolean dist = variant == Variant.ALL_DIST || variant == Variant.PRE_DIST;
      boolean prefix = variant == Variant.PRE_RAND || variant == Variant.PRE_DIST;
      return new Params(
          num,
          prefix ? KEYRANGE_NUM : 1,
          prefix ? KEYRANGE_DIST_A : 0,
          prefix ? KEYRANGE_DIST_B : 0,
          prefix ? KEYRANGE_DIST_C : 0,
          prefix ? KEYRANGE_DIST_D : 0,
          dist ? KEY_DIST_A : 0,
          dist ? KEY_DIST_B : 0,
          valueSize,
          0,
          0,
          valueSize,
          0,
          ITER_K,
          ITER_SIGMA,
          10000,
          0.83,
          0.14,
          0.03);
    }

    /**
     * The RocksDB example command of PR #5953 (PreDist keys, Pareto values with {@code
     * value_k=0.2615 value_sigma=25.45}, get/put/seek 0.85/0.14/0.01), with db_bench's defaults for
     * what it leaves unset ({@code value_theta=0}, {@code iter_theta=0}, {@code
     * mix_max_value_size=1024}, {@code mix_max_scan_len=10000}).
     */
    public static Params rocksDbExample(long num) {
      return new Params(
          num,
          KEYRANGE_NUM,
          KEYRANGE_DIST_A,
          KEYRANGE_DIST_B,
          KEYRANGE_DIST_C,
          KEYRANGE_DIST_D,
          KEY_DIST_A,
          KEY_DIST_B,
          0,
          0.2615,
          25.45,
          1024,
          0,
          ITER_K,
          ITER_SIGMA,
          10000,
          0.85,
          0.14,
          0.01);
    }

    /** db_bench's {@code use_prefix_modeling}. */
    public boolean prefixModeling() {
      return keyrangeDistA != 0 || keyrangeDistB != 0 || keyrangeDistC != 0 || keyrangeDistD != 0;
    }

    /** db_bench's {@code use_random_modeling}. */
    public boolean randomModeling() {
      return keyDistA == 0 || keyDistB == 0;
    }
  }

  private final Params params;
  private final Coupling coupling;
  private final QueryDecider decider;
  private final KeyRangeHotness ranges;
  private final GeneralizedPareto valueSizes;
  private final GeneralizedPareto scanLengths;
  private final long valueMax;

  public MixGraphWorkload(Params params) {
    this(params, Coupling.DB_BENCH);
  }

  public MixGraphWorkload(Params params, Coupling coupling) {
    this.params = params;
    this.coupling = coupling;
    this.decider = new QueryDecider(params.getRatio(), params.putRatio(), params.seekRatio());
    this.ranges =
        params.prefixModeling()
            ? new KeyRangeHotness(
                params.num(),
                params.keyrangeNum(),
                params.keyrangeDistA(),
                params.keyrangeDistB(),
                params.keyrangeDistC(),
                params.keyrangeDistD())
            : null;
    this.valueSizes =
        new GeneralizedPareto(params.valueTheta(), params.valueK(), params.valueSigma());
    this.scanLengths =
        new GeneralizedPareto(params.iterTheta(), params.iterK(), params.iterSigma());
    this.valueMax = Math.min(DEFAULT_VALUE_MAX, params.mixMaxValueSize());
  }

  /** WALTZ's variant with db_bench coupling. */
  public static MixGraphWorkload waltz(Variant variant, long num, int valueSize) {
    return new MixGraphWorkload(Params.waltz(variant, num, valueSize));
  }

  public Params params() {
    return params;
  }

  @Override
  public void next(RandomGenerator rng, Operation op) {
    long num = params.num();
    long iniRand = rng.nextLong(num);
    double u = (double) iniRand / num;
    long key = keyId(iniRand, u);
    int type;
    double uSize;
    if (coupling == Coupling.DB_BENCH) {
      type = decider.type(iniRand);
      uSize = u;
    } else {
      type = decider.type(rng.nextInt(decider.range()));
      uSize = 1 - rng.nextDouble(); // (0, 1]: avoids the u = 0 pole
    }
    switch (type) {
      case PUT:
        op.set(OpType.WRITE, key, key, valueSize(uSize), 0);
        break;
      case SEEK:
        op.set(OpType.SCAN, key, key, 0, scanLength(uSize));
        break;
      case GET:
      default:
        op.set(OpType.READ, key, key, 0, 0);
        break;
    }
  }

  /** The key for a draw, as the key branch of db_bench's MixGraph loop (WALTZ's precedence). */
  long keyId(long iniRand, double u) {
    if (params.randomModeling() && !params.prefixModeling()) {
      return iniRand;
    }
    if (params.prefixModeling()) {
      return ranges.keyId(iniRand, params.keyDistA(), params.keyDistB());
    }
    long seed = powerCdfInversion(u, params.keyDistA(), params.keyDistB());
    return Long.remainderUnsigned(Mt19937x64.firstOutput(seed), params.num());
  }

  /** The Put value size for {@code u}, clamped and wrapped as db_bench (WALTZ copy). */
  int valueSize(double u) {
    long size = valueSizes.dbBenchSample(u);
    if (size < 0) {
      size = 10;
    } else if (size > valueMax) {
      size = size % valueMax;
    }
    return (int) size;
  }

  /** The number of {@code Next} calls after a Seek for {@code u}. */
  int scanLength(double u) {
    long len = scanLengths.dbBenchSample(u) % params.mixMaxScanLen();
    return (int) Math.max(0, len);
  }

  /** {@code PowerCdfInversion(u, a, b) = (int64_t) ceil((u / a)^(1 / b))}. */
  static long powerCdfInversion(double u, double a, double b) {
    return GeneralizedPareto.toInt64(Math.ceil(Math.pow(u / a, 1 / b)));
  }

  /** The key-range model, or null without key-range modeling. */
  KeyRangeHotness ranges() {
    return ranges;
  }

  QueryDecider decider() {
    return decider;
  }

  GeneralizedPareto valueSizeDistribution() {
    return valueSizes;
  }

  GeneralizedPareto scanLengthDistribution() {
    return scanLengths;
  }

  long valueMax() {
    return valueMax;
  }
}
