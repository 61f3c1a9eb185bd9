package io.zkv.bench.workload;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out new record numbers for inserts and tracks which have completed, so readers only pick
 * records that exist.
 *
 * <p>Source: YCSB {@code AcknowledgedCounterGenerator}, which {@code CoreWorkload} uses as {@code
 * transactioninsertkeysequence}: {@link #claim} is its {@code nextValue}, {@link #acknowledge} its
 * {@code acknowledge}, and {@link #limit} is its {@code lastValue() + 1}. Acknowledgements may
 * arrive out of order; the limit advances only over a gap-free prefix. As in YCSB, at most {@value
 * #WINDOW} records may be outstanding beyond the limit.
 */
public final class InsertCounter {
  /** Maximum distance between the limit and an acknowledged record (YCSB uses 2^20 as well). */
  public static final int WINDOW = 1 << 20;

  private final AtomicLong next;
  private final long[] ackBits = new long[WINDOW / 64];
  private volatile long limit;

  /** Records {@code [0, start)} exist already; the first claim returns {@code start}. */
  public InsertCounter(long start) {
    if (start < 0) {
      throw new IllegalArgumentException("start must be non-negative: " + start);
    }
    this.next = new AtomicLong(start);
    this.limit = start;
  }

  /** Reserves the next record number for an insert. */
  public long claim() {
    return next.getAndIncrement();
  }

  /** Marks a claimed record as written (call it even if the insert failed, as YCSB does). */
  public synchronized void acknowledge(long record) {
    long lim = limit;
    if (record < lim || record >= next.get()) {
      throw new IllegalArgumentException("record " + record + " is not outstanding");
    }
    if (record - lim >= WINDOW) {
      throw new IllegalStateException("more than " + WINDOW + " unacknowledged inserts");
    }
    int slot = (int) (record & (WINDOW - 1));
    long bit = 1L << slot;
    if ((ackBits[slot >>> 6] & bit) != 0) {
      throw new IllegalArgumentException("record " + record + " acknowledged twice");
    }
    ackBits[slot >>> 6] |= bit;
    while (true) {
      int s = (int) (lim & (WINDOW - 1));
      long b = 1L << s;
      if ((ackBits[s >>> 6] & b) == 0) {
        break;
      }
      ackBits[s >>> 6] &= ~b;
      lim++;
    }
    limit = lim;
  }

  /** Every record below this number exists. */
  public long limit() {
    return limit;
  }
}
