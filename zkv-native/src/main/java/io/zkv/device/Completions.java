package io.zkv.device;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable batch of completions filled by {@link AsyncQueue#reap}: for each, the tag given at
 * submission and the result (an append's assigned byte offset, 0, or a negative code).
 */
public final class Completions {
  private static final int RECORD = 16;
  private final ByteBuffer buf;
  private final int capacity;
  private int count;

  public Completions(int capacity) {
    this.capacity = capacity;
    this.buf = ByteBuffer.allocateDirect(capacity * RECORD).order(ByteOrder.nativeOrder());
  }

  public int capacity() {
    return capacity;
  }

  public int count() {
    return count;
  }

  public long tag(int i) {
    return buf.getLong(index(i));
  }

  /** The raw result: >= 0 on success, a negative native code on failure. */
  public long result(int i) {
    return buf.getLong(index(i) + 8);
  }

  public boolean ok(int i) {
    return result(i) >= 0;
  }

  /** The failure of completion {@code i} as an exception, or null when it succeeded. */
  public ZonedDeviceException error(int i) {
    long r = result(i);
    return r >= 0 ? null : ZonedDeviceException.of(r, "request " + tag(i));
  }

  /** The typed NVMe status of a failed completion, or null for success or a host error. */
  public ZnsStatus status(int i) {
    return error(i) instanceof ZoneStatusException z ? z.status() : null;
  }

  private int index(int i) {
    if (i < 0 || i >= count) {
      throw new IndexOutOfBoundsException("completion " + i + " of " + count);
    }
    return i * RECORD;
  }

  ByteBuffer buffer() {
    return buf;
  }

  long rawTag(int i) {
    return buf.getLong(i * RECORD);
  }

  void setTag(int i, long tag) {
    buf.putLong(i * RECORD, tag);
  }

  void setCount(int n) {
    count = n;
  }
}
