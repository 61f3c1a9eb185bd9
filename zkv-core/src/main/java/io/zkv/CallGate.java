package io.zkv;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A read-write lock for {@link ZkvDb}: many threads call into the database at once (shared), one
 * closes or reopens it (exclusive). Unlike {@code ReentrantReadWriteLock}, a shared holder writes
 * no memory that other threads' calls write: each thread counts its calls in a cell of its own
 * cache line (chosen by thread id), so two threads doing gets do not bounce one line between cores,
 * which cost several percent of a cached get. The exclusive side is rare and polls.
 *
 * <p>Shared holds nest (an iterator's {@code next} calls {@code hasNext}), also while an exclusive
 * holder waits; the exclusive holder may take shared holds too. A shared holder must not ask for
 * the exclusive hold (it would wait for itself, as with {@code ReentrantReadWriteLock}).
 */
final class CallGate {
  private static final int CELLS = 32; // a power of two
  private static final int PAD = 16; // longs per cell: 128 bytes, two cache lines

  private final AtomicLongArray calls = new AtomicLongArray(CELLS * PAD);
  private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
  private final ReentrantLock exclusive = new ReentrantLock();
  private volatile Thread owner; // the exclusive holder, or null

  private static int cell() {
    long id = Thread.currentThread().getId();
    return (int) ((id * 0x9E3779B97F4A7C15L) >>> 59) * PAD; // 5 bits: CELLS = 32
  }

  /** Takes a shared hold, waiting while another thread holds (or waits for) the exclusive one. */
  void enterShared() {
    int[] d = depth.get();
    int c = cell();
    for (; ; ) {
      calls.getAndIncrement(c); // volatile: ordered with the owner's write and its reads below
      Thread o = owner;
      if (o == null || o == Thread.currentThread() || d[0] > 0) {
        d[0]++;
        return;
      }
      calls.getAndDecrement(c);
      exclusive.lock(); // waits for the exclusive section to end
      exclusive.unlock();
    }
  }

  /** A shared hold if nobody holds or waits for the exclusive one; false (nothing held) if so. */
  boolean tryEnterShared() {
    int[] d = depth.get();
    int c = cell();
    calls.getAndIncrement(c);
    Thread o = owner;
    if (o == null || o == Thread.currentThread() || d[0] > 0) {
      d[0]++;
      return true;
    }
    calls.getAndDecrement(c);
    return false;
  }

  void exitShared() {
    depth.get()[0]--;
    calls.getAndDecrement(cell());
  }

  /** Takes the exclusive hold: waits until no shared hold is left and keeps new ones out. */
  void enterExclusive() {
    exclusive.lock();
    owner = Thread.currentThread();
    while (sharedHolds() > 0) {
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
    }
  }

  void exitExclusive() {
    owner = null;
    exclusive.unlock();
  }

  private long sharedHolds() {
    long n = 0;
    for (int i = 0; i < CELLS; i++) {
      n += calls.get(i * PAD);
    }
    return n;
  }
}
