package io.zkv.nativelib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The generic reader on buffers written byte by byte here (layout 99, one section). */
class BoundaryBufferTest {
  private static ByteBuffer counters(int layout, int version, long... values) {
    int offset = BoundaryBuffer.HEADER_SIZE + BoundaryBuffer.SECTION_SIZE;
    int length = offset + values.length * Long.BYTES;
    ByteBuffer b = ByteBuffer.allocateDirect(length).order(ByteOrder.nativeOrder());
    b.putInt(0, BoundaryBuffer.MAGIC).putShort(4, (short) layout).putShort(6, (short) version);
    b.putInt(8, length).putInt(12, 1);
    b.putInt(16, offset).putInt(20, values.length * Long.BYTES).putInt(24, 1).putInt(28, 0);
    for (int i = 0; i < values.length; i++) {
      b.putLong(offset + i * Long.BYTES, values[i]);
    }
    return b;
  }

  @Test
  void readsOneRecordOfCountersInOrder() {
    long[] want = {7, -1, Long.MAX_VALUE, 0, 42};
    BoundaryBuffer b = BoundaryBuffer.wrap(counters(99, 3, want), 99, 3, want.length * Long.BYTES);
    assertArrayEquals(want, b.getLongs(0, 0, want.length));
    assertArrayEquals(new long[] {7, -1}, b.getLongs(0, 0, 2));
  }

  @Test
  void refusesAnotherVersionOrRecordSize() {
    ByteBuffer raw = counters(99, 3, 1, 2, 3);
    IllegalStateException version =
        assertThrows(IllegalStateException.class, () -> BoundaryBuffer.wrap(raw, 99, 4, 24));
    assertTrue(version.getMessage().contains("different zkv builds"), version.getMessage());
    IllegalStateException size =
        assertThrows(IllegalStateException.class, () -> BoundaryBuffer.wrap(raw, 99, 3, 32));
    assertTrue(size.getMessage().contains("expected records of 32"), size.getMessage());
  }
}
