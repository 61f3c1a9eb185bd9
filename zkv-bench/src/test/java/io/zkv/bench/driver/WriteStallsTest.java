package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class WriteStallsTest {
  /**
   * The lines as RocksDB 9.7.3 prints them (rocksdb.dbstats, rocksdb.cfstats-no-file-histogram).
   */
  private static String dbStats(String cumulative) {
    return "\n** DB Stats **\nUptime(secs): 3.0 total, 3.0 interval\n"
        + "Cumulative writes: 20K writes, 20K keys, 20K commit groups, 1.0 writes per commit group\n"
        + "Cumulative stall: "
        + cumulative
        + " H:M:S, 60.4 percent\nInterval stall: 00:00:0.636 H:M:S, 60.7 percent\n";
  }

  private static String cfStats(int memtableStops, int l0Delays) {
    return "Write Stall (count): write-buffer-manager-limit-stops: 0\n"
        + "** Compaction Stats [default] **\n"
        + "Write Stall (count): cf-l0-file-count-limit-delays-with-ongoing-compaction: 0, "
        + "l0-file-count-limit-delays: "
        + l0Delays
        + ", l0-file-count-limit-stops: 0, memtable-limit-delays: 0, memtable-limit-stops: "
        + memtableStops
        + ", pending-compaction-bytes-delays: 0, total-delays: "
        + l0Delays
        + ", total-stops: "
        + memtableStops
        + "\n";
  }

  @Test
  void readsTheCumulativeStallAndTheCausesButNotTheTotals() {
    WriteStalls s = WriteStalls.parse(dbStats("01:02:3.250"), cfStats(21, 15));
    assertEquals(3600 + 120 + 3.25, s.seconds(), 1e-9);
    assertEquals(21L, s.counts().get("memtable-limit-stops"));
    assertEquals(15L, s.counts().get("l0-file-count-limit-delays"));
    assertEquals(0L, s.counts().get("write-buffer-manager-limit-stops"));
    assertEquals(null, s.counts().get("total-stops"));
  }

  @Test
  void aPhaseKeepsWhatHappenedInIt() {
    WriteStalls before = WriteStalls.parse(dbStats("00:00:0.500"), cfStats(3, 15));
    WriteStalls after = WriteStalls.parse(dbStats("00:00:2.000"), cfStats(7, 15));
    WriteStalls phase = after.since(before);
    assertEquals(1.5, phase.seconds(), 1e-9);
    assertEquals(Map.of("memtable-limit-stops", 4L), phase.counts());
  }

  @Test
  void anotherFormatIsRefusedNotReadAsNoStall() {
    assertThrows(
        IllegalArgumentException.class,
        () -> WriteStalls.parse("Cumulative stall: soon", cfStats(1, 1)));
    assertThrows(IllegalArgumentException.class, () -> WriteStalls.parse("", ""));
  }
}
