package io.zkv.placement;

/**
 * When background garbage collection runs, and which zones qualify: asked at each round of the file
 * system's GC thread (every 100 ms, never per write), without any file system lock, on a snapshot
 * of the zones. The file system has no rule of its own: without a trigger (or with {@link #off()})
 * no background round collects, and only a writer that finds no room collects. The default is
 * ZenFS's ({@link ZenFsGcTrigger}). Implementations must be thread-safe and should be fast; one
 * that keeps state between rounds (CAZA's, {@link CazaGcTrigger}) gives each file system its own
 * ({@link #perFileSystem()}); a trigger that throws skips that round (counted as an override).
 */
public interface GcTrigger {
  /** ZenFS's {@code GC_START_LEVEL}: collect when 20% or less is free. */
  int ZENFS_START_PERCENT = 20;

  /** A short name for reports and settings equality, e.g. {@code zenfs(20)}. */
  String name();

  /**
   * The most live bytes a full zone of {@code capacity} bytes may hold to be collected in this
   * round, or 0 for no collection now. The victim policy then chooses among the full zones within
   * the bound.
   */
  long maxLiveBytes(ZoneTableView zones, long capacity);

  /**
   * The trigger a mounted file system asks: this one, or for a trigger that keeps state between
   * rounds (whether a cleaning run is under way) a fresh instance, so that file systems configured
   * alike do not share it. The file system calls it once, at mount.
   */
  default GcTrigger perFileSystem() {
    return this;
  }

  /**
   * CAZA's cleaning: from no empty zone beyond the reserves until THS% is free ({@link
   * CazaGcTrigger}).
   */
  static GcTrigger caza(int thsPercent) {
    return new CazaGcTrigger(thsPercent);
  }

  /** ZenFS's trigger from {@code startPercent}% free space ({@link ZenFsGcTrigger}). */
  static GcTrigger zenFs(int startPercent) {
    return new ZenFsGcTrigger(startPercent);
  }

  /** ZenFS's trigger at its level, {@value #ZENFS_START_PERCENT}%. */
  static GcTrigger zenFsDefault() {
    return ZenFsGcTrigger.zenFsDefault();
  }

  /** No background GC: not installed at all, so the GC thread never asks. */
  static GcTrigger off() {
    return NoGcTrigger.INSTANCE;
  }
}
