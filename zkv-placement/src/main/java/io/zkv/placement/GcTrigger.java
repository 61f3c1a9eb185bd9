package io.zkv.placement;

/**
 * When garbage collection should run: once free space falls to a configured percentage, measured
 * the way ZenFS's {@code GCWorker} ({@code fs/fs_zenfs.cc}) measures it, so a zkv run and a ZenFS
 * run start collecting at the same point.
 *
 * <p>Over the I/O zones (not reserved, not offline): {@code free} is the capacity still writable,
 * {@code used} the live bytes, {@code reclaimable} the capacity of zones that cannot be written any
 * more ({@code IsFull()}: full or read-only) minus their live bytes; {@code free% = 100 * free /
 * (free + used + reclaimable)} in integer arithmetic. Garbage in open or closed zones is in neither
 * term, exactly as in ZenFS. GC runs when {@code free% <= startPercent}: ZenFS skips a round when
 * {@code free_percent > GC_START_LEVEL}. A pure decision, no I/O.
 */
public final class GcTrigger {
  /** ZenFS's {@code GC_START_LEVEL}: collect when 20% or less is free. */
  public static final int ZENFS_START_PERCENT = 20;

  private final int startPercent;

  /**
   * A trigger that fires at {@code startPercent}% free space or less.
   *
   * @throws IllegalArgumentException if the percentage is not 0..100
   */
  public GcTrigger(int startPercent) {
    if (startPercent < 0 || startPercent > 100) {
      throw new IllegalArgumentException(
          "GC start level must be 0..100 % free space, not " + startPercent);
    }
    this.startPercent = startPercent;
  }

  /** A trigger at ZenFS's level, {@value #ZENFS_START_PERCENT}%. */
  public static GcTrigger zenFsDefault() {
    return new GcTrigger(ZENFS_START_PERCENT);
  }

  /** The configured start level in percent free. */
  public int startPercent() {
    return startPercent;
  }

  /** True if free space is at or below the start level. */
  public boolean shouldCollect(ZoneTableView zones) {
    return freePercent(zones) <= startPercent;
  }

  /** Free space in percent as ZenFS's GC computes it; 100 if there is no I/O space at all. */
  public static long freePercent(ZoneTableView zones) {
    long free = 0;
    long used = 0;
    long reclaimable = 0;
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (!z.isIoZone()) {
        continue;
      }
      free += z.remaining();
      used += z.liveBytes();
      if (!z.isWritable()) {
        reclaimable += z.capacity() - z.liveBytes();
      }
    }
    long total = free + used + reclaimable;
    return total == 0 ? 100 : 100 * free / total;
  }
}
