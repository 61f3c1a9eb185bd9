package io.zkv.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * LIZA, ZenFS's Lifetime-based Zone Allocation, reproduced decision for decision from {@code
 * ZonedBlockDevice::AllocateIOZone} and {@code TakeMigrateZone} in {@code fs/zbd_zenfs.cc} (ZenFS
 * HEAD), so that zkv's default placement and its measurements match ZenFS's.
 *
 * <p>A file write ({@link AllocationPurpose#FILE_WRITE}) goes through these rules in order:
 *
 * <ol>
 *   <li><b>Finish threshold</b> ({@code ApplyFinishThreshold}), not for the WAL: every I/O zone
 *       that is partly written, not held by a writer, and has less than {@code
 *       finishThresholdPercent}% of its capacity left is finished, returning its active token. 0
 *       (ZenFS's mkfs default) turns this off.
 *   <li><b>Open token, WAL first</b> ({@code WaitForOpenIOZoneToken}): the WAL may use all {@code
 *       maxOpenIo} open tokens, every other file only {@code maxOpenIo - 1}, so compaction can
 *       never take the last one from the WAL. MANIFEST and other metadata are "other files". No
 *       token: {@link Allocation.Wait} for {@link Allocation.Resource#OPEN_TOKEN}.
 *   <li><b>Best open zone</b> ({@code GetBestOpenZoneMatch}): among I/O zones not held by a writer,
 *       with live data and room left, the lowest {@link LifetimeDiff}; on a tie the later zone
 *       (ZenFS compares with {@code <=}). A diff below {@link LifetimeDiff#COULD_BE_WORSE} is used.
 *   <li><b>Relaxed match</b> ({@code AllocateIOZone}, "avoided a finish by relaxing lifetime diff
 *       requirement"): if the best diff is exactly {@code COULD_BE_WORSE} and no active token is
 *       free, that same-lifetime zone is used rather than finishing a zone.
 *   <li><b>Finish the cheapest</b> ({@code FinishCheapestIOZone}): otherwise a new zone is needed;
 *       while no active token is free, finish the partly written zone not held by a writer with the
 *       least capacity left (on a tie the first). If every such zone is held by a writer, ZenFS
 *       spins until one is released: {@link Allocation.Wait} for {@link
 *       Allocation.Resource#ACTIVE_TOKEN}.
 *   <li><b>Empty zone</b> ({@code AllocateEmptyZone}): the first empty I/O zone not held by a
 *       writer, which gets the file's lifetime. None: ZenFS fails the write with NoSpace ("Zone
 *       allocation failure") even if a NOT_GOOD or same-lifetime zone had room; here that is {@link
 *       Allocation.NeedGc} when resets or GC could free a zone, else {@link Allocation.NoSpace}.
 *       Zones finished in the previous rules stay finished: ZenFS finished them before it found no
 *       empty zone.
 * </ol>
 *
 * <p>A GC migration ({@link AllocationPurpose#GC_MIGRATION}, {@code TakeMigrateZone}) writes on the
 * token ZenFS reserves for migration, so it needs no open or active token: it takes the best open
 * zone match with at least {@link AllocationRequest#expectedSize()} bytes left, whatever the diff
 * (even NOT_GOOD), and never opens an empty zone; if none fits, ZenFS skips the extent, here {@link
 * Allocation.NoSpace}.
 *
 * <p>The WAL reserve's request ({@link AllocationPurpose#WAL_RESERVE}, WALTZ's zone manager): the
 * first empty zone, finishing the cheapest zone first when no active token is free (as the WAL's
 * own allocation would, now off the put path); NoSpace without an open token or an empty zone.
 *
 * <p>Reserved tokens: the view's limits already exclude the tokens ZenFS keeps for its metadata log
 * and for migration ({@link ZoneTokens#reserved()}); reserved zones ({@link ZoneReservation}) are
 * never candidates, as ZenFS's {@code meta_zones} are not among its {@code io_zones}.
 *
 * <p>Determinism: ZenFS decides under locks, with a busy flag per zone ({@code Zone::Acquire}),
 * token counters and condition variables. Here a zone whose {@link ZoneInfo#busy()} is set is what
 * {@code Acquire()} would refuse, token counts come from the view, and every place ZenFS would
 * block or spin becomes a {@link Allocation.Wait}. ZenFS's other allocation step, returning a
 * deferred I/O error, belongs to the file system. What ZenFS does not know, LIZA ignores: level,
 * key range, expected size of a file write.
 */
public final class LizaPolicy implements PlacementPolicy {
  private final int finishThresholdPercent;

  /** LIZA with the finish threshold off (ZenFS's mkfs default, {@code --finish_threshold=0}). */
  public LizaPolicy() {
    this(0);
  }

  /**
   * LIZA finishing zones with less than {@code finishThresholdPercent}% capacity left before each
   * non-WAL allocation (ZenFS's superblock {@code finish_threshold}).
   *
   * @throws IllegalArgumentException if the percentage is not 0..100
   */
  public LizaPolicy(int finishThresholdPercent) {
    if (finishThresholdPercent < 0 || finishThresholdPercent > 100) {
      throw new IllegalArgumentException(
          "finish threshold must be 0..100 %, not " + finishThresholdPercent);
    }
    this.finishThresholdPercent = finishThresholdPercent;
  }

  @Override
  public String name() {
    return "liza";
  }

  /** The finish threshold in percent of zone capacity; 0 if off. */
  public int finishThresholdPercent() {
    return finishThresholdPercent;
  }

  @Override
  public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
    if (request.purpose() == AllocationPurpose.GC_MIGRATION) {
      return migrationTarget(request, zones);
    }
    if (request.purpose() == AllocationPurpose.WAL_RESERVE) {
      return WalReservation.emptyZone(request, zones, OptionalInt.empty());
    }
    return fileWrite(request, zones);
  }

  /** {@code AllocateIOZone}. */
  private Allocation fileWrite(AllocationRequest request, ZoneTableView zones) {
    boolean wal = request.kind().isWal();
    WriteLifetime lifetime = request.lifetime();
    ZoneTokens tokens = zones.tokens();
    List<Integer> finished = new ArrayList<>();
    int active = tokens.activeIo();

    // ApplyFinishThreshold: skipped for the WAL to keep its allocation latency low (PR #114).
    if (!wal && finishThresholdPercent > 0) {
      for (int i = 0; i < zones.zoneCount(); i++) {
        ZoneInfo z = zones.zone(i);
        if (ZenFsZoneRules.acquirable(z)
            && ZenFsZoneRules.isPartlyWritten(z)
            && z.remaining() < z.capacity() * finishThresholdPercent / 100) {
          finished.add(i);
          active--;
        }
      }
    }

    // WaitForOpenIOZoneToken(prioritized = WAL): others leave the last open token to the WAL.
    int openLimit = ZenFsZoneRules.openTokenLimit(tokens, request.kind());
    if (tokens.openIo() >= openLimit) {
      return new Allocation.Wait(
          Allocation.Resource.OPEN_TOKEN,
          finished,
          (wal ? "WAL" : "non-WAL file")
              + " needs an open token: "
              + tokens.openIo()
              + " in use, limit "
              + openLimit);
    }

    // GetBestOpenZoneMatch with min_capacity 0.
    Match best = bestOpenZone(zones, request.kind(), lifetime, 0, finished);
    if (best.zone >= 0 && best.diff < LifetimeDiff.COULD_BE_WORSE) {
      return new Allocation.UseZone(
          best.zone, finished, "best open zone, lifetime diff " + best.diff);
    }

    boolean gotToken = active < tokens.maxActiveIo();
    if (best.zone >= 0 && !gotToken && best.diff == LifetimeDiff.COULD_BE_WORSE) {
      return new Allocation.UseZone(
          best.zone, finished, "avoided a finish by relaxing the lifetime diff (same lifetime)");
    }

    // FinishCheapestIOZone until an active token is free (as ZenFS, also when no empty zone may
    // then be started: the finished zones stay finished; LizaPolicyTest pins this).
    while (!gotToken) {
      int victim = cheapestToFinish(zones, finished);
      if (victim < 0) {
        return new Allocation.Wait(
            Allocation.Resource.ACTIVE_TOKEN,
            finished,
            "at the active limit and every partly written zone is held by a writer");
      }
      finished.add(victim);
      active--;
      gotToken = active < tokens.maxActiveIo();
    }

    int empty = firstEmptyZone(zones);
    if (empty >= 0) {
      return new Allocation.OpenEmptyZone(
          empty,
          lifetime,
          OptionalInt.empty(),
          finished,
          best.zone < 0
              ? "no open zone with room; new zone"
              : "best open zone diff " + best.diff + "; new zone");
    }
    return noEmptyZone(zones, best, finished);
  }

  /** No empty zone may be started: GC if it could free one, else no space. */
  private static Allocation noEmptyZone(ZoneTableView zones, Match best, List<Integer> finished) {
    String why =
        (zones.emptyZonesKept() > 0
                ? "no empty zone beyond the " + zones.emptyZonesKept() + " kept"
                : "no empty zone")
            + (best.zone >= 0 && !finished.contains(best.zone)
                ? " (zone " + best.zone + " has room but lifetime diff " + best.diff + ")"
                : " and no open zone with room");
    return ZenFsZoneRules.reclaimable(zones, finished)
        ? new Allocation.NeedGc(finished, why + "; reclaimable space exists")
        : new Allocation.NoSpace(finished, why + "; nothing reclaimable");
  }

  /** {@code TakeMigrateZone}: best match with room for the extent, any diff, reserved token. */
  private static Allocation migrationTarget(AllocationRequest request, ZoneTableView zones) {
    long need = request.expectedSize().orElse(0);
    Match best = bestOpenZone(zones, request.kind(), request.lifetime(), need, List.of());
    if (best.zone < 0) {
      return new Allocation.NoSpace(
          List.of(), "no open zone has " + need + " bytes left for the extent; skip it");
    }
    return new Allocation.UseZone(
        best.zone, List.of(), "migration target, lifetime diff " + best.diff);
  }

  /** A zone index (or -1) and its lifetime diff. */
  private record Match(int zone, int diff) {}

  /**
   * {@code GetBestOpenZoneMatch}: zones with live data, not full, at least {@code minCapacity}
   * left; lowest diff, later zone on a tie. Starting from NOT_GOOD with {@code <=} means NOT_GOOD
   * zones are returned too; callers decide whether to use them.
   */
  private static Match bestOpenZone(
      ZoneTableView zones,
      FileKind kind,
      WriteLifetime lifetime,
      long minCapacity,
      List<Integer> finished) {
    int bestZone = -1;
    int bestDiff = LifetimeDiff.NOT_GOOD;
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (!ZenFsZoneRules.acquirable(z)
          || finished.contains(i)
          || !ZenFsZoneRules.servesClass(z, kind)) {
        continue;
      }
      if (z.liveBytes() > 0 && z.remaining() > 0 && z.remaining() >= minCapacity) {
        int diff = LifetimeDiff.between(z.lifetime(), lifetime);
        if (diff <= bestDiff) {
          bestZone = i;
          bestDiff = diff;
        }
      }
    }
    return new Match(bestZone, bestDiff);
  }

  /** {@code FinishCheapestIOZone}'s victim: least capacity left, first on a tie; -1 if none. */
  static int cheapestToFinish(ZoneTableView zones, List<Integer> finished) {
    int victim = -1;
    long victimRemaining = Long.MAX_VALUE;
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (ZenFsZoneRules.acquirable(z)
          && ZenFsZoneRules.isPartlyWritten(z)
          && !finished.contains(i)) {
        if (z.remaining() < victimRemaining) {
          victim = i;
          victimRemaining = z.remaining();
        }
      }
    }
    return victim;
  }

  /**
   * The empty zone LIZA asks for ({@code AllocateEmptyZone}); -1 if none. With over-provisioning
   * configured ({@link ZoneTableView#opZones()} > 0: CAZA's GC), it keeps the file system's
   * reserves ({@link ZenFsZoneRules#firstEmptyZoneBeyondReserves}): the policy answers NeedGc and
   * GC cleans, where asking for a kept zone would have the file system's safety rule place the
   * write without regard to the policy (measured: that undid most of CAZA's gain). Without it, the
   * last empty zones are asked for as ZenFS would ({@link ZenFsZoneRules#firstEmptyZone}: it has no
   * reserve), and the file system's reserve rules place those writes (counted, {@code RESERVE}): on
   * a nearly full device that needs no copying, and a database full to its reserve still reopens
   * ({@code FullDeviceRecoveryTest}).
   */
  static int firstEmptyZone(ZoneTableView zones) {
    return zones.opZones() > 0
        ? ZenFsZoneRules.firstEmptyZoneBeyondReserves(zones)
        : ZenFsZoneRules.firstEmptyZone(zones);
  }
}
