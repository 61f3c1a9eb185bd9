package io.zkv.placement;

import java.util.OptionalInt;

/**
 * Chooses the zone garbage collection empties next: its live extents are migrated elsewhere and the
 * zone is reset. A pure decision over the view; the file system does the copying, counts the copied
 * bytes and calls again for the next victim, so the choice always sees the current state. Called
 * without any file system lock on a snapshot (writers go on meanwhile; a victim whose data was
 * deleted before the choice was committed is asked again), one collection at a time.
 */
public interface VictimPolicy {

  /** Short, stable name for configuration and metrics, e.g. {@code "greedy"}. */
  String name();

  /**
   * The zone to collect next, or empty if no zone qualifies.
   *
   * @param zones the zones as a snapshot taken for this call; must not be retained after it
   */
  OptionalInt chooseVictim(ZoneTableView zones);
}
