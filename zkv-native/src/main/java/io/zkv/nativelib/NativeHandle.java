package io.zkv.nativelib;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Base of every Java object that owns a native resource. {@link #close()} is idempotent, waits for
 * calls in progress, frees the resource once and zeroes the handle; any use after close throws
 * {@link IllegalStateException} instead of touching freed memory.
 *
 * <p>Subclasses bracket each native call with {@link #acquire()} and {@link #release()}: two atomic
 * operations, no allocation.
 */
public abstract class NativeHandle implements AutoCloseable {
  private final String what;
  private final AtomicInteger users = new AtomicInteger();
  private final AtomicInteger leases = new AtomicInteger();
  private final AtomicBoolean closing = new AtomicBoolean();
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
    users.incrementAndGet();
    if (closing.get()) {
      users.decrementAndGet();
      throw new IllegalStateException(what + " is closed");
    }
    return handle;
  }

  protected final void release() {
    users.decrementAndGet();
  }

  /**
   * Keeps the handle alive for a dependent native object (e.g. a file system mounted on a device):
   * {@link #close()} refuses while a lease is held. Returns the handle; end with {@link #endLease}.
   */
  protected final long takeLease() {
    long h = acquire();
    leases.incrementAndGet();
    release();
    return h;
  }

  protected final void endLease() {
    leases.decrementAndGet();
  }

  public final boolean isClosed() {
    return closing.get();
  }

  @Override
  public final void close() {
    if (leases.get() > 0 && !closing.get()) {
      throw new IllegalStateException(
          what + " is still used by " + leases.get() + " dependent object(s); close those first");
    }
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    beforeDispose();
    while (users.get() > 0) {
      Thread.onSpinWait();
    }
    long h = handle;
    handle = 0;
    dispose(h);
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
