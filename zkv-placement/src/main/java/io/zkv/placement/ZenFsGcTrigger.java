package io.zkv.placement;

import java.util.OptionalInt;

/**
 * ZenFS's GC trigger, zkv's default {@link GcTrigger}: garbage collection runs once free space
 * falls to a configured percentage, measured the way ZenFS's {@code GCWorker} ({@code
 * fs/fs_zenfs.cc}) measures it, so a zkv run and a ZenFS run start collecting at the same point.
 *
 * <p>Over the I/O zones (not reserved, not offline): {@code free} is the capacity still writable,
 * {@code used} the live bytes, {@code reclaimable} the capacity of zones that cannot be written any
 * more ({@code IsFull()}: full or read-only) minus their live bytes; {@code free% = 100 * free /
 * (free + used + reclaimable)} in integer arithmetic. Garbage in open or closed zones is in neither
 * term, exactly as in ZenFS. GC runs when {@code free% <= startPercent}: ZenFS skips a round when
 * {@code free_percent > GC_START_LEVEL}. A pure decision, no I/O.
 */
public final class ZenFsGcTrigger implements GcTrigger {
  private final int startPercent;

  /**
   * A trigger that fires at {@code startPercent}% free space or less.
   *
   * @throws IllegalArgumentException if the percentage is not 0..100
   */
  public ZenFsGcTrigger(int startPercent) {
    if (startPercent < 0 || startPercent > 100) {
      throw new IllegalArgumentException(
          "GC start level must be 0..100 % free space, not " + startPercent);
    }
    this.startPercent = startPercent;
  }

  /** A trigger at ZenFS's level, {@value GcTrigger#ZENFS_START_PERCENT}%. */
  public static ZenFsGcTrigger zenFsDefault() {
    return new ZenFsGcTrigger(ZENFS_START_PERCENT);
  }

  /** {@code zenfs(P)}, P the start level. */
  @Override
  public String name() {
    return "zenfs(" + startPercent + ")";
  }

  @Override
  public String toString() {
    return name();
  }

  /** The configured start level in percent free. */
  public int startPercent() {
    return startPercent;
  }

  /** True if free space is at or below the start level. */
  public boolean shouldCollect(ZoneTableView zones) {
    return freePercent(zones) <= startPercent;
  }

  /**
   * ZenFS's {@code GC_SLOPE}: the garbage threshold falls 3 points per point of free space lost.
   */
  public static final int ZENFS_SLOPE = 3;

  /**
   * The garbage a full zone must hold to be collected in this round, in percent of its capacity:
   * ZenFS's {@code threshold = 100 - GC_SLOPE * (GC_START_LEVEL - free%)} (a zone qualifies when
   * its garbage is above it and below 100%, i.e. it holds some live data); empty when free space is
   * above the start level.
   */
  public OptionalInt garbageThresholdPercent(ZoneTableView zones) {
    long free = freePercent(zones);
    if (free > startPercent) {
      return OptionalInt.empty();
    }
    return OptionalInt.of((int) Math.max(0, 100 - ZENFS_SLOPE * (startPercent - free)));
  }

  /**
   * The most live bytes a full zone of {@code capacity} bytes may hold to be collected in this
   * round ({@link #garbageThresholdPercent}: garbage above the threshold), or 0 for no collection
   * now. ZenFS compares {@code 100 - 100 * used / capacity} with the threshold in integer
   * arithmetic; this is the same bound on {@code used}.
   */
  @Override
  public long maxLiveBytes(ZoneTableView zones, long capacity) {
    OptionalInt threshold = garbageThresholdPercent(zones);
    if (threshold.isEmpty()) {
      return 0;
    }
    // garbage% = 100 - floor(100 * used / cap) > t  <=>  floor(100 * used / cap) < 100 - t
    //   <=>  100 * used < (100 - t) * cap  <=>  used <= ceil((100 - t) * cap / 100) - 1
    long limit = ((100 - threshold.getAsInt()) * capacity + 99) / 100 - 1;
    return Math.max(0, limit);
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
