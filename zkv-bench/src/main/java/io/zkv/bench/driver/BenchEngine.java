package io.zkv.bench.driver;

import io.zkv.cli.ScratchDir;
import io.zkv.cli.Versions;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs an invocation: every configuration in the alternating order of {@link Comparison#schedule},
 * each run on a fresh store; then writes {@code report.json}, {@code report.md} and the plots to
 * the output directory and prints the Markdown table.
 */
public final class BenchEngine {
  private BenchEngine() {}

  /** The output files of a finished invocation. */
  public record Outcome(
      BenchReport report, Path outDir, Path json, Path markdown, List<Path> plots) {}

  public static Outcome execute(BenchInvocation inv, PrintStream out) throws Exception {
    Instant started = Instant.now();
    Path outDir =
        inv.outDir() != null
            ? inv.outDir()
            : Path.of(
                System.getProperty("java.io.tmpdir"),
                "zkv-bench-"
                    + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)
                        .withZone(ZoneOffset.UTC)
                        .format(started));
    Files.createDirectories(outDir);
    boolean ownScratch = inv.scratchDir() == null;
    Path scratch =
        ownScratch ? ScratchDir.create("zkv-bench") : Files.createDirectories(inv.scratchDir());
    Progress progress = inv.progress() ? Progress.toStderr(true) : Progress.off();
    List<TargetConfig> configs = inv.configs();
    BenchSettings s = inv.settings();
    List<RunResult> runs = new ArrayList<>();
    try {
      for (Comparison.Slot slot : Comparison.schedule(configs.size(), s.repeat())) {
        TargetConfig c = configs.get(slot.config());
        RunResult run = ConfigRunner.run(c, s, slot.repeat() + 1, scratch, progress);
        runs.add(run);
        for (PhaseResult p : run.phases()) {
          out.printf(
              Locale.ROOT,
              "  %-24s #%d %-18s %,12.0f ops/s  %s%n",
              c.label(),
              run.repeat(),
              p.workload(),
              p.opsPerSecond(),
              latencyBrief(p));
        }
      }
    } finally {
      if (ownScratch) {
        RocksDefaultStore.deleteTree(scratch);
      }
    }
    List<String> environment =
        List.of(
            String.format(
                Locale.ROOT,
                "machine: %d cores, Java %s, %s %s",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                System.getProperty("os.name"),
                System.getProperty("os.version")),
            "scratch devices and databases in "
                + (ownScratch ? scratch.getParent() + " (tmpfs when /dev/shm exists)" : scratch));
    BenchReport report =
        new BenchReport(
            inv.commandLine(),
            started,
            s,
            configs,
            runs,
            Comparison.figures(configs.stream().map(TargetConfig::label).toList(), runs),
            environment,
            Versions.current());
    Path json = outDir.resolve("report.json");
    Files.writeString(json, JsonReport.render(report), StandardCharsets.UTF_8);
    String md = MarkdownReport.render(report);
    Path markdown = outDir.resolve("report.md");
    Files.writeString(markdown, md, StandardCharsets.UTF_8);
    List<Path> plots = inv.plots() ? Plots.write(report, outDir) : List.of();
    out.println();
    out.print(md);
    out.println();
    out.println("report: " + json + ", " + markdown);
    out.println(
        "plots:  "
            + outDir
            + "/{latency,throughput,write-p99}-<workload>.png ("
            + plots.size()
            + " files)");
    return new Outcome(report, outDir, json, markdown, plots);
  }

  private static String latencyBrief(PhaseResult p) {
    StringBuilder b = new StringBuilder();
    p.latency()
        .forEach(
            (op, l) ->
                b.append(
                    String.format(
                        Locale.ROOT,
                        "%s p50 %s p99 %s us  ",
                        op,
                        MarkdownReport.fmt(l.p50Us()),
                        MarkdownReport.fmt(l.p99Us()))));
    return b.toString().trim();
  }
}
