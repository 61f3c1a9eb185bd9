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
  GC_MIGRATION
}
