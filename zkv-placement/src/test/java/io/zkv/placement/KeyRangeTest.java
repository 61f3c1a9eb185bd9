package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyRangeTest {

  static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static KeyRange r(String lo, String hi) {
    return KeyRange.of(k(lo), k(hi));
  }

  @Test
  void overlapIsInclusiveAtBothEnds() {
    assertTrue(r("b", "d").overlaps(r("d", "f")));
    assertTrue(r("d", "f").overlaps(r("b", "d")));
    assertTrue(r("a", "z").overlaps(r("m", "n")));
    assertFalse(r("b", "c").overlaps(r("d", "f")));
    assertFalse(r("d", "f").overlaps(r("b", "c")));
  }

  @Test
  void keysCompareAsUnsignedBytesLikeBytewiseComparator() {
    KeyRange low = KeyRange.of(new byte[] {0x10}, new byte[] {0x7f});
    KeyRange high = KeyRange.of(new byte[] {(byte) 0x80}, new byte[] {(byte) 0xff});
    assertFalse(low.overlaps(high));
    assertTrue(high.contains(new byte[] {(byte) 0x90}));
    assertFalse(low.contains(new byte[] {(byte) 0x90}));
    assertTrue(low.contains(new byte[] {0x10, 0x00})); // a longer key sorts after its prefix
    assertThrows(
        IllegalArgumentException.class,
        () -> KeyRange.of(new byte[] {(byte) 0xff}, new byte[] {0x01}));
  }

  @Test
  void spanCoversBoth() {
    assertEquals(r("a", "k"), r("c", "k").span(r("a", "b")));
    assertEquals(r("a", "z"), r("a", "c").span(r("x", "z")));
  }

  @Test
  void immutableAndValueEqual() {
    byte[] lo = k("a");
    KeyRange range = KeyRange.of(lo, k("c"));
    lo[0] = 'z';
    assertArrayEquals(k("a"), range.smallest());
    range.largest()[0] = 'q';
    assertArrayEquals(k("c"), range.largest());
    assertEquals(r("a", "c"), range);
    assertEquals(r("a", "c").hashCode(), range.hashCode());
    assertNotEquals(r("a", "d"), range);
    assertEquals("[0x61..0x63]", range.toString());
  }

  @Test
  void rejectsBadInput() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> r("d", "b"));
    assertTrue(e.getMessage().contains("sorts after"), e.getMessage());
    assertThrows(NullPointerException.class, () -> KeyRange.of(null, k("a")));
    assertThrows(NullPointerException.class, () -> KeyRange.of(k("a"), null));
  }
}
