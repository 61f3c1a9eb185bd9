package com.example.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.FileKind;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneCondition;
import io.zkv.placement.ZoneTable;
import org.junit.jupiter.api.Test;

/** The policy's rule, on zone tables built by hand (zkv-placement's ZoneTable.builder): no device. */
class LevelLifetimePolicyTest {
  private static final long CAPACITY = 1_000_000;

  private static AllocationRequest sst(int level, WriteLifetime rocksDbHint) {
    return AllocationRequest.builder(7, FileKind.SST).lifetime(rocksDbHint).level(level).build();
  }

  @Test
  void theLifetimeComesFromTheAbsoluteLevel() {
    assertEquals(WriteLifetime.MEDIUM, LevelLifetimePolicy.lifetimeOf(sst(0, WriteLifetime.MEDIUM)));
    assertEquals(WriteLifetime.MEDIUM, LevelLifetimePolicy.lifetimeOf(sst(1, WriteLifetime.LONG)));
    assertEquals(WriteLifetime.LONG, LevelLifetimePolicy.lifetimeOf(sst(3, WriteLifetime.MEDIUM)));
    assertEquals(WriteLifetime.EXTREME, LevelLifetimePolicy.lifetimeOf(sst(6, WriteLifetime.MEDIUM)));
  }

  @Test
  void filesWithoutALevelKeepRocksDbsHint() {
    AllocationRequest wal =
        AllocationRequest.builder(3, FileKind.WAL).lifetime(WriteLifetime.SHORT).build();
    assertEquals(WriteLifetime.SHORT, LevelLifetimePolicy.lifetimeOf(wal));
    AllocationRequest noLevel =
        AllocationRequest.builder(4, FileKind.SST).lifetime(WriteLifetime.MEDIUM).build();
    assertEquals(WriteLifetime.MEDIUM, LevelLifetimePolicy.lifetimeOf(noLevel));
  }

  @Test
  void aBottomLevelSstDoesNotJoinAZoneOfUpperLevelData() {
    // Zone 0 holds L2-L3 data (LONG) and has room; the other zones are empty.
    ZoneTable zones =
        ZoneTable.builder(8, CAPACITY)
            .deviceLimits(14, 14)
            .zone(0, ZoneCondition.CLOSED, 100_000, WriteLifetime.LONG)
            .live(0, 100, 100_000)
            .build();
    // An L6 output while the base level is L6: RocksDB hints MEDIUM, as for a flush.
    AllocationRequest l6 = sst(6, WriteLifetime.MEDIUM);
    // LIZA takes the zone of longer lifetime than the hint: the L2-L3 data's.
    Allocation liza = new LizaPolicy().allocate(l6, zones);
    assertEquals(0, assertInstanceOf(Allocation.UseZone.class, liza).target(), liza.reason());
    // By its level the file outlives that data: LIZA's own rule opens a zone for it.
    Allocation mine = new LevelLifetimePolicy().allocate(l6, zones);
    Allocation.OpenEmptyZone open = assertInstanceOf(Allocation.OpenEmptyZone.class, mine);
    assertNotEquals(0, open.target(), mine.reason());
    assertEquals(WriteLifetime.EXTREME, open.lifetime(), mine.reason());
  }
}
