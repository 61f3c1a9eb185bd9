package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Short real runs on the {@code instant} profile and RocksJava's default Env. */
class BenchEndToEndTest {
  private static final long KEYS = 3000;

  @Test
  void compareRunsEveryWorkloadOnBothTargets(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("out");
    Path scratch = tmp.resolve("scratch");
    BenchInvocation inv =
        BenchInvocation.parse(
            Arguments.of(
                "compare",
                "--config",
                "zkv:zones=64",
                "--config",
                "rocksdb-default",
                "--workload",
                "fillseq,readrandom,overwrite,readwhilewriting,mixed30,ycsb-a,ycsb-e,mixgraph",
                "--keys",
                Long.toString(KEYS),
                "--threads",
                "2",
                "--repeat",
                "2",
                "--write-buffer",
                "256K",
                "--out",
                out.toString(),
                "--dir",
                scratch.toString(),
                "--progress",
                "false",
                // Plots are tested without -Xcheck:jni (PlotsTest): the JDK's font code warns.
                "--plots",
                "false"));
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    BenchEngine.Outcome o =
        BenchEngine.execute(inv, new PrintStream(text, true, StandardCharsets.UTF_8));
    BenchReport r = o.report();

    assertEquals(
        List.of("zkv:zones=64", "rocksdb-default", "zkv:zones=64", "rocksdb-default"),
        r.runs().stream().map(RunResult::config).toList(),
        "interleaved ABAB");
    List<String> phases =
        List.of(
            "fillseq",
            "readrandom",
            "overwrite",
            "readwhilewriting",
            "mixed30",
            "ycsb-a-load",
            "ycsb-a-run",
            "ycsb-e-load",
            "ycsb-e-run",
            "mixgraph");
    for (RunResult run : r.runs()) {
      assertEquals(phases, run.phases().stream().map(PhaseResult::workload).toList());
      assertEquals(List.of(), run.notes(), "fillseq populated the database: no prefill");
      boolean zkv = run.config().startsWith("zkv");
      for (PhaseResult p : run.phases()) {
        long counted = p.latency().values().stream().mapToLong(LatencyStats::count).sum();
        if (p.workload().equals("readwhilewriting")) {
          assertTrue(p.ops() >= KEYS, p.workload() + ": readers' ops plus the writer's");
        } else {
          assertEquals(KEYS, p.ops(), run.config() + " " + p.workload());
        }
        assertEquals(p.ops(), counted, "every operation has a latency: " + p.workload());
        assertTrue(p.opsPerSecond() > 0);
        assertTrue(p.timeline().length >= 1);
        for (LatencyStats l : p.latency().values()) {
          assertTrue(l.p50Us() <= l.p99Us() && l.p99Us() <= l.maxUs(), l.toString());
          assertTrue(l.avgUs() > 0, l.toString());
        }
        if (zkv) {
          assertNotNull(p.device(), p.workload());
        } else {
          assertNull(p.device(), p.workload());
        }
      }
    }
    Map<String, LatencyStats> ycsbA = r.runs().get(0).phases().get(6).latency();
    assertEquals(List.of("READ", "UPDATE"), List.copyOf(ycsbA.keySet()));
    double updateShare = ycsbA.get("UPDATE").count() / (double) KEYS;
    assertEquals(0.5, updateShare, 0.05, "YCSB A is half updates");
    assertTrue(r.runs().get(0).phases().get(8).latency().containsKey("SCAN"), "YCSB E scans");
    // 3000 x 116 B written through 256 KiB memtables: flushes reach the device.
    DeviceFigures fill = r.runs().get(0).phases().get(0).device();
    assertTrue(fill.hostBytes() > 0 && fill.writeAmplification() > 0, fill.toString());
    assertTrue(fill.zonesUsed() > 0 && fill.zonesUsed() <= fill.dataZones(), fill.toString());

    assertTrue(Files.isRegularFile(o.json()));
    JsonSyntax.check(Files.readString(o.json()));
    assertTrue(Files.readString(o.markdown()).contains("rocksdb-default / zkv:zones=64"));
    assertEquals(List.of(), o.plots());
    String printed = text.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("| ops/s "), printed);
    assertTrue(printed.contains("report: " + out), printed);
    try (Stream<Path> left = Files.list(scratch)) {
      assertEquals(List.of(), left.toList(), "scratch devices and databases are deleted");
    }
  }

  @Test
  void aReadingWorkloadIsPrecededByAnUnmeasuredFillAndTheBackgroundWriterIsMeasured(
      @TempDir Path tmp) throws Exception {
    BenchInvocation inv =
        BenchInvocation.parse(
            Arguments.of(
                "--target",
                "zkv",
                "--workload",
                "readwhilewriting",
                "--distribution",
                "zipfian",
                "--keys",
                "2000",
                "--duration",
                "0.3",
                "--out",
                tmp.resolve("out").toString(),
                "--dir",
                tmp.resolve("scratch").toString(),
                "--progress",
                "false",
                "--plots",
                "false"));
    BenchReport r =
        BenchEngine.execute(
                inv, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
            .report();
    RunResult run = r.runs().get(0);
    assertEquals(List.of("unmeasured fillseq of 2,000 keys before readwhilewriting"), run.notes());
    PhaseResult read = run.phases().get(0);
    assertTrue(read.seconds() >= 0.3 && read.seconds() < 5, "time-limited: " + read.seconds());
    assertTrue(read.ops() > 2000, "a duration alone is not capped by the key count: " + read.ops());
    assertTrue(read.latency().get("WRITE").count() > 0, "the background writer is measured");
    assertTrue(read.latency().get("READ").count() > 0);
  }
}
