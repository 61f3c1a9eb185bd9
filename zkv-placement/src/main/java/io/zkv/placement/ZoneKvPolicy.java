package io.zkv.placement;

import java.util.List;
import java.util.OptionalInt;

/**
 * ZoneKV's level-specific zone allocation (Lu et al., IEEE 2023; digest
 * notes/placement-papers-caza-zonekv.md section 3): a file's lifetime class is its level, and each
 * class fills zones of its own, so a zone holds data that dies together.
 *
 * <p>Classes (ZoneKV section III-E, by absolute level): log files (the WAL, the MANIFEST, the info
 * LOG and RocksDB's other small files) -1; SSTs of L0 and L1 1 (an L0 compaction rewrites nearly
 * all of L1 with it); an SST of Li, i >= 2, i. A zone keeps its class as its tag ({@link
 * #tagOf(int)}: class + 1, since tags are not negative), given when the policy opens it and kept
 * until the zone is reset.
 *
 * <p>Algorithm 1 ({@code Find_zone}), with the choices the paper leaves open, each tested ({@code
 * ZoneKvPolicyTest}):
 *
 * <ol>
 *   <li><b>Phase 1</b>: the first active zone (partly written, nobody writing it; by index) of the
 *       file's class with room.
 *   <li><b>Phase 2</b>: an empty zone the file system lets this writer start ({@link
 *       ZoneTableView#emptyZonesAvailable()}), tagged with the class. At the active limit the
 *       active zone with the least room is finished first (not closed: a closed zone still holds
 *       its active resource), lowest index on a tie; if every active zone is being written, wait
 *       for an active token.
 *   <li><b>Phase 3</b> (no empty zone): the first zone by index with room whose class is longer
 *       lived than the file's, then the first with room of any class; never, for an SST, a zone of
 *       the log class (one holding a log file's data where it has no tag). Else GC, or no space
 *       ({@link LizaPolicy}'s test of what GC could reclaim). "Longer lived" compares the class
 *       values, as the paper's {@code lt < zone.lifetime} does: a log's -1 is below every SST class
 *       (the paper calls it infinite but writes -1), so a log file takes the first SST class zone
 *       with room.
 * </ol>
 *
 * <p>More rules the paper does not state: an SST whose level is not known (no hint) is in the L0
 * class, as is a file whose name is gone (deleted while open, its data moved by GC); a zone with no
 * tag (opened by another policy or by the file system's safety rule) has the class of the
 * longest-lived file in it (files whose name is gone left out), the log class if it holds a log
 * file, and no class if it holds nothing else live (phase 3 may use it); RocksDB takes an open zone
 * token before any of this (no free open token: wait, the last one left to the WAL as in LIZA). A
 * GC migration goes to a zone of the file's class with room for the extent, else to {@link
 * LizaPolicy}'s migration target.
 *
 * <p>It needs an active zone for each of three classes (logs, L0/L1, one more level) besides the
 * file system's own: {@link #checkDevice} refuses fewer. It holds no state.
 */
public final class ZoneKvPolicy implements PlacementPolicy {
  /** The class of log files (the paper's "infinite" lifetime, -1). */
  public static final int LOG_CLASS = -1;

  /** Active zones ZoneKV needs at least: logs, L0/L1 and one deeper level. */
  public static final int MIN_ACTIVE_ZONES = 3;

  private final LizaPolicy liza = new LizaPolicy();

  @Override
  public String name() {
    return "zonekv";
  }

  /**
   * Refuses a device whose active-token limit for file writes ({@link ZoneTokens#maxActiveIo()})
   * leaves fewer than {@value #MIN_ACTIVE_ZONES} active zones.
   *
   * @throws IllegalArgumentException saying why
   */
  @Override
  public void checkDevice(int maxActiveIo) {
    if (maxActiveIo < MIN_ACTIVE_ZONES) {
      throw new IllegalArgumentException(
          "placement zonekv needs "
              + MIN_ACTIVE_ZONES
              + " active zones for file writes (logs, L0/L1 and a deeper level), and this device"
              + " leaves "
              + maxActiveIo
              + " beside the file system's own");
    }
  }

  /**
   * The lifetime class of a file: {@value #LOG_CLASS} for logs and RocksDB's other small files, 1
   * for SSTs of L0 and L1 (and SSTs of no known level), i for Li.
   */
  public static int classOf(FileKind kind, OptionalInt level) {
    if (kind.isWal() || kind.isMetadata() || kind == FileKind.INFO_LOG) {
      return LOG_CLASS;
    }
    return Math.max(1, level.orElse(0)); // SST, blob, and a file with no name left (UNKNOWN)
  }

  /** The zone tag that stands for a class: class + 1. */
  public static int tagOf(int lifetimeClass) {
    return lifetimeClass + 1;
  }

  @Override
  public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
    int cls = classOf(request.kind(), request.level());
    if (request.purpose() == AllocationPurpose.GC_MIGRATION) {
      return migration(request, zones, cls);
    }
    if (request.purpose() == AllocationPurpose.WAL_RESERVE) { // a zone of the logs' class
      return WalReservation.emptyZone(request, zones, OptionalInt.of(tagOf(LOG_CLASS)));
    }
    ZoneTokens tokens = zones.tokens();
    int openLimit = ZenFsZoneRules.openTokenLimit(tokens, request.kind());
    if (tokens.openIo() >= openLimit) {
      return new Allocation.Wait(
          Allocation.Resource.OPEN_TOKEN,
          List.of(),
          "needs an open token: " + tokens.openIo() + " in use, limit " + openLimit);
    }
    // Phase 1: an active zone of the class with room.
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (usable(z, request.kind()) && zoneClass(zones, i).equals(OptionalInt.of(cls))) {
        return new Allocation.UseZone(i, List.of(), "phase 1: active zone of class " + cls);
      }
    }
    // Phase 2: a new zone for the class.
    int empty = LizaPolicy.firstEmptyZone(zones);
    if (empty >= 0) {
      List<Integer> finish = List.of();
      if (!tokens.activeAvailable()) {
        int least = leastRoom(zones);
        if (least < 0) {
          return new Allocation.Wait(
              Allocation.Resource.ACTIVE_TOKEN,
              List.of(),
              "phase 2: at the active limit and every active zone is being written");
        }
        finish = List.of(least);
      }
      return new Allocation.OpenEmptyZone(
          empty,
          request.lifetime(),
          OptionalInt.of(tagOf(cls)),
          finish,
          "phase 2: new zone of class "
              + cls
              + (finish.isEmpty() ? "" : ", zone " + finish.get(0) + " finished (least room)"));
    }
    // Phase 3: a longer-lived class's zone, then any with room; never an SST in a log zone.
    int anyZone = -1;
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (!usable(z, request.kind())) {
        continue;
      }
      OptionalInt zc = zoneClass(zones, i);
      if (request.kind().isData() && zc.equals(OptionalInt.of(LOG_CLASS))) {
        continue;
      }
      if (zc.isPresent() && cls < zc.getAsInt()) {
        return new Allocation.UseZone(
            i, List.of(), "phase 3: zone of the longer-lived class " + zc.getAsInt() + " has room");
      }
      if (anyZone < 0) {
        anyZone = i;
      }
    }
    if (anyZone >= 0) {
      return new Allocation.UseZone(anyZone, List.of(), "phase 3: the first zone with room");
    }
    String why = "no zone with room for class " + cls + " and no empty zone";
    return ZenFsZoneRules.reclaimable(zones, List.of())
        ? new Allocation.NeedGc(List.of(), why + "; reclaimable space exists")
        : new Allocation.NoSpace(List.of(), why + "; nothing reclaimable");
  }

  /** A zone of the file's class with room for the extent, else LIZA's migration target. */
  private Allocation migration(AllocationRequest request, ZoneTableView zones, int cls) {
    long need = request.expectedSize().orElse(1);
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (usable(z, request.kind())
          && z.remaining() >= need
          && zoneClass(zones, i).equals(OptionalInt.of(cls))) {
        return new Allocation.UseZone(i, List.of(), "GC: zone of class " + cls + " has room");
      }
    }
    return liza.allocate(request, zones);
  }

  /**
   * A partly written zone this writer may write into now: nobody holds it, it has room, it serves
   * the kind (an empty one is phase 2's).
   */
  private static boolean usable(ZoneInfo z, FileKind kind) {
    return ZenFsZoneRules.acquirable(z)
        && z.isWritable()
        && z.remaining() > 0
        && !z.isEmpty()
        && ZenFsZoneRules.servesClass(z, kind);
  }

  /**
   * A zone's class: its tag's, else that of the files in it (the log class if any is a log file,
   * else the longest-lived SST's); empty for none (untagged and nothing live).
   */
  static OptionalInt zoneClass(ZoneTableView zones, int index) {
    OptionalInt tag = zones.zone(index).tag();
    if (tag.isPresent()) {
      return OptionalInt.of(tag.getAsInt() - 1);
    }
    OptionalInt cls = OptionalInt.empty();
    for (long id : zones.filesIn(index)) {
      FileInfo f = zones.file(id).orElse(null);
      if (f == null) {
        continue;
      }
      if (f.kind() == FileKind.UNKNOWN) {
        continue; // deleted while open: its name, and so its kind, is gone
      }
      int c = classOf(f.kind(), f.level());
      if (c == LOG_CLASS) {
        return OptionalInt.of(LOG_CLASS);
      }
      cls = OptionalInt.of(cls.isPresent() ? Math.max(cls.getAsInt(), c) : c);
    }
    return cls;
  }

  /** The active zone nobody writes with the least room, lowest index on a tie; -1 if none. */
  private static int leastRoom(ZoneTableView zones) {
    int victim = -1;
    long room = Long.MAX_VALUE;
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (ZenFsZoneRules.acquirable(z)
          && ZenFsZoneRules.isPartlyWritten(z)
          && z.remaining() < room) {
        victim = i;
        room = z.remaining();
      }
    }
    return victim;
  }
}
