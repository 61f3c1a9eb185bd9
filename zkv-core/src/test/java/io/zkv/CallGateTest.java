package io.zkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CallGateTest {
  private final CallGate gate = new CallGate();

  @Test
  void exclusiveWaitsForSharedHoldsAndKeepsNewOnesOut() throws Exception {
    gate.enterShared();
    AtomicBoolean exclusiveHeld = new AtomicBoolean();
    CountDownLatch released = new CountDownLatch(1);
    Thread closer =
        new Thread(
            () -> {
              gate.enterExclusive();
              exclusiveHeld.set(true);
              awaitQuietly(released);
              exclusiveHeld.set(false);
              gate.exitExclusive();
            });
    closer.start();
    // the closer is inside enterExclusive, polling for the shared hold to end (parked between
    // polls); a fixed sleep let a slow host check before it had even started
    waitUntil(() -> closer.getState() == Thread.State.TIMED_WAITING || exclusiveHeld.get());
    assertFalse(exclusiveHeld.get(), "exclusive taken while a call was in progress");
    gate.exitShared();
    waitUntil(exclusiveHeld::get);

    AtomicBoolean sawExclusive = new AtomicBoolean();
    Thread caller =
        new Thread(
            () -> {
              gate.enterShared();
              sawExclusive.set(exclusiveHeld.get());
              gate.exitShared();
            });
    caller.start();
    // the caller waits for the exclusive section to end (parked on its lock), or went in
    waitUntil(
        () ->
            caller.getState() == Thread.State.WAITING
                || caller.getState() == Thread.State.TERMINATED);
    assertTrue(caller.isAlive(), "a call went in during the exclusive section");
    released.countDown();
    caller.join();
    closer.join();
    assertFalse(sawExclusive.get());
  }

  @Test
  void sharedHoldsNestWhileExclusiveWaits() throws Exception {
    gate.enterShared();
    Thread closer =
        new Thread(
            () -> {
              gate.enterExclusive();
              gate.exitExclusive();
            });
    closer.start();
    // the closer waits for this thread's hold: inside enterExclusive, parked between its polls
    waitUntil(() -> closer.getState() == Thread.State.TIMED_WAITING);
    gate.enterShared(); // nested (an iterator's next calls hasNext): must not wait for the closer
    gate.exitShared();
    gate.exitShared();
    closer.join();
  }

  @Test
  void exclusiveHolderMayTakeSharedHolds() {
    gate.enterExclusive();
    gate.enterShared(); // close() releases iterators, which take shared holds
    gate.exitShared();
    gate.exitExclusive();
    gate.enterExclusive(); // and nothing is left held
    gate.exitExclusive();
  }

  @Test
  void manyThreadsCountedExactly() throws Exception {
    int threads = 8;
    int rounds = 20_000;
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger violations = new AtomicInteger();
    Thread[] t = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      t[i] =
          new Thread(
              () -> {
                for (int r = 0; r < rounds; r++) {
                  gate.enterShared();
                  inside.incrementAndGet();
                  inside.decrementAndGet();
                  gate.exitShared();
                }
              });
      t[i].start();
    }
    for (int r = 0; r < 200; r++) {
      gate.enterExclusive();
      if (inside.get() != 0) {
        violations.incrementAndGet();
      }
      gate.exitExclusive();
    }
    for (Thread x : t) {
      x.join();
    }
    assertEquals(0, violations.get());
  }

  private static void awaitQuietly(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits up to 60 s until {@code c} has held once (a thread's state may change again after). */
  private static void waitUntil(java.util.function.BooleanSupplier c) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!c.getAsBoolean()) {
      assertTrue(System.nanoTime() < end, "timed out");
      Thread.sleep(1);
    }
  }
}
