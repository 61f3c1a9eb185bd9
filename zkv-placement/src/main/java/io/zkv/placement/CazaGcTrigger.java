package io.zkv.placement;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Zone cleaning as CAZA's evaluation ran it (Lee et al., HotStorage '22, section 5.1; digest
 * notes/placement-papers-caza-zonekv.md section 2.4): cleaning starts when no empty zone is left
 * outside the reserves (the over-provisioning zones, {@link ZoneTableView#opZones()}, and the file
 * system's own two), and goes on, one greedy victim after another, until the free space data
 * writers can use reaches THS percent of the device's I/O capacity. Each round it asks for any full
 * zone holding some garbage; which one is the victim policy's choice (CAZA's: the most garbage,
 * {@link GreedyVictimPolicy}).
 *
 * <p>Free space, as this trigger measures it: the room left in partly written I/O zones plus the
 * empty zones data writers may still start ({@link ZoneTableView#emptyZonesAvailable()}), each at
 * its capacity. The over-provisioning zones are not in it: they are GC's, and counting them would
 * make any THS below the reserve's share (5% against CAZA's 10 zones of 100) end cleaning before it
 * began. The paper does not say which it used.
 *
 * <p>It keeps one bit of state, whether a cleaning run is under way, so each mounted file system
 * gets its own ({@link #perFileSystem()}).
 */
public final class CazaGcTrigger implements GcTrigger {
  /** The smallest and largest THS accepted, in percent of the device's capacity. */
  public static final int MIN_THS = 1, MAX_THS = 50;

  /** The threshold when none is given: the lowest of CAZA's evaluation (5, 10, 15, 20, 25). */
  public static final int DEFAULT_THS = 5;

  private final int thsPercent;
  private final AtomicBoolean cleaning = new AtomicBoolean();
  private final AtomicLong freeBefore = new AtomicLong(-1); // at the run's last round

  /**
   * Cleaning until {@code thsPercent}% of the I/O capacity is free.
   *
   * @throws IllegalArgumentException if THS is outside {@value #MIN_THS}..{@value #MAX_THS}
   */
  public CazaGcTrigger(int thsPercent) {
    if (thsPercent < MIN_THS || thsPercent > MAX_THS) {
      throw new IllegalArgumentException(
          "ths must be " + MIN_THS + ".." + MAX_THS + " (% of the capacity), not " + thsPercent);
    }
    this.thsPercent = thsPercent;
  }

  /** {@code caza(T)}, T the threshold in percent. */
  @Override
  public String name() {
    return "caza(" + thsPercent + ")";
  }

  @Override
  public String toString() {
    return name();
  }

  /** THS in percent of the device's I/O capacity. */
  public int thsPercent() {
    return thsPercent;
  }

  /** A trigger of the same THS with no run under way. */
  @Override
  public GcTrigger perFileSystem() {
    return new CazaGcTrigger(thsPercent);
  }

  /** Whether a cleaning run is under way (it started and has not reached THS yet). */
  public boolean cleaning() {
    return cleaning.get();
  }

  /**
   * Any full zone with some garbage while a run is under way (the victim policy picks); 0 outside
   * one. A run also ends when a round finds no more free space than the one before it: the device
   * holds more live data than THS leaves room for, or writers take the space as fast as it is
   * freed. It starts again, at the next round after writers have used up the empty zones.
   */
  @Override
  public long maxLiveBytes(ZoneTableView zones, long capacity) {
    boolean outOfEmptyZones = zones.emptyZonesAvailable() == 0;
    if (!cleaning.get() && !outOfEmptyZones) {
      return 0;
    }
    long[] space = freeAndCapacity(zones);
    long before = freeBefore.getAndSet(space[0]);
    boolean reached = space[0] * 100 >= (long) thsPercent * space[1];
    boolean stuck = cleaning.get() && before >= 0 && space[0] <= before;
    if (reached || stuck) {
      cleaning.set(false);
      freeBefore.set(-1);
      return 0;
    }
    cleaning.set(true);
    return Math.max(0, capacity - 1);
  }

  /** The free space data writers can use and the I/O capacity, in bytes (see the class comment). */
  public static long[] freeAndCapacity(ZoneTableView zones) {
    long free = 0;
    long total = 0;
    long emptyCapacity = 0;
    int empty = 0;
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (!z.isIoZone()) {
        continue;
      }
      total += z.capacity();
      if (z.isEmpty() && !z.busy()) {
        empty++;
        emptyCapacity += z.capacity();
      } else if (z.isWritable()) {
        free += z.remaining();
      }
    }
    // the kept ones are not told apart: the available ones at the empty zones' mean capacity
    int available = Math.max(0, empty - zones.emptyZonesKept()); // emptyZonesAvailable()
    free += empty == 0 ? 0 : available * (emptyCapacity / empty);
    return new long[] {free, total};
  }
}
