package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments;
import io.zkv.cli.Arguments.UsageException;
import io.zkv.cli.Zkv;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchInvocationTest {
  private static BenchInvocation parse(String... args) {
    return BenchInvocation.parse(Arguments.of(args));
  }

  private static String error(String... args) {
    return assertThrows(UsageException.class, () -> parse(args)).getMessage();
  }

  @Test
  void aProfileBringsItsDefaultGeometryUnlessTheConfigurationSetsOne() {
    BenchInvocation inv =
        parse(
            "compare",
            "--config",
            "zkv:profile=zn540",
            "--config",
            "zkv:profile=zn540,geometry=caza",
            "--config",
            "zkv:profile=confzns,zone-cap=16M");
    TargetConfig zn540 = inv.configs().get(0);
    assertEquals(64L << 20, zn540.zoneSize()); // 2,048 MiB / 32
    assertEquals(35_291_136L, zn540.zoneCapacity()); // 1,077 / 2,048 of it
    assertEquals(14, zn540.deviceGeometry().maxActive());
    TargetConfig caza = inv.configs().get(1);
    assertEquals(32L << 20, caza.zoneSize());
    assertEquals(32L << 20, caza.zoneCapacity());
    assertEquals(0, caza.deviceGeometry().maxActive());
    assertEquals(0, caza.deviceGeometry().maxOpen());
    TargetConfig confzns = inv.configs().get(2);
    assertEquals(64L << 20, confzns.zoneSize());
    assertEquals(16L << 20, confzns.zoneCapacity());
    assertEquals(4L << 20, confzns.deviceGeometry().zasl());
    assertTrue(error("--config", "zkv:geometry=nope").contains("unknown geometry"));
  }

  @Test
  void defaultsAreOneZkvConfigurationOnTheInstantProfile() {
    BenchInvocation inv = parse();
    assertFalse(inv.compare());
    assertEquals(1, inv.configs().size());
    TargetConfig c = inv.configs().get(0);
    assertEquals(TargetConfig.Target.ZKV, c.target());
    assertEquals("instant", c.profile());
    assertEquals(64, c.zones());
    assertEquals(64L << 20, c.zoneSize());
    assertEquals(48L << 20, c.zoneCapacity());
    assertEquals("liza", c.placement());
    assertFalse(c.sync());
    BenchSettings s = inv.settings();
    assertEquals(List.of("fillrandom", "readrandom"), s.workloads());
    assertEquals(1, s.threads());
    assertEquals(16, s.keySize());
    assertEquals(100, s.valueSize());
    assertEquals(100_000, s.keys());
    assertEquals(100_000, s.opsOfReadOnlyPhase(), "db_bench's default: --reads/--num = keys");
    assertEquals(100_000, s.opsOfWritingPhase());
    assertEquals(1, s.repeat());
    assertEquals(0, s.bloomBitsPerKey(), "RocksDB's default table: no Bloom filter");
    assertFalse(inv.commandLine().contains("--bloom-bits"), inv.commandLine());
    assertNull(inv.outDir());
  }

  @Test
  void globalOptionsAreTheDefaultsOfEachConfiguration() {
    BenchInvocation inv =
        parse(
            "compare",
            "--config",
            "zkv:profile=zn540,zones=32,zone-cap=32M",
            "--config",
            "rocksdb-default:sync=true,label=rocks",
            "--config",
            "zkv",
            "--profile",
            "pm1731a",
            "--zone-size",
            "128M",
            "--threads",
            "4",
            "--duration",
            "2.5",
            "--distribution",
            "zipfian",
            "--bloom-bits",
            "10",
            "--workload",
            "ycsb-a, mixed70 ,mixgraph");
    assertTrue(inv.compare());
    assertEquals(3, inv.settings().repeat(), "compare repeats 3 times unless told");
    TargetConfig a = inv.configs().get(0);
    assertEquals("zkv:profile=zn540,zones=32,zone-cap=32M", a.label());
    assertEquals("zn540", a.profile());
    assertEquals(32, a.zones());
    assertEquals(128L << 20, a.zoneSize());
    assertEquals(32L << 20, a.zoneCapacity());
    TargetConfig b = inv.configs().get(1);
    assertEquals("rocks", b.label());
    assertEquals(TargetConfig.Target.ROCKSDB_DEFAULT, b.target());
    assertTrue(b.sync());
    assertEquals("pm1731a", inv.configs().get(2).profile());
    // a zone size given without a capacity: the profile's ratio (PM1731a: capacity = size)
    assertEquals(128L << 20, inv.configs().get(2).zoneCapacity());
    assertEquals(List.of("ycsb-a", "mixed70", "mixgraph"), inv.settings().workloads());
    assertEquals(2.5, inv.settings().durationSeconds());
    assertEquals(
        Long.MAX_VALUE, inv.settings().opsOfReadOnlyPhase(), "a duration alone: reads uncapped");
    assertEquals(
        inv.settings().keys(),
        inv.settings().opsOfWritingPhase(),
        "phases that write are not limited by time (state parity)");
    List<PhaseSpec> ycsbA = WorkloadCatalog.phases("ycsb-a", inv.settings());
    assertFalse(ycsbA.get(1).timeLimited(), "YCSB A's run writes: limited by count");
    assertTrue(WorkloadCatalog.phases("ycsb-c", inv.settings()).get(1).timeLimited(), "C reads");
    assertFalse(WorkloadCatalog.phases("fillrandom", inv.settings()).get(0).timeLimited());
    assertTrue(WorkloadCatalog.phases("mixed0", inv.settings()).get(0).timeLimited());
    assertTrue(inv.settings().zipfian());
    assertEquals(10, inv.settings().bloomBitsPerKey());
    assertTrue(inv.commandLine().contains(" --bloom-bits 10 "), inv.commandLine());
    assertTrue(inv.commandLine().startsWith("zkv bench compare --config zkv:profile=zn540"));
    // The printed command line repeats the run exactly.
    BenchInvocation again = parse(inv.commandLine().substring("zkv bench ".length()).split(" "));
    assertEquals(inv.configs(), again.configs());
    assertEquals(inv.settings(), again.settings());
    assertEquals(inv.defaults(), again.defaults());
  }

  @Test
  void badCommandLinesAreRefusedWithSpecificMessages() {
    assertTrue(error("compare", "--config", "zkv").contains("two or more --config"));
    assertTrue(error("compare").contains("two or more --config"));
    assertTrue(error("frobnicate").contains("unknown mode 'frobnicate'"));
    assertTrue(error("--target", "zkv", "--config", "zkv").contains("either --target or --config"));
    assertTrue(error("--target", "leveldb").contains("unknown target 'leveldb'"));
    assertTrue(
        error("--config", "rocksdb-default:profile=zn540").contains("rocksdb-default takes"));
    assertTrue(error("--config", "zkv:colour=red").contains("unknown key 'colour'"));
    assertTrue(error("--config", "zkv:zones").contains("expected key=value"));
    assertTrue(error("--config", "zkv:zones=many").contains("zones needs a number"));
    assertTrue(error("--config", "zkv:zone-cap=128M").contains("exceeds zone size"));
    assertTrue(error("--profile", "warp").contains("unknown timing profile 'warp'"));
    assertTrue(error("--placement", "best").contains("unknown placement 'best'"));
    assertTrue(error("--workload", "fillrandom,teleport").contains("unknown workload 'teleport'"));
    assertTrue(error("--workload", "mixed150").contains("0..100"));
    assertTrue(error("--workload", ",").contains("names no workload"));
    assertTrue(error("--distribution", "pareto").contains("uniform or zipfian"));
    assertTrue(error("--threads", "0").contains("--threads must be between 1 and 256"));
    assertTrue(error("--duration", "soon").contains("--duration needs a number"));
    assertTrue(error("--bogus", "1").contains("unknown option --bogus"));
    assertTrue(
        error("compare", "--config", "zkv", "--config", "zkv").contains("labelled 'zkv'"),
        "two identical configurations cannot be told apart in the report");
  }

  @Test
  void theCommandLineReportsUsageErrorsWithExitCode2() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        Zkv.run(
            new String[] {"bench", "compare", "--config", "zkv"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, rc);
    String e = err.toString(StandardCharsets.UTF_8);
    assertTrue(e.contains("zkv bench: compare needs two or more --config"), e);
    assertTrue(e.contains("usage: zkv bench [compare]"), e);
    assertTrue(
        e.lines()
            .filter(l -> l.startsWith("usage:") || l.startsWith("         "))
            .allMatch(l -> l.length() <= 100),
        "the synopsis is wrapped as in --help:\n" + e);
    rc =
        Zkv.run(
            new String[] {"demo", "--seconds", "0"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, rc);
  }
}
