package io.zkv.bench.workload;

/**
 * The 64-bit Mersenne Twister MT19937-64, as C++ {@code std::mt19937_64}.
 *
 * <p>Source: Nishimura, "Tables of 64-bit Mersenne Twisters", ACM TOMACS 10(4), 2000, and the
 * parameters fixed by the C++ standard ([rand.predef]: w=64, n=312, m=156, r=31,
 * a=0xB5026F5AA96619E9, u=29, d=0x5555555555555555, s=17, b=0x71D67FFFEDA60000, t=37,
 * c=0xFFF7EEE000000000, l=43, f=6364136223846793005; the 10000th output for the default seed 5489
 * is 9981545732273789042).
 *
 * <p>Why it is here: {@code db_bench}'s {@code Random64} wraps {@code std::mt19937_64}, and
 * MixGraph uses it in two places that define the workload rather than just its randomness: the
 * shuffle of key ranges (seeded with the total range weight) and the map from a power-law "key
 * seed" to a key offset ({@code Random64(key_seed).Next() % size}). Reproducing both exactly makes
 * our MixGraph hot keys and hot ranges the same key numbers as {@code db_bench}'s. {@link
 * #firstOutput} gives the first output for a seed without building the whole state (only the first
 * 157 state words feed it).
 */
final class Mt19937x64 {
  private static final int NN = 312;
  private static final int MM = 156;
  private static final long MATRIX_A = 0xB5026F5AA96619E9L;
  private static final long UPPER = 0xFFFFFFFF80000000L;
  private static final long LOWER = 0x7FFFFFFFL;
  private static final long INIT_MULT = 6364136223846793005L;

  private final long[] mt = new long[NN];
  private int index;

  Mt19937x64(long seed) {
    mt[0] = seed;
    for (int i = 1; i < NN; i++) {
      mt[i] = INIT_MULT * (mt[i - 1] ^ (mt[i - 1] >>> 62)) + i;
    }
    index = NN;
  }

  long next() {
    if (index >= NN) {
      twist();
    }
    return temper(mt[index++]);
  }

  /** {@code std::mt19937_64(seed)()}: the first output for {@code seed}. */
  static long firstOutput(long seed) {
    long s0 = seed;
    long s1 = INIT_MULT * (s0 ^ (s0 >>> 62)) + 1;
    long s = s1;
    for (int i = 2; i <= MM; i++) {
      s = INIT_MULT * (s ^ (s >>> 62)) + i;
    }
    long x = (s0 & UPPER) | (s1 & LOWER);
    long y = s ^ (x >>> 1) ^ ((x & 1) != 0 ? MATRIX_A : 0);
    return temper(y);
  }

  private void twist() {
    for (int i = 0; i < NN; i++) {
      long x = (mt[i] & UPPER) | (mt[(i + 1) % NN] & LOWER);
      long xa = x >>> 1;
      if ((x & 1) != 0) {
        xa ^= MATRIX_A;
      }
      mt[i] = mt[(i + MM) % NN] ^ xa;
    }
    index = 0;
  }

  private static long temper(long x) {
    x ^= (x >>> 29) & 0x5555555555555555L;
    x ^= (x << 17) & 0x71D67FFFEDA60000L;
    x ^= (x << 37) & 0xFFF7EEE000000000L;
    x ^= x >>> 43;
    return x;
  }
}
