package io.zkv.bench.workload;

import java.util.SplittableRandom;

/**
 * A seeded pseudo-random bijection of {@code [0, n)} onto itself, computed without tables.
 *
 * <p>Construction: a balanced Feistel network (Luby and Rackoff, SIAM J. Comput. 17(2), 1988) on
 * the smallest even bit width {@code 2h} with {@code 4^h >= n}, six rounds, round function the
 * SplitMix64 finalizer (Steele, Lea and Flood, OOPSLA 2014) of {@code half ^ roundKey}; values that
 * land outside {@code [0, n)} are encrypted again ("cycle walking", Black and Rogaway, CT-RSA 2002)
 * until they fall inside, which keeps the map a bijection. Since {@code 4^h < 4n}, fewer than four
 * rounds of walking are needed on average.
 *
 * <p>Use: {@link ScrambledZipfianGenerator#permuted} maps Zipfian ranks to keys with it. WALTZ's
 * {@code db_bench} did the same with a shuffled array of all keys ({@code SharedState::key_seq}); a
 * Feistel permutation gives an equally arbitrary placement with O(1) memory, which matters at
 * WALTZ's 64M keys.
 */
public final class FeistelPermutation {
  private static final int ROUNDS = 6;

  private final long n;
  private final int halfBits;
  private final long halfMask;
  private final long[] roundKeys = new long[ROUNDS];

  /** A permutation of {@code [0, n)} selected by {@code seed}. */
  public FeistelPermutation(long n, long seed) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be positive: " + n);
    }
    this.n = n;
    int bits = 64 - Long.numberOfLeadingZeros(n - 1);
    this.halfBits = Math.max(1, (bits + 1) / 2);
    this.halfMask = (1L << halfBits) - 1;
    SplittableRandom keys = new SplittableRandom(seed);
    for (int i = 0; i < ROUNDS; i++) {
      roundKeys[i] = keys.nextLong();
    }
  }

  /** The image of {@code x}, which must be in {@code [0, n)}. */
  public long apply(long x) {
    if (x < 0 || x >= n) {
      throw new IllegalArgumentException("x out of [0, " + n + "): " + x);
    }
    long y = x;
    do {
      y = encrypt(y);
    } while (Long.compareUnsigned(y, n) >= 0);
    return y;
  }

  public long size() {
    return n;
  }

  private long encrypt(long x) {
    long left = x >>> halfBits;
    long right = x & halfMask;
    for (long key : roundKeys) {
      long t = left ^ (mix(right ^ key) & halfMask);
      left = right;
      right = t;
    }
    return (left << halfBits) | right;
  }

  /** SplitMix64 finalizer. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
