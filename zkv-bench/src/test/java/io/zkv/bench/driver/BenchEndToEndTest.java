package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
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
        List.of("zkv:zones=64", "rocksdb-default", "rocksdb-default", "zkv:zones=64"),
        r.runs().stream().map(RunResult::config).toList(),
        "alternating A B, B A");
    assertEquals(
        List.of(), Comparison.parityProblems(r.runs()), "every run wrote the same keys per phase");
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
      assertEquals(
          List.of(), withoutShapes(run.notes()), "fillseq populated the database: no prefill");
      boolean zkv = run.config().startsWith("zkv");
      for (PhaseResult p : run.phases()) {
        if (p.writes() > 0) {
          assertShapeNote(run, p.workload());
          assertZoneLevelsNote(run, p.workload(), zkv);
        }
      }
      for (PhaseResult p : run.phases()) {
        long counted = p.latency().values().stream().mapToLong(LatencyStats::count).sum();
        if (p.workload().equals("readwhilewriting")) {
          // how many reads the readers got in while the writer wrote is the host's (none if
          // they never ran before it finished): PhaseRunnerTest makes them overlap
          assertEquals(reads(p), p.ops(), "ops/s counts the readers only");
          assertEquals(KEYS, p.writerOps(), "the writer writes --ops (= keys)");
        } else {
          assertEquals(KEYS, p.ops(), run.config() + " " + p.workload());
          assertEquals(0, p.writerOps());
        }
        assertEquals(
            p.ops() + p.writerOps(), counted, "every operation has a latency: " + p.workload());
        assertTrue(p.ops() == 0 || p.opsPerSecond() > 0);
        assertTrue(p.ops() == 0 || p.timeline().length >= 1);
        for (LatencyStats l : p.latency().values()) {
          assertTrue(l.p50Us() <= l.p99Us() && l.p99Us() <= l.maxUs(), l.toString());
          assertTrue(l.avgUs() > 0, l.toString());
        }
        // Both targets run RocksDB: its stall statistics parse (another format would throw).
        assertNotNull(p.writeStalls(), p.workload());
        assertTrue(p.writeStalls().seconds() >= 0 && p.writeStalls().seconds() <= p.seconds());
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
    // 3000 x 116 B written through 256 KiB memtables, then settled: the memtable is flushed, so
    // the fill's device bytes hold all its data, and the read-only phase after it writes nothing.
    DeviceFigures fill = r.runs().get(0).phases().get(0).device();
    assertTrue(fill.hostBytes() > 0 && fill.writeAmplification() >= 1, fill.toString());
    DeviceFigures read = r.runs().get(0).phases().get(1).device();
    assertEquals(0, read.hostBytes(), "the fill settled before readrandom: " + read);
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
  void aReadingWorkloadIsPrecededByAnUnmeasuredFillAndTheBackgroundWriterIsMeasuredApart(
      @TempDir Path tmp) throws Exception {
    BenchEngine.Outcome o =
        runQuietly(
            tmp,
            "--target",
            "zkv",
            "--workload",
            "readwhilewriting",
            "--distribution",
            "zipfian",
            "--keys",
            "2000",
            "--duration",
            "0.3");
    BenchReport r = o.report();
    RunResult run = r.runs().get(0);
    assertEquals(
        List.of("unmeasured fillseq of 2,000 keys before readwhilewriting"),
        withoutShapes(run.notes()));
    assertShapeNote(run, "readwhilewriting");
    PhaseResult read = run.phases().get(0);
    // The readers stop at the duration or with the writer, whichever comes first, and not
    // before: how much later is the host's. (Whether they got a read in before then is the
    // host's too; PhaseRunnerTest makes them overlap.)
    assertTrue(
        read.seconds() >= Math.min(0.3, read.writerSeconds()) - 1e-9,
        read.seconds() + " s, the writer's " + read.writerSeconds() + " s");
    System.out.printf(
        "readwhilewriting, 0.3 s: the readers stopped after %.3f s with %d reads, the writer's"
            + " 2,000 writes took %.3f s%n",
        read.seconds(), read.ops(), read.writerSeconds());
    assertEquals(2000, read.writerOps(), "the writer always completes its writes (parity)");
    assertEquals(2000, read.latency().get("WRITE").count(), "the background writer is measured");
    assertEquals(reads(read), read.ops(), "ops are the readers'");
    String md = Files.readString(o.markdown());
    assertTrue(md.contains("readwhilewriting #1: the background writer did 2,000 writes at "), md);
  }

  /** The phase's reads: none recorded if no reader got one in. */
  private static long reads(PhaseResult p) {
    LatencyStats l = p.latency().get("READ");
    return l == null ? 0 : l.count();
  }

  @Test
  void aDeviceUriRunStatesTheGeometryReadFromTheDevice(@TempDir Path tmp) throws Exception {
    Path file = tmp.resolve("dev.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(20, 64L << 20, 40L << 20, 14, 14, 1 << 20));
    BenchEngine.Outcome o =
        runQuietly(
            tmp,
            "--config",
            "zkv:device=" + EmulatedDevice.uri(file, "instant"),
            "--workload",
            "overwrite",
            "--keys",
            "500");
    List<String> notes = o.report().runs().get(0).notes();
    assertEquals(
        "unmeasured fillseq of 500 keys before overwrite", notes.get(1), "overwrite overwrites");
    assertTrue(notes.get(0).contains("20 zones x 64 MiB (capacity 40 MiB)"), notes.toString());
    assertTrue(Files.readString(o.markdown()).contains("20 zones x 64 MiB"));
  }

  @Test
  void recoverLeavesItsWritesInTheWalAndMeasuresTheReopenInParts(@TempDir Path tmp)
      throws Exception {
    BenchEngine.Outcome o =
        runQuietly(
            tmp,
            "--config",
            "zkv:wal=file,wal-buffer=4K,label=file",
            "--config",
            "zkv:wal=zwal,wal-buffer=4K,wal-qd=8,label=zwal",
            "--config",
            "rocksdb-default:label=posix",
            "--workload",
            "recover",
            "--keys",
            "1500",
            "--value-size",
            "4000",
            "--write-buffer",
            "64M");
    for (RunResult run : o.report().runs()) {
      assertEquals(2, run.phases().size(), run.config());
      PhaseResult write = run.phases().get(0);
      PhaseResult reopen = run.phases().get(1);
      assertEquals("recover-write", write.workload());
      assertEquals(1500, write.writes());
      assertEquals("recover", reopen.workload());
      RecoveryFigures r = reopen.recovery();
      assertTrue(r != null && r.seconds() > 0, run.config() + ": " + r);
      // fillrandom's distinct keys, all back after the crash-like reopen (checked by the store too)
      assertTrue(r.entries() > 900 && r.entries() <= 1500, run.config() + ": " + r);
      assertTrue(r.walBytes() >= 1000L * 4000, "the writes are still in the WAL: " + r);
      assertTrue(r.flushSeconds() > 0, run.config() + ": " + r);
      if (!run.config().equals("posix")) {
        // the power cut left the WAL's last chunks unrecorded: the mount found them by scanning
        assertTrue(r.chunks() > 0 && r.chunkBytes() > 0 && r.chunkReads() > 0, r.toString());
        assertTrue(r.mountSeconds() >= r.chunkScanSeconds(), r.toString());
        assertTrue(r.replayReads() > 0 && r.replayReadBytes() >= r.walBytes() / 2, r.toString());
        // read ahead: far fewer device reads than 4 KiB chunks
        assertTrue(r.replayReads() < r.walBytes() / 4096 / 4, r.toString());
      }
    }
    String md = Files.readString(o.markdown());
    assertTrue(md.contains("recovery s") && md.contains("flush after replay s"), md);
    String json = Files.readString(o.json());
    assertTrue(json.contains("\"recovery\": {\"seconds\": "), json);
    JsonSyntax.check(json);
  }

  /** Runs {@code zkv bench} with these options, output in {@code tmp}, no progress, no plots. */
  private static BenchEngine.Outcome runQuietly(Path tmp, String... options) throws Exception {
    List<String> all = new java.util.ArrayList<>(List.of(options));
    all.addAll(
        List.of(
            "--out",
            tmp.resolve("out").toString(),
            "--dir",
            tmp.resolve("scratch").toString(),
            "--progress",
            "false",
            "--plots",
            "false"));
    BenchInvocation inv = BenchInvocation.parse(Arguments.of(all.toArray(String[]::new)));
    return BenchEngine.execute(
        inv, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }

  private static final java.util.regex.Pattern SHAPE =
      java.util.regex.Pattern.compile(
          ".+ #\\d+ after (\\S+): LSM files per level L0-L6 \\d+(/\\d+){6}");

  /** The notes without the LSM shape's and the zones by level (asserted apart). */
  private static List<String> withoutShapes(List<String> notes) {
    return notes.stream()
        .filter(n -> !n.contains("LSM files per level") && !n.contains(": zones by level "))
        .toList();
  }

  /**
   * After a phase that wrote, a zkv run's notes give its zones by the level of their data, and a
   * run without zones none.
   */
  private static void assertZoneLevelsNote(RunResult run, String phase, boolean zoned) {
    String prefix = " after " + phase + ": zones by level ";
    assertEquals(
        zoned ? 1 : 0,
        run.notes().stream().filter(n -> n.contains(prefix)).count(),
        run.config() + " " + phase + ": " + run.notes());
  }

  /** After a phase that wrote, the run's notes give the LSM shape RocksDB reports (7 levels). */
  private static void assertShapeNote(RunResult run, String phase) {
    assertTrue(
        run.notes().stream()
            .map(SHAPE::matcher)
            .anyMatch(m -> m.matches() && m.group(1).equals(phase)),
        run.config() + " " + phase + ": " + run.notes());
  }
}
