package io.zkv.device;

import io.zkv.nativelib.NativeHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Asynchronous submission and completion on a {@link ZonedDevice}, io_uring style: submit up to
 * {@code depth} requests, then {@link #reap} their completions, which may come back in any order.
 * Errors of a request (Zone Is Full, ...) arrive in its completion, as on an NVMe device.
 *
 * <p>One thread uses a queue at a time. The queue holds each submitted buffer until its request
 * completes, so the buffer cannot be freed under the device; submit and reap allocate nothing.
 */
public final class AsyncQueue extends NativeHandle {
  private static final int OP_READ = 0;
  private static final int OP_WRITE = 1;
  private static final int OP_APPEND = 2;
  private static final int OP_FLUSH = 3;

  private final ZonedDevice device;
  private final int depth;
  private final ByteBuffer[] pinned;
  private final long[] userTags;
  private final int[] freeSlots;
  private int freeCount;

  AsyncQueue(ZonedDevice device, long handle, int depth) {
    super("queue on " + device.uri(), handle);
    this.device = device;
    this.depth = depth;
    this.pinned = new ByteBuffer[depth];
    this.userTags = new long[depth];
    this.freeSlots = new int[depth];
    for (int i = 0; i < depth; i++) {
      freeSlots[i] = depth - 1 - i;
    }
    freeCount = depth;
  }

  public int depth() {
    return depth;
  }

  /** Requests submitted and not yet reaped. */
  public int inFlight() {
    return depth - freeCount;
  }

  /** Submits a zone append of {@code len} bytes at {@code pos}; false when the queue is full. */
  public boolean submitAppend(int zone, ByteBuffer buf, int pos, int len, int flags, long tag) {
    return submit(OP_APPEND, zone, 0, buf, pos, len, flags, tag);
  }

  /** Submits a write at {@code offset} (must be the zone's write pointer when it executes). */
  public boolean submitWrite(long offset, ByteBuffer buf, int pos, int len, int flags, long tag) {
    return submit(OP_WRITE, 0, offset, buf, pos, len, flags, tag);
  }

  public boolean submitRead(long offset, ByteBuffer buf, int pos, int len, long tag) {
    return submit(OP_READ, 0, offset, buf, pos, len, 0, tag);
  }

  public boolean submitFlush(long tag) {
    return submit(OP_FLUSH, 0, 0, null, 0, 0, 0, tag);
  }

  private boolean submit(
      int op, int zone, long offset, ByteBuffer buf, int pos, int len, int flags, long tag) {
    if (buf != null) {
      ZonedDevice.checkDirect(buf);
      if (pos < 0 || len <= 0 || pos > buf.capacity() - len) {
        throw new IndexOutOfBoundsException(
            "[" + pos + ", " + pos + "+" + len + ") outside a buffer of " + buf.capacity());
      }
    }
    if (freeCount == 0) {
      return false;
    }
    int slot = freeSlots[--freeCount];
    pinned[slot] = buf;
    userTags[slot] = tag;
    long h = acquire();
    int rc;
    try {
      rc = nSubmit(h, op, zone, offset, buf, pos, len, flags, slot);
    } finally {
      release();
    }
    if (rc < 0) {
      pinned[slot] = null;
      freeSlots[freeCount++] = slot;
      if (rc == -16) { // EBUSY: native queue full (cannot happen while the slot counts agree)
        return false;
      }
      throw new IllegalStateException(
          "submit failed: " + ZonedDeviceException.of(rc, "submit").getMessage());
    }
    return true;
  }

  /**
   * Waits until at least {@code min} requests completed (or the timeout passed) and stores up to
   * {@code out.capacity()} completions in {@code out}; returns how many.
   */
  public int reap(Completions out, int min, long timeout, TimeUnit unit) {
    long h = acquire();
    int n;
    try {
      n =
          nReap(
              h,
              out.buffer(),
              Math.min(min, out.capacity()),
              out.capacity(),
              unit.toNanos(timeout));
    } finally {
      release();
    }
    if (n < 0) {
      throw new IllegalStateException("reap failed with code " + n);
    }
    for (int i = 0; i < n; i++) {
      int slot = (int) out.rawTag(i);
      out.setTag(i, userTags[slot]);
      pinned[slot] = null;
      freeSlots[freeCount++] = slot;
    }
    out.setCount(n);
    return n;
  }

  /** Waits without a time limit. */
  public int reap(Completions out, int min) {
    return reap(out, min, -1, TimeUnit.NANOSECONDS);
  }

  @Override
  protected void dispose(long handle) {
    nDestroy(handle); // waits for in-flight I/O, so pinned buffers may be dropped after
    java.util.Arrays.fill(pinned, null);
    device.forget(this);
  }

  static native long nCreate(long device, int depth);

  private static native void nDestroy(long q);

  private static native int nSubmit(
      long q, int op, int zone, long off, ByteBuffer b, int pos, int len, int flags, long tag);

  private static native int nReap(long q, ByteBuffer out, int min, int max, long timeoutNs);
}
