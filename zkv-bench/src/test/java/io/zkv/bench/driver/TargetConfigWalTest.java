package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments.UsageException;
import io.zkv.wal.WalOptions;
import org.junit.jupiter.api.Test;

/**
 * The {@code wal-buffer} key: the WAL's write-out size on zkv, refused elsewhere and out of range.
 */
class TargetConfigWalTest {
  @Test
  void walBufferSetsTheWalOptions() {
    TargetConfig c = TargetConfig.parse("zkv:wal-buffer=4K", SampleReports.defaults());
    assertEquals(WalOptions.withBuffer(4096), c.wal());
    assertTrue(c.describe().contains(", WAL FILE buffer 4 KiB"), c.describe());
    TargetConfig plain = TargetConfig.parse("zkv", SampleReports.defaults());
    assertEquals(WalOptions.defaults(), plain.wal());
    TargetConfig z =
        TargetConfig.parse(
            "zkv:wal=zwal,wal-buffer=8K,wal-qd=16,wal-barrier=64K", SampleReports.defaults());
    assertEquals(
        WalOptions.builder()
            .mode(io.zkv.wal.WalMode.ZWAL)
            .buffer(8192)
            .queueDepth(16)
            .barrier(65536)
            .reservedZones(0) // ZWAL's paper ran without a reserve
            .build(),
        z.wal());
    assertTrue(z.describe().contains(", WAL ZWAL buffer 8 KiB QD 16 barrier 64 KiB"), z.describe());
  }

  @Test
  void walModesOfWaltzsAblationCarryTheirReserve() {
    WalOptions file = TargetConfig.parse("zkv:wal=file", SampleReports.defaults()).wal();
    assertEquals(io.zkv.wal.WalMode.FILE, file.mode());
    assertEquals(0, file.reservedZones()); // ZenFS's
    WalOptions r = TargetConfig.parse("zkv:wal=file+r", SampleReports.defaults()).wal();
    assertEquals(io.zkv.wal.WalMode.FILE, r.mode());
    assertEquals(2, r.reservedZones());
    TargetConfig ra = TargetConfig.parse("zkv:wal=file+r+a", SampleReports.defaults());
    assertEquals(io.zkv.wal.WalMode.ZWAL, ra.wal().mode());
    assertEquals(1, ra.wal().queueDepth());
    assertEquals(2, ra.wal().reservedZones());
    assertTrue(ra.describe().contains("QD 1, 2 reserved WAL zones"), ra.describe());
    // the keys after or before the mode win over its defaults
    WalOptions qd =
        TargetConfig.parse("zkv:wal-qd=4,wal=file+r+a,wal-reserve=3", SampleReports.defaults())
            .wal();
    assertEquals(4, qd.queueDepth());
    assertEquals(3, qd.reservedZones());
    assertEquals(
        0, TargetConfig.parse("zkv:wal-reserve=0", SampleReports.defaults()).wal().reservedZones());
    assertEquals(2, TargetConfig.parse("zkv", SampleReports.defaults()).wal().reservedZones());
    TargetConfig waltz = TargetConfig.parse("zkv:wal=waltz", SampleReports.defaults());
    assertTrue(waltz.waltz());
    assertEquals(0, waltz.wal().reservedZones()); // RocksDB writes no WAL file in WALTZ mode
    assertEquals(
        io.zkv.wal.WalMode.WALTZ,
        waltz.withWalMode(io.zkv.ZkvOptions.defaults()).walMode().orElseThrow());
    assertTrue(waltz.describe().contains("WAL WALTZ"), waltz.describe());
    UsageException bad =
        assertThrows(
            UsageException.class,
            () -> TargetConfig.parse("zkv:wal=file+x", SampleReports.defaults()));
    assertTrue(
        bad.getMessage().contains("file, file+r, file+r+a, zwal or waltz"), bad.getMessage());
    assertThrows(
        UsageException.class,
        () -> TargetConfig.parse("zkv:wal-reserve=9", SampleReports.defaults()));
  }

  @Test
  void walBufferOutOfRangeOrOnTheDefaultEnvIsRefused() {
    for (String bad :
        new String[] {"zkv:wal-buffer=2K", "zkv:wal-buffer=2M", "zkv:wal-buffer=5000"}) {
      UsageException e =
          assertThrows(
              UsageException.class, () -> TargetConfig.parse(bad, SampleReports.defaults()));
      assertTrue(
          e.getMessage().contains("wal-buffer") || e.getMessage().contains("WAL buffer"),
          e.getMessage());
    }
    UsageException e =
        assertThrows(
            UsageException.class,
            () -> TargetConfig.parse("rocksdb-default:wal-buffer=4K", SampleReports.defaults()));
    assertTrue(e.getMessage().contains("not wal-buffer"), e.getMessage());
  }

  @Test
  void writeBehindIsOnUnlessTurnedOffAndOnlyForZkv() {
    assertTrue(TargetConfig.parse("zkv", SampleReports.defaults()).writeBehind());
    TargetConfig off = TargetConfig.parse("zkv:write-behind=false", SampleReports.defaults());
    assertEquals(false, off.writeBehind());
    assertTrue(off.describe().contains("SST writes synchronous"), off.describe());
    assertTrue(
        !TargetConfig.parse("zkv", SampleReports.defaults()).describe().contains("SST writes"));
    assertThrows(
        UsageException.class,
        () -> TargetConfig.parse("zkv:write-behind=maybe", SampleReports.defaults()));
    UsageException e =
        assertThrows(
            UsageException.class,
            () ->
                TargetConfig.parse("rocksdb-default:write-behind=false", SampleReports.defaults()));
    assertTrue(e.getMessage().contains("not write-behind"), e.getMessage());
  }
}
