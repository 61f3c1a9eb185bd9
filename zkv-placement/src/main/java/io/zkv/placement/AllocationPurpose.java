package io.zkv.placement;

/**
 * Why the file system needs a zone, which decides which token pool pays for it.
 *
 * <p>ZenFS keeps two open and two active tokens back from the device's limits ({@code
 * ZonedBlockDevice::Open}: "Reserve one zone for metadata and another one for extent migration").
 * RocksDB's files, MANIFEST included, share what is left; the file system's own metadata log lives
 * in reserved zones the policy never sees as candidates; GC migration writes on the reserved
 * migration token.
 */
public enum AllocationPurpose {
  /** A RocksDB file needs (another) zone for its next write: ZenFS's {@code AllocateIOZone}. */
  FILE_WRITE,
  /** GC moves a live extent out of a victim zone: ZenFS's {@code TakeMigrateZone}. */
  GC_MIGRATION,
  /**
   * The file system keeps an empty zone ready for a WAL's next zone (WALTZ's reservation, asked by
   * a background thread off the put path; the request's kind is {@link FileKind#WAL}, its file the
   * WAL that last took a zone). Only an {@link Allocation.OpenEmptyZone} is kept (the zones it
   * names are finished first, as for a file write); any other answer keeps none (and is not an
   * override). A policy that does not know this purpose and treats it as a WAL's file write costs
   * at most a declined reservation.
   */
  WAL_RESERVE
}
