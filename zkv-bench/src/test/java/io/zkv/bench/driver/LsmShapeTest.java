package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.Compression;
import io.zkv.cli.Arguments;
import io.zkv.cli.Arguments.UsageException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rocksdb.CompactionPriority;
import org.rocksdb.CompressionType;
import org.rocksdb.Env;
import org.rocksdb.Options;

/** The LSM tree's shape: options and keys for both targets, what RocksDB gets, what reports say. */
class LsmShapeTest {
  private static final BenchSettings SETTINGS =
      new BenchSettings(
          List.of("fillrandom"), 1, 16, 100, 100, 1000, 0, 0, false, 4L << 20, 0, 1, 1, 1);

  private static Options rocksOptions(LsmShape lsm) {
    return SETTINGS.dbOptions(false, lsm).toRocksOptions(Env.getDefault());
  }

  @Test
  void whatIsSetReachesRocksDbAndTheRestIsRocksDbsDefault() {
    LsmShape lsm =
        LsmShape.DEFAULTS
            .with("target-file-size", "8M")
            .with("level-base", "32M")
            .with("dynamic-levels", "false")
            .with("compression", "zstd")
            .with("background-jobs", "4")
            .with("subcompactions", "2")
            .with("compaction-pri", "round-robin");
    try (Options o = rocksOptions(lsm)) {
      assertEquals(8L << 20, o.targetFileSizeBase());
      assertEquals(32L << 20, o.maxBytesForLevelBase());
      assertFalse(o.levelCompactionDynamicLevelBytes());
      assertEquals(CompressionType.ZSTD_COMPRESSION, o.compressionType());
      assertEquals(4, o.maxBackgroundJobs());
      assertEquals(2, o.maxSubcompactions());
      assertEquals(CompactionPriority.RoundRobin, o.compactionPriority());
      assertEquals(4L << 20, o.writeBufferSize(), "the other settings stay");
    }
    try (Options o = rocksOptions(LsmShape.DEFAULTS);
        Options rocks = new Options()) {
      assertEquals(rocks.targetFileSizeBase(), o.targetFileSizeBase());
      assertEquals(rocks.maxBytesForLevelBase(), o.maxBytesForLevelBase());
      assertEquals(rocks.levelCompactionDynamicLevelBytes(), o.levelCompactionDynamicLevelBytes());
      assertEquals(rocks.maxBackgroundJobs(), o.maxBackgroundJobs());
      assertEquals(rocks.maxSubcompactions(), o.maxSubcompactions());
      assertEquals(rocks.compactionPriority(), o.compactionPriority());
      assertEquals(CompressionType.SNAPPY_COMPRESSION, o.compressionType());
    }
    assertEquals(
        "LSM: target files 8 MiB, level base 32 MiB, dynamic levels off, ZSTD_COMPRESSION, 4"
            + " background jobs, 2 subcompactions, compaction priority round-robin",
        lsm.describe());
    assertEquals(
        " --target-file-size 8388608 --level-base 33554432 --dynamic-levels false --compression"
            + " zstd --background-jobs 4 --subcompactions 2 --compaction-pri round-robin",
        lsm.asOptions());
  }

  @Test
  void reportedSizesAreExact() {
    assertTrue(
        LsmShape.DEFAULTS.with("target-file-size", "100000").describe().contains("100000 bytes"));
    assertTrue(
        LsmShape.DEFAULTS.with("level-base", "96K").describe().contains("level base 96 KiB"));
  }

  @Test
  void theRecoverWorkloadsReopenKeepsTheShape() {
    LsmShape lsm = LsmShape.DEFAULTS.with("target-file-size", "2M");
    try (Options o =
        SETTINGS
            .dbOptions(false, lsm, r -> r.setAvoidFlushDuringRecovery(true))
            .toRocksOptions(Env.getDefault())) {
      assertEquals(2L << 20, o.targetFileSizeBase());
      assertTrue(o.avoidFlushDuringRecovery());
    }
  }

  @Test
  void badValuesAreRefusedNamingTheKeyAndTheRange() {
    String[][] bad = {
      {"target-file-size", "1K", "target-file-size must be a size from 64 KiB"},
      {"level-base", "lots", "level-base must be a size from 64 KiB"},
      {"dynamic-levels", "maybe", "dynamic-levels must be true or false"},
      {"compression", "gzip", "compression must be one of none, snappy, lz4, zstd"},
      {"background-jobs", "0", "background-jobs must be a whole number from 1 to 64"},
      {
        "compaction-pri",
        "key-order",
        "compaction-pri must be one of by-compensated-size, oldest-largest-seq-first,"
            + " oldest-smallest-seq-first, min-overlapping-ratio, round-robin, not 'key-order'"
      },
    };
    for (String[] b : bad) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> LsmShape.DEFAULTS.with(b[0], b[1]));
      assertTrue(e.getMessage().startsWith(b[2]), e.getMessage());
    }
  }

  @Test
  void globalOptionsAndConfigurationKeysForBothTargets() {
    BenchInvocation inv =
        BenchInvocation.parse(
            Arguments.of(
                "compare",
                "--target-file-size",
                "8M",
                "--compression",
                "lz4",
                "--config",
                "zkv:label=a",
                "--config",
                "zkv:target-file-size=16M,dynamic-levels=false,label=b",
                "--config",
                "rocksdb-default:background-jobs=4,label=c"));
    LsmShape a = inv.configs().get(0).lsm();
    LsmShape b = inv.configs().get(1).lsm();
    LsmShape c = inv.configs().get(2).lsm();
    assertEquals(new LsmShape(8L << 20, 0, null, Compression.LZ4, 0, 0, null), a);
    assertEquals(new LsmShape(16L << 20, 0, false, Compression.LZ4, 0, 0, null), b);
    assertEquals(new LsmShape(8L << 20, 0, null, Compression.LZ4, 4, 0, null), c);
    assertTrue(inv.configs().get(2).describe().contains("4 background jobs"));
    assertTrue(inv.configs().get(1).describe().contains("target files 16 MiB"));
    assertTrue(
        inv.commandLine().contains("--target-file-size 8388608 --compression lz4"),
        inv.commandLine());
    UsageException e =
        assertThrows(
            UsageException.class,
            () -> TargetConfig.parse("zkv:compression=gzip", SampleReports.defaults()));
    assertTrue(e.getMessage().startsWith("configuration 'zkv:compression=gzip': compression"));
    e =
        assertThrows(
            UsageException.class, () -> BenchInvocation.parse(Arguments.of("--level-base", "1")));
    assertTrue(e.getMessage().startsWith("--level-base: level-base must be"), e.getMessage());
  }
}
