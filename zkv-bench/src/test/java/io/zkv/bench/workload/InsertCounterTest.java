package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class InsertCounterTest {
  @Test
  void limitAdvancesOverAGapFreePrefixOnly() {
    InsertCounter c = new InsertCounter(100);
    long a = c.claim();
    long b = c.claim();
    long d = c.claim();
    assertEquals(100, a);
    c.acknowledge(d);
    c.acknowledge(b);
    assertEquals(100, c.limit());
    c.acknowledge(a);
    assertEquals(103, c.limit());
  }

  @Test
  void rejectsMisuse() {
    InsertCounter c = new InsertCounter(0);
    long a = c.claim();
    long b = c.claim();
    assertThrows(IllegalArgumentException.class, () -> c.acknowledge(5), "never claimed");
    c.acknowledge(a);
    assertThrows(IllegalArgumentException.class, () -> c.acknowledge(a), "twice");
    c.acknowledge(b);
    assertEquals(2, c.limit());
  }

  @Test
  void boundsTheOutstandingWindow() {
    InsertCounter w = new InsertCounter(0);
    for (int i = 0; i <= InsertCounter.WINDOW; i++) {
      w.claim();
    }
    assertThrows(IllegalStateException.class, () -> w.acknowledge(InsertCounter.WINDOW));
    w.acknowledge(InsertCounter.WINDOW - 1);
    assertEquals(0, w.limit());
  }

  @Test
  void concurrentClaimsAndAcknowledgementsAddUp() throws Exception {
    InsertCounter c = new InsertCounter(500);
    int threads = 4;
    int perThread = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    c.acknowledge(c.claim());
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertEquals(500 + threads * perThread, c.limit());
  }
}
