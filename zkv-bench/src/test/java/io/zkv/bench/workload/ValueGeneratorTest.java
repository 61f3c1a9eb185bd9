package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

class ValueGeneratorTest {
  @Test
  void piecesRepeatARandomPrintablePrefix() {
    for (double ratio : new double[] {0.005, 0.25, 0.5, 1.0}) {
      ValueGenerator g = new ValueGenerator(ratio, 4000, 1);
      byte[] b = g.buffer();
      int raw = Math.max(1, (int) (100 * ratio));
      assertTrue(b.length >= 1 << 20 && b.length % 100 == 0, "buffer " + b.length);
      int badChar = -1;
      int badPeriod = -1;
      for (int i = 0; i < b.length; i++) {
        if ((b[i] < ' ' || b[i] > '~') && badChar < 0) {
          badChar = i;
        }
        if (i % 100 >= raw && b[i - raw] != b[i] && badPeriod < 0) {
          badPeriod = i;
        }
      }
      assertEquals(-1, badChar, "first non-printable byte");
      assertEquals(-1, badPeriod, "first byte breaking the piece's period " + raw);
    }
    assertEquals(3_000_000, new ValueGenerator(0.5, 3_000_000, 1).buffer().length);
  }

  @Test
  void compressesToAboutTheRatio() {
    // Deflate stores the random printable characters at about log2(95)/8 = 0.82 of their size
    // and the repeats almost for free, so 4000-byte values shrink to between 0.8 x and 1 x ratio.
    for (double ratio : new double[] {0.1, 0.25, 0.5, 0.75, 1.0}) {
      ValueGenerator g = new ValueGenerator(ratio, 4000, 2);
      byte[] v = new byte[4000];
      byte[] out = new byte[8000];
      double sum = 0;
      int values = 40;
      for (int i = 0; i < values; i++) {
        g.next(v, 0, v.length);
        Deflater d = new Deflater();
        d.setInput(v);
        d.finish();
        sum += d.deflate(out) / 4000.0;
        d.end();
      }
      double fraction = sum / values;
      assertTrue(
          fraction >= 0.8 * ratio && fraction <= ratio + 0.02,
          "ratio " + ratio + " compressed to " + fraction);
    }
  }

  @Test
  void slicesAreConsecutiveAndWrap() {
    ValueGenerator g = new ValueGenerator(0.5, 100, 3);
    int size = g.buffer().length;
    assertEquals(1_048_600, size, "db_bench: 100-byte pieces until at least 1 MiB");
    int fit = size / 4000;
    for (int i = 0; i < fit; i++) {
      assertEquals(i * 4000, g.next(4000));
    }
    assertEquals(0, g.next(4000), "a value that would run past the end starts over at 0");
    assertEquals(4000, g.next(600));
  }

  @Test
  void deterministicForASeed() {
    byte[] a = new byte[1000];
    byte[] b = new byte[1000];
    new ValueGenerator(0.5, 1000, 9).next(a, 0, 1000);
    new ValueGenerator(0.5, 1000, 9).next(b, 0, 1000);
    assertArrayEquals(a, b);
  }
}
