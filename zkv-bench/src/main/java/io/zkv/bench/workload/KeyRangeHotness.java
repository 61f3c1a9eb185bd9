package io.zkv.bench.workload;

/**
 * MixGraph's key-range ("prefix") model: the key space is cut into {@code keyrangeNum} equal ranges
 * whose access probability follows the two-term exponential {@code f(x) = a e^(bx) + c e^(dx)}, and
 * a key is picked inside the chosen range either uniformly or by a power law.
 *
 * <p>Source: {@code GenerateTwoTermExpKeys} in RocksDB {@code tools/db_bench_tool.cc} (the same in
 * WALTZ's copy at {@code 6fc1dff}), following Cao et al., FAST 2020:
 *
 * <ol>
 *   <li>for {@code x = keyrangeNum} down to 1: {@code p = a e^(bx) + c e^(dx)} (0 if below {@code
 *       1e-16}); the first positive {@code p} (the coldest range) fixes {@code amplify = floor(1/p)
 *       + 1}; range {@code x} gets {@code floor(amplify * p)} integer "access slots";
 *   <li>the ranges are shuffled with {@code std::mt19937_64} seeded by the total slot count, so hot
 *       ranges are not all at one end yet the layout depends only on the parameters;
 *   <li>per query, slot {@code iniRand % totalSlots} picks the range (binary search over the
 *       cumulative slots), and the offset inside it is {@code iniRand % rangeSize} (no key
 *       distribution) or, with {@code key_dist_a/b}, the power-law seed {@code ceil((u/a)^(1/b))}
 *       for {@code u = (iniRand % rangeSize) / rangeSize}, hashed to an offset by {@code
 *       mt19937_64(seed)() % rangeSize}.
 * </ol>
 *
 * <p>All of it is reproduced exactly, including that the range and the offset are both derived from
 * the same {@code iniRand}. The exponentials use {@link StrictMath} so the slot counts do not
 * depend on the JVM; glibc's {@code exp} could differ from it in the last bit, which only matters
 * if {@code amplify * p} lands within an ulp of an integer.
 */
final class KeyRangeHotness {
  private final long rangeSize;
  private final long[] start;
  private final long[] access;
  private final long[] rangeIndex;
  private final long totalSlots;

  KeyRangeHotness(long totalKeys, int keyrangeNum, double a, double b, double c, double d) {
    if (keyrangeNum < 1) {
      throw new IllegalArgumentException("keyrangeNum must be positive: " + keyrangeNum);
    }
    rangeSize = totalKeys / keyrangeNum;
    if (rangeSize < 1) {
      throw new IllegalArgumentException("fewer keys than key ranges");
    }
    start = new long[keyrangeNum];
    access = new long[keyrangeNum];
    rangeIndex = new long[keyrangeNum];
    long amplify = 0;
    long slots = 0;
    int unit = 0;
    for (int pfx = keyrangeNum; pfx >= 1; pfx--) {
      double p = a * StrictMath.exp(b * pfx) + c * StrictMath.exp(d * pfx);
      if (p < 1e-16) {
        p = 0;
      }
      if (amplify == 0 && p > 0) {
        amplify = (long) Math.floor(1 / p) + 1;
      }
      access[unit] = p <= 0 ? 0 : (long) Math.floor(amplify * p);
      rangeIndex[unit] = pfx;
      slots += access[unit];
      unit++;
    }
    totalSlots = slots;
    if (totalSlots <= 0) {
      throw new IllegalArgumentException("two-term exponential gives no range any access");
    }
    Mt19937x64 shuffle = new Mt19937x64(totalSlots);
    for (int i = 0; i < keyrangeNum; i++) {
      int pos = (int) Long.remainderUnsigned(shuffle.next(), keyrangeNum);
      swap(access, i, pos);
      swap(rangeIndex, i, pos);
    }
    long offset = 0;
    for (int i = 0; i < keyrangeNum; i++) {
      start[i] = offset;
      offset += access[i];
    }
  }

  private static void swap(long[] v, int i, int j) {
    long t = v[i];
    v[i] = v[j];
    v[j] = t;
  }

  /** {@code DistGetKeyID}: the key for {@code iniRand >= 0}. */
  long keyId(long iniRand, double keyDistA, double keyDistB) {
    int range = rangeOf(iniRand);
    long offset;
    if (keyDistA == 0 || keyDistB == 0) {
      offset = iniRand % rangeSize;
    } else {
      double u = (double) (iniRand % rangeSize) / rangeSize;
      long seed = MixGraphWorkload.powerCdfInversion(u, keyDistA, keyDistB);
      offset = Long.remainderUnsigned(Mt19937x64.firstOutput(seed), rangeSize);
    }
    return rangeSize * range + offset;
  }

  /** The position (after shuffling) of the range that {@code iniRand} selects. */
  int rangeOf(long iniRand) {
    long slot = iniRand % totalSlots;
    int lo = 0;
    int hi = start.length;
    while (lo + 1 < hi) {
      int mid = lo + (hi - lo) / 2;
      if (slot < start[mid]) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return lo;
  }

  long rangeSize() {
    return rangeSize;
  }

  int rangeCount() {
    return start.length;
  }

  long totalSlots() {
    return totalSlots;
  }

  /** Access slots of the range at position {@code i}; its probability is this / totalSlots. */
  long access(int i) {
    return access[i];
  }

  /** The {@code x} of {@code f(x)} that the range at position {@code i} was given (1 = hottest). */
  long exponentIndex(int i) {
    return rangeIndex[i];
  }
}
