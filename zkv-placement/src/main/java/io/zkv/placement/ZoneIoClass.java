package io.zkv.placement;

/**
 * The I/O class a zone's writes carry, as the file system binds it when a writer first writes into
 * the empty zone (until the zone is reset). On a device whose zones serve one class each (a {@code
 * plmarray:}, whose metadata and stripe groups are separate), and on every device whose WAL is
 * written in ZWAL mode (WAL zones are kept apart: docs/wal.md), a policy must keep a file in zones
 * of its class: the file system overrides a decision that does not.
 */
public enum ZoneIoClass {
  /**
   * Empty, or not shown: on a device that binds no zones to classes, in the FILE WAL mode (ZenFS's,
   * where WALs and other files share zones); after a mount, a zone holding other files' data.
   */
  NONE,
  /** SST data: flushes, compactions, garbage-collection copies. */
  DATA,
  /** Write-ahead log. */
  WAL,
  /** The file system's own metadata log. */
  METADATA;

  /** The class of a native {@code ZKV_CLASS_*} value (zkv/device.h); unknown values are NONE. */
  public static ZoneIoClass fromValue(int value) {
    return switch (value) {
      case 1 -> DATA;
      case 2 -> WAL;
      case 3 -> METADATA;
      default -> NONE;
    };
  }
}
