package io.zkv;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A key and its value, as returned by {@link ZkvIterator}. Equality compares contents. The arrays
 * are the caller's: {@link ZkvIterator} returns fresh copies.
 */
public record ZkvEntry(byte[] key, byte[] value) {
  @Override
  public boolean equals(Object o) {
    return o instanceof ZkvEntry e && Arrays.equals(key, e.key) && Arrays.equals(value, e.value);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "ZkvEntry[key=" + HexFormat.of().formatHex(key) + ", value=" + value.length + " bytes]";
  }
}
