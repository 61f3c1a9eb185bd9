package io.zkv.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * CAZA, compaction-aware zone allocation (Lee et al., HotStorage '22; digest
 * notes/placement-papers-caza-zonekv.md section 2): a new SST goes to the zones that hold the SSTs
 * of the next level its key range overlaps, since those are the files a later compaction merges it
 * with, so their zones empty together and are reset without copying.
 *
 * <p>For an SST of level L with key range S:
 *
 * <ol>
 *   <li><b>CAZA 1-4.</b> S_overlap = the SSTs of level L+1 whose key range overlaps S; the zones
 *       holding them, ranked by how many of S_overlap each holds (a count of SSTs, not bytes; ties:
 *       the lowest zone index); the first with room for a target-size file is used.
 *   <li><b>ZC1</b> (S_overlap empty) and <b>ZC2</b> (no zone of it has room): an empty zone, given
 *       the file's lifetime hint. (The paper's "reset zones without valid data first" is the file
 *       system's own rule here: it resets a zone as soon as none of its data is live.)
 *   <li><b>Fallback 1</b>: the zone of the nearest SST of the same level in key order (one that
 *       overlaps S first, then the nearest before S, then the nearest after it, then outwards; the
 *       file's zones by index) with room.
 *   <li><b>Fallback 2</b>: {@link LizaPolicy}, which also answers {@link Allocation.NeedGc} or
 *       {@link Allocation.NoSpace} when nothing is left (the paper's last resort, cleaning with
 *       copies).
 * </ol>
 *
 * <p>The rules for what the paper leaves open, each tested ({@code CazaPolicyTest}):
 *
 * <ul>
 *   <li><b>Not an SST, or no level</b> (WAL, MANIFEST, a file whose hints are not known): LIZA, as
 *       the paper changes only where SSTs go.
 *   <li><b>No key range</b> (a flush: RocksDB reports its range only after the file is written):
 *       S_overlap is empty, so ZC1. A flush's L0 file lives until the next L0 compaction; a zone of
 *       its own is reset, without copying, once they are gone.
 *   <li><b>Bottom level</b> (no SST at L+1): S_overlap is empty, ZC1, as the paper's rule gives.
 *   <li><b>Room</b>: "room for a target-size file" is {@code targetFileSize} bytes left. Where a
 *       zone's capacity is not larger than a target-size file (RocksDB's 64 MiB default against the
 *       scaled zones of {@code zkv bench}'s geometries), no written zone could ever qualify, so any
 *       room does: the paper's other reading, zones of Z filled in order, a file that fills one
 *       asking again for its next.
 *   <li><b>The compaction's own inputs</b> are left out of S_overlap and of Fallback 1: they are
 *       deleted when the compaction ends, so their zones are about to turn into garbage.
 *   <li><b>No free active token</b> for ZC1/ZC2: Fallback 1 (it writes into a zone that is already
 *       active), then LIZA, which finishes a zone to free one (ZenFS's rule).
 *   <li><b>No free open token</b>: LIZA's answer, a {@link Allocation.Wait}, as for any file.
 *   <li><b>GC migration</b> of an SST's extent: a zone already holding the same file (its own
 *       group) with room for the extent, lowest index first; else LIZA's migration target.
 * </ul>
 *
 * <p>Like every built-in policy it holds no state: all it needs is in the request and the view.
 */
public final class CazaPolicy implements PlacementPolicy {
  /** RocksDB's {@code target_file_size_base} default (64 MiB). */
  public static final long DEFAULT_TARGET_FILE_SIZE = 64L << 20;

  private final LizaPolicy liza = new LizaPolicy();
  private final long targetFileSize;

  /** CAZA for RocksDB's default target file size. */
  public CazaPolicy() {
    this(DEFAULT_TARGET_FILE_SIZE);
  }

  /**
   * CAZA for SSTs of {@code targetFileSize} bytes (RocksDB's {@code target_file_size_base}).
   *
   * @throws IllegalArgumentException if the size is not positive
   */
  public CazaPolicy(long targetFileSize) {
    if (targetFileSize <= 0) {
      throw new IllegalArgumentException("target file size must be > 0, not " + targetFileSize);
    }
    this.targetFileSize = targetFileSize;
  }

  @Override
  public String name() {
    return "caza";
  }

  /** The SST size a zone must have room for. */
  public long targetFileSize() {
    return targetFileSize;
  }

  @Override
  public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
    if (request.kind() != FileKind.SST || request.level().isEmpty()) {
      return liza.allocate(request, zones);
    }
    if (request.purpose() == AllocationPurpose.GC_MIGRATION) {
      return migration(request, zones);
    }
    ZoneTokens tokens = zones.tokens();
    if (tokens.openIo() >= ZenFsZoneRules.openTokenLimit(tokens, request.kind())) { // as LIZA
      return liza.allocate(request, zones);
    }
    int level = request.level().getAsInt();
    Optional<KeyRange> range = request.keyRange();
    Set<Long> inputs = new HashSet<>(request.compactionInputs());
    List<Long> overlap =
        range.isEmpty() ? List.of() : sstsOverlapping(zones, level + 1, range.get(), inputs);
    String why;
    if (overlap.isEmpty()) {
      why =
          range.isEmpty()
              ? "ZC1: no key range known (a flush)"
              : "ZC1: no SST of L" + (level + 1) + " overlaps";
    } else {
      for (Map.Entry<Integer, Integer> e : rankedZones(zones, overlap)) {
        if (hasRoom(zones.zone(e.getKey()))) {
          return new Allocation.UseZone(
              e.getKey(),
              List.of(),
              "CAZA: zone "
                  + e.getKey()
                  + " holds "
                  + e.getValue()
                  + " of the "
                  + overlap.size()
                  + " overlapping SSTs of L"
                  + (level + 1));
        }
      }
      why = "ZC2: no zone of the " + overlap.size() + " overlapping SSTs has room";
    }
    int empty = LizaPolicy.firstEmptyZone(zones); // ZenFS's choice of an empty zone
    if (empty >= 0 && tokens.activeAvailable()) {
      return new Allocation.OpenEmptyZone(
          empty, request.lifetime(), OptionalInt.empty(), List.of(), why + "; empty zone");
    }
    String noEmpty = empty < 0 ? "no empty zone" : "no free active token";
    if (range.isPresent()) {
      inputs.add(request.fileId());
      for (long neighbour : nearestSameLevel(zones, level, range.get(), inputs)) {
        for (int z : sorted(zones.zonesOf(neighbour))) {
          if (hasRoom(zones.zone(z))) {
            return new Allocation.UseZone(
                z,
                List.of(),
                why + "; " + noEmpty + "; Fallback 1: zone of the nearest L" + level + " SST");
          }
        }
      }
    }
    Allocation a = liza.allocate(request, zones);
    return relabel(a, why + "; " + noEmpty + "; Fallback 2 (LIZA): " + a.reason());
  }

  /** A migrated extent of an SST: a zone the file already has, else LIZA's migration target. */
  private Allocation migration(AllocationRequest request, ZoneTableView zones) {
    long need = request.expectedSize().orElse(0);
    for (int z : sorted(zones.zonesOf(request.fileId()))) {
      ZoneInfo info = zones.zone(z);
      if (usable(info) && info.remaining() >= need && info.remaining() > 0) {
        return new Allocation.UseZone(z, List.of(), "GC migration: a zone of the same file");
      }
    }
    return liza.allocate(request, zones);
  }

  /** The SSTs of {@code level} (but {@code except}) whose key range is known and overlaps. */
  private static List<Long> sstsOverlapping(
      ZoneTableView zones, int level, KeyRange range, Set<Long> except) {
    List<Long> out = new ArrayList<>();
    for (FileInfo f : zones.files()) {
      if (!except.contains(f.fileId())
          && f.kind() == FileKind.SST
          && f.level().orElse(-1) == level
          && f.keyRange().isPresent()
          && f.keyRange().get().overlaps(range)) {
        out.add(f.fileId());
      }
    }
    return out;
  }

  /**
   * The zones holding {@code ssts}, with how many each holds: most first, lowest index on a tie.
   */
  private static List<Map.Entry<Integer, Integer>> rankedZones(
      ZoneTableView zones, List<Long> ssts) {
    Map<Integer, Integer> count = new TreeMap<>();
    for (long sst : ssts) {
      for (int z : zones.zonesOf(sst)) {
        count.merge(z, 1, Integer::sum);
      }
    }
    List<Map.Entry<Integer, Integer>> ranked = new ArrayList<>(count.entrySet());
    ranked.sort(
        Comparator.comparing((Map.Entry<Integer, Integer> e) -> -e.getValue())
            .thenComparing(Map.Entry::getKey));
    return ranked;
  }

  /**
   * The SSTs of {@code level} (but {@code except}) by distance in key order from {@code range}:
   * those overlapping it, then alternately the nearest before and the nearest after it.
   */
  private static List<Long> nearestSameLevel(
      ZoneTableView zones, int level, KeyRange range, Set<Long> except) {
    List<Long> overlapping = sstsOverlapping(zones, level, range, except);
    List<FileInfo> before = new ArrayList<>();
    List<FileInfo> after = new ArrayList<>();
    for (FileInfo f : zones.files()) {
      if (except.contains(f.fileId())
          || f.kind() != FileKind.SST
          || f.level().orElse(-1) != level
          || f.keyRange().isEmpty()
          || f.keyRange().get().overlaps(range)) {
        continue;
      }
      KeyRange k = f.keyRange().get();
      if (Arrays.compareUnsigned(k.largest(), range.smallest()) < 0) {
        before.add(f);
      } else {
        after.add(f);
      }
    }
    before.sort(
        (a, b) ->
            Arrays.compareUnsigned(b.keyRange().get().largest(), a.keyRange().get().largest()));
    after.sort(
        (a, b) ->
            Arrays.compareUnsigned(a.keyRange().get().smallest(), b.keyRange().get().smallest()));
    List<Long> out = new ArrayList<>(overlapping);
    for (int i = 0; i < Math.max(before.size(), after.size()); i++) {
      if (i < before.size()) {
        out.add(before.get(i).fileId());
      }
      if (i < after.size()) {
        out.add(after.get(i).fileId());
      }
    }
    return out;
  }

  /** A written data zone a writer may take with room for a target-size file. */
  private boolean hasRoom(ZoneInfo z) {
    long need = targetFileSize < z.capacity() ? targetFileSize : 1; // see "Room" above
    return usable(z) && z.liveBytes() > 0 && z.remaining() >= need;
  }

  /** An I/O zone nobody holds, writable, of the data class (or of none). */
  private static boolean usable(ZoneInfo z) {
    return z.isIoZone()
        && !z.busy()
        && z.isWritable()
        && (z.ioClass() == ZoneIoClass.NONE || z.ioClass() == ZoneIoClass.DATA);
  }

  private static List<Integer> sorted(Set<Integer> zones) {
    List<Integer> out = new ArrayList<>(zones);
    out.sort(null);
    return out;
  }

  /** {@code a} with {@code reason} (LIZA's decision, CAZA's account of how it got there). */
  private static Allocation relabel(Allocation a, String reason) {
    if (a instanceof Allocation.UseZone u) {
      return new Allocation.UseZone(u.target(), u.finishFirst(), reason);
    }
    if (a instanceof Allocation.OpenEmptyZone o) {
      return new Allocation.OpenEmptyZone(
          o.target(), o.lifetime(), o.tag(), o.finishFirst(), reason);
    }
    if (a instanceof Allocation.Wait w) {
      return new Allocation.Wait(w.resource(), w.finishFirst(), reason);
    }
    if (a instanceof Allocation.NeedGc g) {
      return new Allocation.NeedGc(g.finishFirst(), reason);
    }
    return new Allocation.NoSpace(a.finishFirst(), reason);
  }
}
