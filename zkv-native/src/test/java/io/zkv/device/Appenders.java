package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

/** Runs one body on several threads released at once, as the concurrent-append tests need. */
final class Appenders {
  /** The work of thread {@code id}. */
  @FunctionalInterface
  interface Body {
    void run(int id) throws Exception;
  }

  private Appenders() {}

  /**
   * Starts {@code threads} threads named {@code appender-<id>}, releases them together, waits up to
   * {@code timeoutMillis} for each, and rethrows the first failure.
   */
  static void run(int threads, long timeoutMillis, Body body) throws InterruptedException {
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread th =
          new Thread(
              () -> {
                try {
                  go.await();
                  body.run(id);
                } catch (Throwable e) {
                  errors.add(e);
                }
              },
              "appender-" + t);
      th.start();
      all.add(th);
    }
    go.countDown();
    for (Thread th : all) {
      th.join(timeoutMillis);
      assertFalse(th.isAlive(), th::getName);
    }
    if (!errors.isEmpty()) {
      throw new AssertionError("an appender failed", errors.peek());
    }
  }
}
