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

  @Test
  void givesUpAfterTheTimeout() throws Exception {
    long t0 = System.nanoTime();
    assertFalse(Settling.awaitIdle(p -> p.equals("rocksdb.compaction-pending") ? 1 : 0, 50));
    assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
  }
}
