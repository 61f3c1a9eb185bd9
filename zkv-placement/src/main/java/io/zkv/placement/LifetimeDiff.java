package io.zkv.placement;

/**
 * How well a zone's lifetime suits a file's, exactly as ZenFS's {@code GetLifeTimeDiff(zone_lt,
 * file_lt)} ({@code fs/zbd_zenfs.cc}) scores it: lower is better. Data that dies together should
 * share a zone so the zone empties without copying; a file is best placed in a zone whose data is
 * expected to live a little longer than its own, so the zone does not outlive it by much.
 *
 * <ul>
 *   <li>File hint NOT_SET or NONE: 0 if the zone has the very same hint, else {@link #NOT_GOOD}.
 *   <li>Zone longer-lived than the file: the distance, 1..3.
 *   <li>Same hint: {@link #COULD_BE_WORSE} (50): acceptable, but a fresh zone is preferred if one
 *       can be opened without finishing another.
 *   <li>Zone shorter-lived than the file: {@link #NOT_GOOD} (100).
 * </ul>
 *
 * <p>The 2021 ZenFS scored the same-hint case NOT_GOOD; the "could be worse" level came with ZenFS
 * PR #114 ("avoid finishes in allocator by relaxing the life time diff requirement") and is what
 * HEAD does. Why equal is not 0 (ZenFS issue #217): new data should not prolong the zone's reclaim
 * time, so same-lifetime co-location is only the fallback at the active-zone limit.
 */
public final class LifetimeDiff {
  /** ZenFS's {@code LIFETIME_DIFF_NOT_GOOD}: never placed there if a new zone is possible. */
  public static final int NOT_GOOD = 100;

  /** ZenFS's {@code LIFETIME_DIFF_COULD_BE_WORSE}: used only to avoid finishing a zone. */
  public static final int COULD_BE_WORSE = 50;

  private LifetimeDiff() {}

  /**
   * The score of putting a file with lifetime {@code file} into a zone with lifetime {@code zone}.
   */
  public static int between(WriteLifetime zone, WriteLifetime file) {
    if (file == WriteLifetime.NOT_SET || file == WriteLifetime.NONE) {
      return zone == file ? 0 : NOT_GOOD;
    }
    if (zone.value() > file.value()) {
      return zone.value() - file.value();
    }
    if (zone == file) {
      return COULD_BE_WORSE;
    }
    return NOT_GOOD;
  }
}
