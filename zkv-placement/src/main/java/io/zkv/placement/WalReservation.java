package io.zkv.placement;

import java.util.List;
import java.util.OptionalInt;

/**
 * The built-in policies' answer to {@link AllocationPurpose#WAL_RESERVE}: the first empty zone a
 * WAL could start, never a zone with data. Without a free active token the cheapest partly written
 * zone nobody holds is finished first (LIZA's {@code FinishCheapestIOZone}): the WAL's own
 * allocation at its next switch would do the same on the put path, and on a device at its active
 * limit (LIZA leaves closed files' zones partly written for later files) a reserve that never
 * finishes stays empty: measured in a {@code pm1731a} overwrite at 8 background jobs (ZWAL's path
 * at queue depth 1), 97 fills declined against 35 WAL zones served from the reserve, 100 asked on
 * the put path. WALTZ's zone manager took its zones from ZenFS's allocator, which finishes
 * likewise. NoSpace without an open token (the WAL's own limit), without an empty zone, or when no
 * zone can be finished.
 */
final class WalReservation {
  private WalReservation() {}

  /** An empty zone with the request's lifetime and {@code tag}, or NoSpace saying why not. */
  static Allocation emptyZone(AllocationRequest request, ZoneTableView zones, OptionalInt tag) {
    ZoneTokens tokens = zones.tokens();
    if (tokens.openIo() >= tokens.maxOpenIo()) {
      return new Allocation.NoSpace(
          List.of(),
          "no open token to keep a WAL zone with: " + tokens.openIo() + "/" + tokens.maxOpenIo());
    }
    int empty = LizaPolicy.firstEmptyZone(zones);
    if (empty < 0) {
      return new Allocation.NoSpace(List.of(), "no empty zone to keep for the WAL");
    }
    List<Integer> finish = List.of();
    if (!tokens.activeAvailable()) {
      int cheapest = LizaPolicy.cheapestToFinish(zones, List.of());
      if (cheapest < 0) {
        return new Allocation.NoSpace(
            List.of(), "at the active limit and every partly written zone is held");
      }
      finish = List.of(cheapest);
    }
    return new Allocation.OpenEmptyZone(
        empty, request.lifetime(), tag, finish, "kept empty for the WAL's next zone");
  }
}
