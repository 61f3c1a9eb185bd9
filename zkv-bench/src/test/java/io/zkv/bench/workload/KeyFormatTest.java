package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyFormatTest {
  private static final long N = 0x0102030405060708L;

  @Test
  void eightByteKeysAreBigEndian() {
    assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, new KeyFormat(8).encode(N));
  }

  @Test
  void longerKeysArePaddedWithAsciiZero() {
    byte[] k = new KeyFormat(16).encode(N);
    assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, Arrays.copyOf(k, 8));
    for (int i = 8; i < 16; i++) {
      assertEquals((byte) 0x30, k[i]);
    }
  }

  @Test
  void shorterKeysKeepTheLowBytes() {
    // db_bench fills min(key_size, 8) bytes from the low end of the number.
    assertArrayEquals(new byte[] {5, 6, 7, 8}, new KeyFormat(4).encode(N));
    assertEquals(0x05060708L, new KeyFormat(4).decode(new KeyFormat(4).encode(N), 0));
  }

  @Test
  void bytewiseOrderIsNumericOrder() {
    SplittableRandom rng = new SplittableRandom(1);
    for (int size : new int[] {8, 16, 48}) {
      KeyFormat f = new KeyFormat(size);
      for (int i = 0; i < 10_000; i++) {
        long a = rng.nextLong(Long.MAX_VALUE);
        long b = i % 2 == 0 ? rng.nextLong(Long.MAX_VALUE) : a + rng.nextInt(3) - 1;
        if (b < 0) {
          b = 0;
        }
        int bytewise = Integer.signum(Arrays.compareUnsigned(f.encode(a), f.encode(b)));
        assertEquals(Integer.signum(Long.compare(a, b)), bytewise, a + " vs " + b);
        assertEquals(a, f.decode(f.encode(a), 0));
      }
    }
  }

  @Test
  void bufferVariantsWriteTheSameBytesInPlace() {
    KeyFormat f = new KeyFormat(16);
    byte[] expected = f.encode(123456789L);
    byte[] dst = new byte[40];
    Arrays.fill(dst, (byte) 7);
    f.encode(123456789L, dst, 10);
    assertArrayEquals(expected, Arrays.copyOfRange(dst, 10, 26));
    assertEquals(7, dst[9]);
    assertEquals(7, dst[26]);
    ByteBuffer direct = ByteBuffer.allocateDirect(40);
    direct.position(3);
    f.encode(123456789L, direct);
    assertEquals(19, direct.position());
    byte[] got = new byte[16];
    direct.get(3, got);
    assertArrayEquals(expected, got);
    assertThrows(IndexOutOfBoundsException.class, () -> f.encode(1, new byte[20], 5));
    assertThrows(IndexOutOfBoundsException.class, () -> f.encode(1, ByteBuffer.allocate(15)));
  }
}
