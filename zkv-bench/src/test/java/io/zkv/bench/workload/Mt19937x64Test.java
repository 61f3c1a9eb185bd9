package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Mt19937x64Test {
  @Test
  void matchesTheCppStandardCheckValue() {
    // [rand.predef]: the 10000th invocation of a default-constructed mt19937_64 (seed 5489)
    // produces 9981545732273789042.
    Mt19937x64 mt = new Mt19937x64(5489);
    long first = mt.next();
    long x = first;
    for (int i = 1; i < 10_000; i++) {
      x = mt.next();
    }
    assertEquals(Long.parseUnsignedLong("9981545732273789042"), x);
    assertEquals(Long.parseUnsignedLong("14514284786278117030"), first);
  }

  @Test
  void firstOutputShortcutMatchesTheFullGenerator() {
    SplittableRandom rng = new SplittableRandom(1);
    long[] seeds = {0, 1, 2, 5489, 667, 64_000_000, -1, Long.MIN_VALUE};
    for (long s : seeds) {
      assertEquals(new Mt19937x64(s).next(), Mt19937x64.firstOutput(s), "seed " + s);
    }
    for (int i = 0; i < 200; i++) {
      long s = rng.nextLong();
      assertEquals(new Mt19937x64(s).next(), Mt19937x64.firstOutput(s), "seed " + s);
    }
  }
}
