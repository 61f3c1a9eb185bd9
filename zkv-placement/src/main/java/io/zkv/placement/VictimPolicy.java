package io.zkv.placement;

import java.util.OptionalInt;

/**
 * Chooses the zone garbage collection empties next: its live extents are migrated elsewhere and the
 * zone is reset. A pure decision over the view; the file system does the copying, counts the copied
 * bytes and calls again for the next victim, so the choice always sees the current state.
 */
public interface VictimPolicy {

  /** Short, stable name for configuration and metrics, e.g. {@code "greedy"}. */
  String name();

  /**
   * The zone to collect next, or empty if no zone qualifies.
   *
   * @param zones the zones as they are now; must not be retained after the call
   */
  OptionalInt chooseVictim(ZoneTableView zones);
}
