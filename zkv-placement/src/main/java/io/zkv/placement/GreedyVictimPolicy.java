package io.zkv.placement;

import java.util.OptionalInt;

/**
 * Greedy victim choice: the full zone with the fewest live bytes, so each reset costs the least
 * copying; on a tie the lowest zone index, so the choice is deterministic. This is the cleaner the
 * CAZA paper evaluates both LIZA and CAZA with ("zones with the most invalid data are reset
 * first"); with equal zone capacities, fewest live bytes and most invalid bytes are the same order.
 *
 * <p>Only {@link ZoneCondition#FULL} I/O zones not held by a writer qualify: an open or closed zone
 * may still be written (ZenFS's GC likewise only takes full zones), and read-only, offline or
 * reserved zones cannot be reset by GC. A full zone with no live bytes comes first and needs no
 * copy at all.
 */
public final class GreedyVictimPolicy implements VictimPolicy {

  @Override
  public String name() {
    return "greedy";
  }

  @Override
  public OptionalInt chooseVictim(ZoneTableView zones) {
    int victim = -1;
    long victimLive = Long.MAX_VALUE;
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (z.isIoZone() && !z.busy() && z.condition() == ZoneCondition.FULL) {
        if (z.liveBytes() < victimLive) {
          victim = i;
          victimLive = z.liveBytes();
        }
      }
    }
    return victim < 0 ? OptionalInt.empty() : OptionalInt.of(victim);
  }
}
