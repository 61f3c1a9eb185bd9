package com.example.policy;

import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.FileKind;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneTableView;

/**
 * ZenFS's LIZA, with an SST's lifetime taken from its absolute LSM level instead of RocksDB's hint.
 *
 * <p>Why: RocksDB hints a compaction output {@code MEDIUM + (level - base level)}. With dynamic
 * level bytes (RocksDB's default) the base level starts at the bottom (L6) and moves up as the tree
 * grows, so a bottom-level output is hinted {@code MEDIUM}, as a flush is, and LIZA, which prefers
 * a zone whose lifetime is longer than the file's, may put it into a zone of upper-level data that
 * compactions soon turn into garbage. The absolute level, which zkv's LSM listener hands every
 * allocation, does not move: L0-L1 {@code MEDIUM}, L2-L3 {@code LONG}, deeper {@code EXTREME}.
 * Files without a level (the WAL, the MANIFEST, a flush whose level is not known yet) keep
 * RocksDB's hint. LIZA then decides exactly as it always does.
 *
 * <p>Like every policy it is a pure function of its arguments (no state), so it is safe to call
 * from several threads at once and loses nothing in a crash.
 */
public final class LevelLifetimePolicy implements PlacementPolicy {
  private final LizaPolicy liza = new LizaPolicy();

  @Override
  public String name() {
    return "level-lifetime";
  }

  @Override
  public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
    WriteLifetime lifetime = lifetimeOf(request);
    if (lifetime == request.lifetime()) {
      return liza.allocate(request, zones);
    }
    return liza.allocate(request.withLifetime(lifetime), zones);
  }

  /** The lifetime this policy gives the request's file. */
  static WriteLifetime lifetimeOf(AllocationRequest request) {
    if (request.kind() != FileKind.SST || request.level().isEmpty()) {
      return request.lifetime();
    }
    int level = request.level().getAsInt();
    if (level <= 1) {
      return WriteLifetime.MEDIUM;
    }
    return level <= 3 ? WriteLifetime.LONG : WriteLifetime.EXTREME;
  }
}
