package io.zkv.placement;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An inclusive user-key range {@code [smallest, largest]} ordered the way RocksDB's default {@code
 * BytewiseComparator} orders keys (unsigned lexicographic bytes).
 *
 * <p>CAZA needs it to find the SSTs of the next level that overlap a new SST ({@link
 * #overlaps(KeyRange)}); a compaction's output range is not known before its first write, so a
 * caller may pass the union of the inputs' ranges instead ({@link #span(KeyRange)}), which every
 * output lies inside. Arrays are copied in and out, so a range is immutable.
 */
public final class KeyRange {
  private final byte[] smallest;
  private final byte[] largest;

  private KeyRange(byte[] smallest, byte[] largest) {
    this.smallest = smallest;
    this.largest = largest;
  }

  /**
   * The range from {@code smallest} to {@code largest}, both inclusive.
   *
   * @throws IllegalArgumentException if {@code smallest} sorts after {@code largest}
   */
  public static KeyRange of(byte[] smallest, byte[] largest) {
    Objects.requireNonNull(smallest, "smallest key");
    Objects.requireNonNull(largest, "largest key");
    if (Arrays.compareUnsigned(smallest, largest) > 0) {
      throw new IllegalArgumentException(
          "smallest key " + hex(smallest) + " sorts after largest key " + hex(largest));
    }
    return new KeyRange(smallest.clone(), largest.clone());
  }

  /** A copy of the smallest key. */
  public byte[] smallest() {
    return smallest.clone();
  }

  /** A copy of the largest key. */
  public byte[] largest() {
    return largest.clone();
  }

  /** True if some key lies in both ranges. */
  public boolean overlaps(KeyRange other) {
    return Arrays.compareUnsigned(smallest, other.largest) <= 0
        && Arrays.compareUnsigned(other.smallest, largest) <= 0;
  }

  /** True if {@code key} lies in this range. */
  public boolean contains(byte[] key) {
    return Arrays.compareUnsigned(smallest, key) <= 0 && Arrays.compareUnsigned(key, largest) <= 0;
  }

  /** The smallest range covering both (the union's hull). */
  public KeyRange span(KeyRange other) {
    byte[] lo = Arrays.compareUnsigned(smallest, other.smallest) <= 0 ? smallest : other.smallest;
    byte[] hi = Arrays.compareUnsigned(largest, other.largest) >= 0 ? largest : other.largest;
    return new KeyRange(lo, hi);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyRange k
        && Arrays.equals(smallest, k.smallest)
        && Arrays.equals(largest, k.largest);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(smallest) + Arrays.hashCode(largest);
  }

  @Override
  public String toString() {
    return "[" + hex(smallest) + ".." + hex(largest) + "]";
  }

  private static String hex(byte[] key) {
    return "0x" + HexFormat.of().formatHex(key);
  }
}
