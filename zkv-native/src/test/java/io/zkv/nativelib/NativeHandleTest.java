package io.zkv.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class NativeHandleTest {
  /** A handle whose "native call" can be held open to race with close. */
  static final class Probe extends NativeHandle {
    final AtomicInteger disposals = new AtomicInteger();
    final AtomicLong disposedHandle = new AtomicLong();

    Probe() {
      super("probe", 42);
    }

    long call(Runnable during) {
      long h = acquire();
      try {
        during.run();
        return h;
      } finally {
        release();
      }
    }

    @Override
    protected void dispose(long handle) {
      disposals.incrementAndGet();
      disposedHandle.set(handle);
    }
  }

  @Test
  void closeIsIdempotentAndDisposesOnce() {
    Probe p = new Probe();
    assertEquals(42, p.call(() -> {}));
    p.close();
    p.close();
    assertEquals(1, p.disposals.get());
    assertEquals(42, p.disposedHandle.get());
    assertTrue(p.isClosed());
  }

  @Test
  void useAfterCloseThrows() {
    Probe p = new Probe();
    p.close();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.call(() -> {}));
    assertEquals("probe is closed", e.getMessage());
  }

  @Test
  void closeWaitsForCallsInProgress() throws Exception {
    Probe p = new Probe();
    CountDownLatch inCall = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    Thread caller =
        new Thread(
            () ->
                p.call(
                    () -> {
                      inCall.countDown();
                      try {
                        letGo.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }));
    caller.start();
    inCall.await();
    Thread closer = new Thread(p::close);
    closer.start();
    // close parks between its looks at the call in progress, or ends (200 ms of sleep let a slow
    // host check before close had even started)
    long end = System.nanoTime() + 60_000_000_000L;
    while (closer.getState() != Thread.State.TIMED_WAITING
        && closer.getState() != Thread.State.TERMINATED
        && System.nanoTime() < end) {
      Thread.sleep(1);
    }
    assertTrue(closer.isAlive(), "close must wait for the call in progress");
    assertEquals(0, p.disposals.get());
    letGo.countDown();
    closer.join();
    caller.join();
    assertEquals(1, p.disposals.get());
    assertFalse(closer.isAlive());
  }

  /**
   * A lease taken while another thread closes: exactly one of them wins, every time. (Close used to
   * check for leases and then mark itself closing in two steps, so a lease could slip in between
   * and the handle was freed under its dependent object.)
   */
  @Test
  void aLeaseAndACloseNeverBothSucceed() throws Exception {
    for (int round = 0; round < 2000; round++) {
      Probe p = new Probe();
      CountDownLatch go = new CountDownLatch(1);
      AtomicInteger leased = new AtomicInteger();
      AtomicInteger closed = new AtomicInteger();
      Thread lessee =
          new Thread(
              () -> {
                await(go);
                try {
                  p.takeLease();
                  leased.incrementAndGet();
                } catch (IllegalStateException e) {
                  // closed first
                }
              });
      Thread closer =
          new Thread(
              () -> {
                await(go);
                try {
                  p.close();
                  closed.incrementAndGet();
                } catch (IllegalStateException e) {
                  // leased first
                }
              });
      lessee.start();
      closer.start();
      go.countDown();
      lessee.join();
      closer.join();
      assertEquals(1, leased.get() + closed.get(), "round " + round);
      assertEquals(closed.get(), p.disposals.get(), "round " + round);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void zeroHandleIsRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new NativeHandle("nothing", 0) {
              @Override
              protected void dispose(long handle) {}
            });
  }
}
