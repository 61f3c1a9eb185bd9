package io.zkv.nativelib;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Base of every Java object that owns a native resource. {@link #close()} is idempotent, waits for
 * calls in progress, frees the resource once and zeroes the handle; any use after close throws
 * {@link IllegalStateException} instead of touching freed memory.
 *
 * <p>Subclasses bracket each native call with {@link #acquire()} and {@link #release()}: one atomic
 * operation each, no allocation.
 *
 * <p>One atomic word holds the whole state (calls in progress, leases, closing), so that close's
 * "no lease is held" check and its "closing" mark are one step: a lease can never be taken on a
 * handle that close has decided to free.
 */
public abstract class NativeHandle implements AutoCloseable {
  private static final long USER = 1L; // bits 0-30: calls in progress
  private static final long LEASE = 1L << 31; // bits 31-61: leases held by dependent objects
  private static final long COUNT_MASK = LEASE - 1;
  private static final long CLOSING = 1L << 62;

  private final String what;
  private final AtomicLong state = new AtomicLong();
  private volatile long handle;

  protected NativeHandle(String what, long handle) {
    if (handle == 0) {
      throw new IllegalArgumentException("null native handle for " + what);
    }
    this.what = what;
    this.handle = handle;
  }

  /** Returns the live handle and marks a call in progress; throws if closed. */
  protected final long acquire() {
    add(USER);
    return handle;
  }

  protected final void release() {
    state.addAndGet(-USER);
  }

  /**
   * Keeps the handle alive for a dependent native object (e.g. a file system mounted on a device):
   * {@link #close()} refuses while a lease is held. Returns the handle; end with {@link #endLease}.
   */
  protected final long takeLease() {
    add(LEASE);
    return handle;
  }

  protected final void endLease() {
    state.addAndGet(-LEASE);
  }

  private void add(long unit) {
    for (; ; ) {
      long s = state.get();
      if ((s & CLOSING) != 0) {
        throw new IllegalStateException(what + " is closed");
      }
      if (state.compareAndSet(s, s + unit)) {
        return;
      }
    }
  }

  public final boolean isClosed() {
    return (state.get() & CLOSING) != 0;
  }

  @Override
  public final void close() {
    for (; ; ) {
      long s = state.get();
      if ((s & CLOSING) != 0) {
        return;
      }
      long leases = (s / LEASE) & COUNT_MASK;
      if (leases > 0) {
        throw new IllegalStateException(
            what + " is still used by " + leases + " dependent object(s); close those first");
      }
      if (state.compareAndSet(s, s | CLOSING)) {
        break;
      }
    }
    beforeDispose();
    awaitCallsInProgress();
    long h = handle;
    handle = 0;
    dispose(h);
  }

  /**
   * Waits for the calls that acquired the handle before close began (no new one can start): a short
   * spin, then parking with a growing pause up to 1 ms, so a long native call does not keep a core
   * busy.
   */
  private void awaitCallsInProgress() {
    long pauseNanos = 1_000;
    for (int spins = 0; (state.get() & COUNT_MASK) != 0; spins++) {
      if (spins < 100) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(pauseNanos);
        pauseNanos = Math.min(pauseNanos * 2, 1_000_000);
      }
    }
  }

  /** Runs once, when close starts, before waiting for calls in progress (close children here). */
  protected void beforeDispose() {}

  /** Frees the native resource; called exactly once. */
  protected abstract void dispose(long handle);

  @Override
  public String toString() {
    return what + (isClosed() ? " (closed)" : "");
  }
}
