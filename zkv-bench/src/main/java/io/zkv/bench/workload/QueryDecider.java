package io.zkv.bench.workload;

/**
 * MixGraph's choice of query type from an integer.
 *
 * <p>Source: {@code Benchmark::QueryDecider} in RocksDB {@code tools/db_bench_tool.cc} (identical
 * in WALTZ's copy): each ratio {@code r_i} of {@code sum} claims {@code ceil(1000 * r_i / sum)}
 * slots of a range of about 1000; the type of {@code x} is the first cumulative bound above {@code
 * |x| % range}. For 0.83/0.14/0.03 the bounds are 830, 970, 1000. The arithmetic is repeated
 * operation by operation so the bounds match db_bench's bit for bit.
 */
final class QueryDecider {
  private final int[] bounds;
  private final int range;

  QueryDecider(double... ratios) {
    double sum = 0;
    for (double r : ratios) {
      if (!(r >= 0)) {
        throw new IllegalArgumentException("ratios must be non-negative");
      }
      sum += r;
    }
    if (!(sum > 0)) {
      throw new IllegalArgumentException("ratios sum to zero");
    }
    bounds = new int[ratios.length];
    int acc = 0;
    for (int i = 0; i < ratios.length; i++) {
      acc += (int) Math.ceil(1000 * (ratios[i] / sum));
      bounds[i] = acc;
    }
    range = acc;
  }

  /** The query type (index into the ratios) for {@code x}. */
  int type(long x) {
    int pos = (int) (Math.abs(x) % range);
    for (int i = 0; i < bounds.length; i++) {
      if (pos < bounds[i]) {
        return i;
      }
    }
    return 0;
  }

  /**
   * Number of slots; {@code type} of a uniform integer in {@code [0, range)} has the ratios' law.
   */
  int range() {
    return range;
  }

  /** Cumulative slot bounds. */
  int bound(int i) {
    return bounds[i];
  }
}
