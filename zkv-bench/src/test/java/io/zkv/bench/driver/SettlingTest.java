package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SettlingTest {
  @Test
  void waitsUntilNoFlushOrCompactionIsPendingOrRunning() throws Exception {
    AtomicInteger polls = new AtomicInteger();
    // Compaction "running" for the first 5 polls of that property.
    boolean settled =
        Settling.awaitIdle(
            p ->
                p.equals("rocksdb.num-running-compactions") && polls.incrementAndGet() <= 5 ? 1 : 0,
            10_000);
    assertTrue(settled);
    assertEquals(6, polls.get());
  }

  @Test
  void aLongPhaseGetsAsLongToSettle() {
    assertEquals(Settling.TIMEOUT_MILLIS, Settling.timeoutAfter(3.5));
    assertEquals(600_000, Settling.timeoutAfter(600));
  }

  /**
   * Never idle: it gives up once the timeout has passed, and not before. How much later is the
   * host's; what bounds it on any host is the polls, each followed by a sleep of at least 10 ms: at
   * most 50 / 10 + 1 of them fit before a 50 ms timeout (a timeout taken as seconds would poll
   * thousands of times).
   */
  @Test
  void givesUpAfterTheTimeout() throws Exception {
    AtomicInteger polls = new AtomicInteger();
    long t0 = System.nanoTime();
    assertFalse(
        Settling.awaitIdle(
            p -> {
              if (!p.equals("rocksdb.compaction-pending")) {
                return 0;
              }
              polls.incrementAndGet();
              return 1;
            },
            50));
    long elapsed = System.nanoTime() - t0;
    assertTrue(elapsed >= 50_000_000L, "gave up after " + elapsed + " ns");
    assertTrue(polls.get() >= 1 && polls.get() <= 50 / 10 + 1, polls.get() + " polls");
  }
}
