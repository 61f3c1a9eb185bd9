package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SkewedLatestGeneratorTest {
  private static final int DRAWS = 300_000;

  @Test
  void favoursTheMostRecentRecords() {
    int records = 10_000;
    InsertCounter counter = new InsertCounter(records);
    SkewedLatestGenerator g = new SkewedLatestGenerator(counter);
    ZipfianGenerator law = new ZipfianGenerator(records);
    long latest = 0;
    long second = 0;
    long recent10 = 0;
    long oldHalf = 0;
    SplittableRandom rng = new SplittableRandom(1);
    for (int i = 0; i < DRAWS; i++) {
      long k = g.next(rng);
      assertTrue(k >= 0 && k < records, "record " + k);
      latest += k == records - 1 ? 1 : 0;
      second += k == records - 2 ? 1 : 0;
      recent10 += k >= records - 10 ? 1 : 0;
      oldHalf += k < records / 2 ? 1 : 0;
    }
    Stats.assertFrequency("latest record", latest, DRAWS, law.cdf(0), 4, 0);
    Stats.assertFrequency("second latest", second, DRAWS, law.cdf(1) - law.cdf(0), 4, 0);
    Stats.assertFrequency("10 latest", recent10, DRAWS, law.cdf(9), 4, 0);
    Stats.assertFrequency("older half", oldHalf, DRAWS, 1 - law.cdf(records / 2 - 1), 4, 0);
    assertTrue(recent10 > 3 * oldHalf, "the 10 newest records must outweigh the older 5000");
  }

  @Test
  void newInsertsBecomeHotImmediately() {
    int records = 10_000;
    InsertCounter counter = new InsertCounter(records);
    SkewedLatestGenerator g = new SkewedLatestGenerator(counter);
    SplittableRandom rng = new SplittableRandom(2);
    g.next(rng); // builds the generator for 10000 records
    for (int i = 0; i < 100; i++) {
      counter.acknowledge(counter.claim());
    }
    long newest = 0;
    long oldNewest = 0;
    for (int i = 0; i < DRAWS; i++) {
      long k = g.next(rng);
      assertTrue(k < records + 100);
      newest += k == records + 99 ? 1 : 0;
      oldNewest += k == records - 1 ? 1 : 0;
    }
    ZipfianGenerator law = new ZipfianGenerator(records + 100);
    Stats.assertFrequency("newest record", newest, DRAWS, law.cdf(0), 4, 0);
    // Record 9999 is now rank 100.
    Stats.assertFrequency("former newest", oldNewest, DRAWS, law.cdf(100) - law.cdf(99), 4, 0);
  }

  @Test
  void unacknowledgedInsertsAreInvisible() {
    InsertCounter counter = new InsertCounter(1000);
    SkewedLatestGenerator g = new SkewedLatestGenerator(counter);
    long first = counter.claim();
    for (int i = 0; i < 4; i++) {
      counter.acknowledge(counter.claim()); // records 1001..1004 done, 1000 still pending
    }
    assertEquals(1000, first);
    assertEquals(1000, counter.limit());
    SplittableRandom rng = new SplittableRandom(3);
    for (int i = 0; i < 50_000; i++) {
      assertTrue(g.next(rng) < 1000);
    }
    counter.acknowledge(first);
    assertEquals(1005, counter.limit());
  }

  @Test
  void needsAtLeastOneRecord() {
    SkewedLatestGenerator g = new SkewedLatestGenerator(new InsertCounter(0));
    assertThrows(IllegalStateException.class, () -> g.next(new SplittableRandom(4)));
  }
}
