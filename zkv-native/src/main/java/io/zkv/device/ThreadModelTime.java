package io.zkv.device;

import io.zkv.nativelib.ZkvNative;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The emulated devices' modelled service time of the requests the calling thread waited for, and
 * how many it waited for: from each synchronous request's submission to its completion in the
 * timing model, whatever the host did meanwhile (requests submitted together, as a {@code
 * plmarray:} rebuild's, count their longest, and count as one wait). A benchmark reads them around
 * an operation to set the device's share of the operation's latency, exact on any host, beside the
 * wall time. 0 for requests to devices that are not emulated, and for the {@code instant} profile.
 *
 * <p>One per thread: {@link #start()} registers two native counters for the calling thread (one
 * native call), {@link #nanos()} and {@link #waits()} read them (no native call), {@link #close()}
 * on the same thread unregisters it. The counters stay reachable from the thread while registered,
 * so the device layer never writes into freed memory.
 */
public final class ThreadModelTime implements AutoCloseable {
  private static final ThreadLocal<ThreadModelTime> REGISTERED = new ThreadLocal<>();

  private final ByteBuffer counter =
      ByteBuffer.allocateDirect(2 * Long.BYTES).order(ByteOrder.nativeOrder());
  private final Thread owner = Thread.currentThread();
  private boolean closed;

  private ThreadModelTime() {}

  /** Starts counting for the calling thread, from 0; fails if it already counts. */
  public static ThreadModelTime start() {
    ZkvNative.ensureLoaded();
    if (REGISTERED.get() != null) {
      throw new IllegalStateException(
          "thread " + Thread.currentThread().getName() + " already counts its model time");
    }
    ThreadModelTime t = new ThreadModelTime();
    int rc = nSink(t.counter);
    if (rc < 0) {
      throw new IllegalStateException("cannot register the model-time counter: " + rc);
    }
    REGISTERED.set(t);
    return t;
  }

  /** Modelled nanoseconds so far; only on the thread that started it. */
  public long nanos() {
    return read(0);
  }

  /** Requests waited for so far (a group submitted together counts once); as {@link #nanos()}. */
  public long waits() {
    return read(Long.BYTES);
  }

  private long read(int at) {
    checkOwner();
    if (closed) {
      throw new IllegalStateException("model-time counter closed");
    }
    return counter.getLong(at);
  }

  /** Stops counting; idempotent; only on the thread that started it. */
  @Override
  public void close() {
    checkOwner();
    if (!closed) {
      nSink(null);
      REGISTERED.remove();
      closed = true;
    }
  }

  private void checkOwner() {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException(
          "model-time counter of thread " + owner.getName() + " used on another thread");
    }
  }

  static native int nSink(ByteBuffer counter);
}
