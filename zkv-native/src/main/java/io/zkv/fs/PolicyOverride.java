package io.zkv.fs;

/**
 * Why the zone file system overrode a policy: its safety rule decided instead. The file system
 * chooses nothing by lifetime or garbage itself (placement, GC victims and when GC runs are the
 * policies'); its safety rule only keeps it going (never NoSpace while a zone has room, the
 * reserves kept), an empty zone first. Each override is counted ({@code
 * io.zkv.fs.ZoneStats.overrides()}, {@code zkv df}, the bench's {@code policy overrides}). The
 * order is the native {@code enum zfs_override} ({@code zonefs/zonefs.h}) and the boundary's
 * (layout 2).
 */
public enum PolicyOverride {
  /** An allocation without a placement policy installed (or after it was removed at JVM exit). */
  NO_POLICY("allocations without a placement policy"),
  /** The placement policy failed: it threw (the stack trace goes to stderr) or could not run. */
  POLICY_FAILED("placement policy failed"),
  /** A placement decision its own view forbids (a busy, full or metadata zone): a policy bug. */
  INVALID_DECISION("invalid placement decisions"),
  /** Placement decisions that went stale on every one of the file system's retries. */
  STALE("placements stale on every retry"),
  /**
   * NoSpace, or NeedGc with nothing to collect, while a zone had room (or NeedGc for GC's own
   * copies).
   */
  NO_SPACE("NoSpace while a zone had room"),
  /** An empty zone the reserves keep from the asking writer (GC's and the metadata's). */
  RESERVE("empty zones the reserves keep"),
  /** A zone the device binds to another I/O class (a {@code plmarray:}'s groups). */
  OTHER_CLASS("zones of another I/O class"),
  /** A GC victim chosen without a victim policy installed. */
  VICTIM_NO_POLICY("GC victims without a victim policy"),
  /** The victim policy failed, or named a zone its view forbids. */
  VICTIM_FAILED("victim policy failed or invalid"),
  /** A victim whose room the writer the collection runs for cannot use (another I/O class). */
  VICTIM_OTHER_CLASS("victims of another I/O class"),
  /** The GC trigger failed: that background round was skipped. */
  TRIGGER_FAILED("GC trigger failed");

  private final String description;

  PolicyOverride(String description) {
    this.description = description;
  }

  /** A short description for reports ({@code zkv df}, the bench). */
  public String description() {
    return description;
  }

  /** Whether this reason is a zone allocation's (those {@code fallbackAllocations} sums). */
  public boolean isAllocation() {
    return ordinal() <= OTHER_CLASS.ordinal();
  }
}
