package io.zkv.bench.workload;

/**
 * YCSB's 64-bit FNV hash of a {@code long}.
 *
 * <p>Source: YCSB {@code site.ycsb.Utils.fnvhash64}: FNV-1a (offset basis {@code
 * 0xCBF29CE484222325}, prime {@code 1099511628211}) over the eight bytes of the value, lowest byte
 * first, then {@code Math.abs}. YCSB uses it to scramble Zipfian ranks ({@code
 * ScrambledZipfianGenerator}) and, with {@code insertorder=hashed} (the default), to turn record
 * numbers into key names ({@code CoreWorkload.buildKeyName}). Deviation: {@code Math.abs} leaves
 * {@code Long.MIN_VALUE} negative, which in YCSB yields a negative key; here it maps to 0.
 */
public final class Fnv64 {
  private static final long OFFSET_BASIS = 0xCBF29CE484222325L;
  private static final long PRIME = 1099511628211L;

  private Fnv64() {}

  /** The non-negative YCSB FNV hash of {@code value}. */
  public static long ycsbHash(long value) {
    long h = OFFSET_BASIS;
    long v = value;
    for (int i = 0; i < 8; i++) {
      h ^= v & 0xff;
      h *= PRIME;
      v >>>= 8;
    }
    return Math.abs(h) & Long.MAX_VALUE;
  }
}
