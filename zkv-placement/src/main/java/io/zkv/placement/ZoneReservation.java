package io.zkv.placement;

/**
 * Whether a zone is set aside from general file placement. A placement policy never returns a
 * reserved zone, and reserved zones do not count against the I/O token limits (their tokens come
 * out of {@link ZoneTokens#reserved()}).
 */
public enum ZoneReservation {
  /** An ordinary I/O zone: placement may use it. */
  NONE,
  /** The file system's superblock and metadata log (ZenFS's three {@code meta_zones}). */
  METADATA,
  /** Owned by a WAL implementation that manages its own zones (WALTZ's WAL zones, ZWAL's). */
  WAL
}
