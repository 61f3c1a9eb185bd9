package io.zkv.placement;

/**
 * A zone's state as NVMe ZNS reports it, with implicitly and explicitly open folded into {@link
 * #OPEN}: placement only cares whether a zone can take writes and whether it holds an active
 * resource, not how it was opened.
 */
public enum ZoneCondition {
  /** Write pointer at the zone start, no resources held. */
  EMPTY,
  /** Being written; holds an open and an active resource. */
  OPEN,
  /** Partly written, not open; still holds an active resource (only finish or reset frees it). */
  CLOSED,
  /** No more writes until reset: written to capacity, or finished early. */
  FULL,
  /** Readable, never writable or resettable again. */
  READ_ONLY,
  /** Unusable. */
  OFFLINE;

  /** True if the zone can take more writes (EMPTY, OPEN, CLOSED). */
  public boolean isWritable() {
    return this == EMPTY || this == OPEN || this == CLOSED;
  }
}
