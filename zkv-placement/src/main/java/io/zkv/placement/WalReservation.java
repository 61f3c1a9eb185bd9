package io.zkv.placement;

import java.util.List;
import java.util.OptionalInt;

/**
 * The built-in policies' answer to {@link AllocationPurpose#WAL_RESERVE}: the first empty zone a
 * WAL could start now (an open and an active token free, as the WAL's own allocation counts them;
 * the file system also leaves a token for other writers before it asks), never a zone with data and
 * never another zone finished for it: a reserved zone must cost other writers nothing but the token
 * it holds. WALTZ's zone manager took its zones from ZenFS's {@code AllocateZone(WLTH_SHORT)}, an
 * empty zone.
 */
final class WalReservation {
  private WalReservation() {}

  /** An empty zone with the request's lifetime and {@code tag}, or NoSpace saying why not. */
  static Allocation emptyZone(AllocationRequest request, ZoneTableView zones, OptionalInt tag) {
    ZoneTokens tokens = zones.tokens();
    if (tokens.openIo() >= tokens.maxOpenIo() || !tokens.activeAvailable()) {
      return new Allocation.NoSpace(
          List.of(),
          "no token to keep a WAL zone with: open "
              + tokens.openIo()
              + "/"
              + tokens.maxOpenIo()
              + ", active "
              + tokens.activeIo()
              + "/"
              + tokens.maxActiveIo());
    }
    int empty = LizaPolicy.firstEmptyZone(zones);
    if (empty < 0) {
      return new Allocation.NoSpace(List.of(), "no empty zone to keep for the WAL");
    }
    return new Allocation.OpenEmptyZone(
        empty, request.lifetime(), tag, List.of(), "kept empty for the WAL's next zone");
  }
}
