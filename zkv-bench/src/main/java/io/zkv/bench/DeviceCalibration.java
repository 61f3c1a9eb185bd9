package io.zkv.bench;

import io.zkv.bench.FioLikeRun.Op;
import io.zkv.bench.FioLikeRun.Result;
import io.zkv.cli.Arguments;
import io.zkv.cli.Option;
import io.zkv.cli.ScratchDir;
import io.zkv.cli.ZkvCommand;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ProfileGeometry;
import io.zkv.device.ZonedDevice;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code zkv calibrate}: runs the fio configurations behind the papers' device tables on the
 * emulator's timing profiles and prints measured next to published figures, with the shape checks
 * the WAL papers rely on. {@code --out FILE} also writes the Markdown report.
 */
public final class DeviceCalibration implements ZkvCommand {
  /**
   * A published fio figure (notes/wal-papers-waltz-zwal.md section 4.4 and WALTZ section 2); NaN
   * where the paper gives none (the 32 and 64 KiB rows check the "similar" statements by shape).
   */
  record Paper(
      String profile, Op op, int bs, int qd, double iops, double meanMicros, double p99Micros) {}

  private static final double NONE = Double.NaN;

  static final List<Paper> PAPER =
      List.of(
          new Paper("zn540", Op.APPEND, 8192, 1, 56_397, 16.8, 20),
          new Paper("zn540", Op.APPEND, 8192, 2, 105_974, 18.1, 24),
          new Paper("zn540", Op.APPEND, 8192, 4, 149_470, 26.0, 77),
          new Paper("zn540", Op.APPEND, 8192, 8, 149_429, 52.8, 293),
          new Paper("zn540", Op.APPEND, 8192, 16, 149_469, 106.3, 489),
          new Paper("zn540", Op.WRITE, 8192, 1, 62_044, 15.0, 18),
          new Paper("zn540", Op.APPEND, 4096, 1, 50_854, 18.6, 21),
          new Paper("zn540", Op.APPEND, 4096, 4, 134_275, 28.6, 40),
          new Paper("zn540", Op.APPEND, 4096, 16, 135_574, 117.3, 140),
          new Paper("zn540", Op.WRITE, 4096, 1, 62_979, 14.7, 18),
          new Paper("zn540", Op.APPEND, 65536, 1, NONE, NONE, NONE),
          new Paper("zn540", Op.WRITE, 65536, 1, NONE, NONE, NONE),
          new Paper("confzns", Op.APPEND, 8192, 1, 2_067, 482.6, 485),
          new Paper("confzns", Op.APPEND, 8192, 2, 4_136, 481.8, 485),
          new Paper("confzns", Op.APPEND, 8192, 4, 6_420, 621.7, 872),
          new Paper("confzns", Op.APPEND, 8192, 8, 12_396, 643.7, 913),
          new Paper("confzns", Op.APPEND, 8192, 16, 23_532, 678.5, 881),
          new Paper("confzns", Op.APPEND, 8192, 32, 35_554, 898.6, 1303),
          new Paper("confzns", Op.APPEND, 8192, 64, 35_552, 1798.6, 2277),
          new Paper("confzns", Op.WRITE, 8192, 1, 2_064, 482.5, NONE),
          new Paper("confzns", Op.APPEND, 65536, 1, NONE, NONE, NONE),
          new Paper("confzns", Op.WRITE, 65536, 1, NONE, NONE, NONE),
          new Paper("pm1731a", Op.APPEND, 4096, 1, 1e6 / 93, 93, NONE),
          // WALTZ's question to the model (docs/wal.md): four writers' own 4 KiB appends to one
          // zone against one group-commit writer's 16 KiB writes
          new Paper("pm1731a", Op.APPEND, 4096, 4, NONE, NONE, NONE),
          new Paper("pm1731a", Op.WRITE, 16384, 1, NONE, NONE, NONE));

  /** A row of the table: profile, operation, block size, queue depth. */
  record Key(String profile, Op op, int bs, int qd) {}

  /**
   * A claim about the model: a figure (mean or P99) of row {@code a} over the same of {@code b}.
   */
  record ModelClaim(String claim, double paper, Key a, Key b, boolean p99, double tolerance) {}

  static final List<ModelClaim> MODEL_CLAIMS =
      List.of(
          new ModelClaim(
              "ConfZNS 8 KiB: append mean QD2 / QD1 (flat)",
              481.8 / 482.6,
              new Key("confzns", Op.APPEND, 8192, 2),
              new Key("confzns", Op.APPEND, 8192, 1),
              false,
              0.02),
          new ModelClaim(
              "ConfZNS 8 KiB: append mean QD4 / QD2 (the step)",
              621.7 / 481.8,
              new Key("confzns", Op.APPEND, 8192, 4),
              new Key("confzns", Op.APPEND, 8192, 2),
              false,
              0.10),
          new ModelClaim(
              "ZN540 8 KiB: append P99 QD8 / QD4 (the tail grows at saturation)",
              293.0 / 77,
              new Key("zn540", Op.APPEND, 8192, 8),
              new Key("zn540", Op.APPEND, 8192, 4),
              true,
              0.25),
          new ModelClaim(
              "ZN540: 4 KiB append P99 QD16 / 8 KiB append P99 QD16 (4 KiB keeps a short tail)",
              140.0 / 489,
              new Key("zn540", Op.APPEND, 4096, 16),
              new Key("zn540", Op.APPEND, 8192, 16),
              true,
              0.25),
          new ModelClaim(
              "ConfZNS 8 KiB: append P99 QD64 / QD4",
              2277.0 / 872,
              new Key("confzns", Op.APPEND, 8192, 64),
              new Key("confzns", Op.APPEND, 8192, 4),
              true,
              0.25),
          new ModelClaim(
              "ZN540 64 KiB: write / append mean QD1 (\"similar\" from 32 KiB)",
              1.0,
              new Key("zn540", Op.WRITE, 65536, 1),
              new Key("zn540", Op.APPEND, 65536, 1),
              false,
              0.02),
          new ModelClaim(
              "ConfZNS 64 KiB: write / append mean QD1 (\"similar\" from 32 KiB)",
              1.0,
              new Key("confzns", Op.WRITE, 65536, 1),
              new Key("confzns", Op.APPEND, 65536, 1),
              false,
              0.02));

  /** Zones of each profile's device (its default geometry, {@link ProfileGeometry}). */
  static final int ZONES = 16;

  @Override
  public String name() {
    return "calibrate";
  }

  @Override
  public String summary() {
    return "measure the emulator's timing profiles against the papers' fio tables (and plm's"
        + " windows against Vigil-KV)";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.of("seconds", "S", "2", "seconds per measured row (1-600)"),
        Option.of(
            "profiles",
            "LIST",
            "zn540,confzns,pm1731a",
            "profiles to calibrate; add plm for its windows"),
        Option.of("out", "FILE", "none", "write the table as Markdown, e.g. docs/calibration.md"),
        Option.of("dir", "DIR", "a scratch directory, deleted after", "where the device files go"));
  }

  @Override
  public int run(Arguments args, PrintStream out) throws Exception {
    double seconds = args.number("seconds", 2, 1, 600);
    List<String> profiles =
        new ArrayList<>(List.of(args.string("profiles", "zn540,confzns,pm1731a").split(",")));
    boolean plm = profiles.remove("plm"); // its own measurements and section (PlmCalibration)
    String outFile = args.string("out", null);
    String dirArg = args.string("dir", null);
    args.requireAllUsed();
    Path dir =
        dirArg != null ? Files.createDirectories(Path.of(dirArg)) : ScratchDir.create("zkv-cal");
    List<Row> rows = new ArrayList<>();
    String loadBefore = loadAverage();
    for (String profile : profiles) {
      Path file = dir.resolve("calibrate-" + profile + ".zkvemu");
      Path modelFile = dir.resolve("calibrate-" + profile + "-model.zkvemu");
      Files.deleteIfExists(file);
      Files.deleteIfExists(modelFile);
      EmulatedDevice.format(file, ProfileGeometry.of(profile, ZONES));
      EmulatedDevice.format(modelFile, ProfileGeometry.of(profile, ZONES));
      try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, profile));
          ZonedDevice model =
              ZonedDevice.open(EmulatedDevice.uri(modelFile, profile, "clock=virtual"))) {
        FioLikeRun fio = new FioLikeRun(dev);
        FioLikeRun exact = new FioLikeRun(model, true);
        for (Paper p : PAPER) {
          if (p.profile.equals(profile)) {
            Result m = exact.run(p.op, p.bs, p.qd, seconds);
            Result r = fio.run(p.op, p.bs, p.qd, seconds);
            rows.add(new Row(p, m, r));
            out.println(rows.get(rows.size() - 1).line());
          }
        }
      } finally {
        Files.deleteIfExists(modelFile);
        Files.deleteIfExists(file);
      }
    }
    String report =
        profiles.isEmpty()
            ? null
            : report(rows, seconds)
                + String.format(
                    "%nHost load average (1, 5, 15 min) before the run: %s; after: %s.%n",
                    loadBefore, loadAverage());
    for (Row r : rows) {
      if (r.measured.lateness().notHonoured()) {
        out.println(
            "warning: "
                + r.paper.profile
                + " QD"
                + r.paper.qd
                + ": "
                + r.measured.lateness().describe());
      }
    }
    String plmSection = plm ? new PlmCalibration(dir, seconds, out).run() : null;
    out.println();
    if (report != null) {
      out.println(report);
    }
    if (plmSection != null) {
      out.println(plmSection);
    }
    if (outFile != null) {
      // Only what this run measured is replaced: the fio tables, the plm section, or both.
      Path file = Path.of(outFile);
      String existing = Files.exists(file) ? Files.readString(file) : "";
      Files.writeString(file, updated(existing, report, plmSection));
      out.println("written to " + outFile);
    }
    if (dirArg == null) {
      Files.deleteIfExists(dir);
    }
    return 0;
  }

  /** The calibration file with the parts this run measured (null: not measured) replaced. */
  static String updated(String existing, String fioReport, String plmSection) {
    String text = fioReport == null ? existing : fioReport + PlmCalibration.section(existing);
    return plmSection == null ? text : PlmCalibration.splice(text, plmSection);
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + ", " + f[1] + ", " + f[2];
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  /** Tolerances of a row's verdict: IOPS and mean latency, and P99 (a fitted tail). */
  static final double MEAN_TOLERANCE = 0.10;

  static final double P99_TOLERANCE = 0.25;

  /**
   * One row: the published figures, the model's (a run on the model's own clock, exact whatever the
   * host does) and the measured ones (the host's clock).
   */
  record Row(Paper paper, Result model, Result measured) {
    String line() {
      return String.format(
          "| %s | %s | %d KiB | %d | %s | %,.0f | %,.0f | %s | %.1f | %.1f | %s | %s | %s | %.1f%s"
              + " | %s |",
          paper.profile,
          paper.op.name().toLowerCase(java.util.Locale.ROOT),
          paper.bs / 1024,
          paper.qd,
          Double.isNaN(paper.iops) ? "-" : String.format("%,.0f", paper.iops),
          model.iops(),
          measured.iops(),
          Double.isNaN(paper.meanMicros) ? "-" : String.format("%.1f", paper.meanMicros),
          model.latency().meanMicros(),
          measured.latency().meanMicros(),
          Double.isNaN(paper.p99Micros) ? "-" : String.format("%.0f", paper.p99Micros),
          percentiles(model),
          percentiles(measured),
          100 * measured.lateness().lateShare(),
          measured.lateness().notHonoured() ? " NOT HONOURED" : "",
          verdict());
    }

    private static String percentiles(Result r) {
      return String.format(
          "%.1f / %.1f / %.1f",
          r.latency().percentileMicros(50),
          r.latency().percentileMicros(99),
          r.latency().percentileMicros(99.9));
    }

    /** Whether the model and the measurement match the paper, and if not, why. */
    String verdict() {
      if (Double.isNaN(paper.iops)) {
        return "no published figure: see the shape checks";
      }
      List<String> misses = new ArrayList<>();
      miss(misses, "IOPS", model.iops(), paper.iops, MEAN_TOLERANCE);
      miss(misses, "mean", model.latency().meanMicros(), paper.meanMicros, MEAN_TOLERANCE);
      miss(misses, "P99", model.latency().percentileMicros(99), paper.p99Micros, P99_TOLERANCE);
      String modelPart =
          misses.isEmpty() ? "model holds" : "model misses " + String.join(", ", misses);
      if (measured.lateness().notHonoured()) {
        return modelPart + "; measured: the host could not honour the profile";
      }
      List<String> measuredMisses = new ArrayList<>();
      miss(measuredMisses, "IOPS", measured.iops(), paper.iops, MEAN_TOLERANCE);
      miss(
          measuredMisses,
          "mean",
          measured.latency().meanMicros(),
          paper.meanMicros,
          MEAN_TOLERANCE);
      miss(
          measuredMisses,
          "P99",
          measured.latency().percentileMicros(99),
          paper.p99Micros,
          P99_TOLERANCE);
      return modelPart
          + (measuredMisses.isEmpty()
              ? "; measured holds"
              : "; measured misses " + String.join(", ", measuredMisses) + " (host overhead)");
    }

    private static void miss(List<String> out, String what, double got, double want, double tol) {
      if (!Double.isNaN(want) && Math.abs(got / want - 1) > tol) {
        out.add(String.format("%s %.2fx", what, got / want));
      }
    }
  }

  /**
   * Whether the host kept up: "late %" is the share of completions observed later than modelled by
   * more than 20 us + 10%; above 1% a row measures the host, not the profile.
   */
  static String hostVerdict(List<Row> rows) {
    List<String> bad =
        rows.stream()
            .filter(r -> r.measured.lateness().notHonoured())
            .map(r -> rowName(r) + lateReason(r, rows))
            .toList();
    String rule =
        "\n\"late %\" is the share of completions the host observed later than modelled by more"
            + " than 20 us + 10% of the modelled time (a busy host); above 1% a row describes the"
            + " host, not the profile. ";
    return rule
        + (bad.isEmpty()
            ? "Every row was honoured.\n"
            : "**The host could not honour the profile in "
                + bad.size()
                + " rows** ("
                + String.join("; ", bad)
                + ").\n");
  }

  private static String rowName(Row r) {
    return r.paper.profile
        + " "
        + r.paper.op.name().toLowerCase(java.util.Locale.ROOT)
        + " "
        + r.paper.bs / 1024
        + " KiB QD"
        + r.paper.qd;
  }

  /**
   * Why a row was late, from the run itself: a row whose measured IOPS is the highest any row of
   * its profile reached (within 5%) while the model asks for more hit the one-thread submitting
   * loop's ceiling on this host, which a quiet host does not lift; any other late row met a busy
   * host and is worth a rerun.
   */
  static String lateReason(Row late, List<Row> rows) {
    double hostCeiling =
        rows.stream()
            .filter(r -> r.paper.profile.equals(late.paper.profile))
            .mapToDouble(r -> r.measured.iops())
            .max()
            .orElse(Double.NaN);
    boolean atCeiling =
        late.measured.iops() >= 0.95 * hostCeiling
            && late.model.iops() > 1.05 * late.measured.iops();
    return atCeiling
        ? String.format(
            ": the model asks %,.0f IOPS, the submitting loop reached at most %,.0f on this host",
            late.model.iops(), hostCeiling)
        : ": a busy host, rerun it on a quiet one";
  }

  /** The measured IOPS of a row; NaN when it was not run or the host could not honour it. */
  private static double iops(List<Row> rows, String profile, Op op, int bs, int qd) {
    return value(
        rows,
        profile,
        op,
        bs,
        qd,
        r -> r.measured.lateness().notHonoured() ? Double.NaN : r.measured.iops());
  }

  /** A figure of the model's run of one row, NaN when the row was not run. */
  private static double model(
      List<Row> rows,
      String profile,
      Op op,
      int bs,
      int qd,
      java.util.function.ToDoubleFunction<Result> f) {
    return value(rows, profile, op, bs, qd, r -> f.applyAsDouble(r.model));
  }

  private static double value(
      List<Row> rows,
      String profile,
      Op op,
      int bs,
      int qd,
      java.util.function.ToDoubleFunction<Row> f) {
    return rows.stream()
        .filter(
            r ->
                r.paper.profile.equals(profile)
                    && r.paper.op == op
                    && r.paper.bs == bs
                    && r.paper.qd == qd)
        .mapToDouble(f)
        .findFirst()
        .orElse(Double.NaN);
  }

  private static String check(String what, double paper, double measured, double tolerance) {
    if (Double.isNaN(measured)) {
      return String.format(
          "| %s | %.2f | - | not judged: a row not run, or one the host could not honour |%n",
          what, paper);
    }
    boolean holds = Math.abs(measured / paper - 1) <= tolerance;
    return String.format(
        "| %s | %.2f | %.2f | %s (tolerance %.0f%%) |%n",
        what, paper, measured, holds ? "holds" : "DOES NOT HOLD", tolerance * 100);
  }

  static String report(List<Row> rows, double seconds) {
    StringBuilder b = new StringBuilder();
    b.append(
        "<!-- generated by `bin/zkv calibrate --out docs/calibration.md`; do not edit by hand -->\n");
    b.append("# Emulator timing calibration: measured vs published\n\n");
    b.append(
        String.format(
            "Measured on %s, this repository's 2-core Debian 12 VM, one JVM, fio-like loop "
                + "(one thread, io_uring-style queue, `rw=write`, zone after zone), %.0f s per row. "
                + "Geometry: each profile's default (%d zones; %s). Published figures: WD ZN540 and ConfZNS fio tables of the ZWAL artifact, "
                + "PM1731a append latency from WALTZ (see `docs/timing-model.md`).%n%n",
            LocalDate.now(),
            seconds,
            ZONES,
            rows.stream()
                .map(r -> r.paper.profile)
                .distinct()
                .map(p -> ProfileGeometry.describe(p, ZONES))
                .collect(java.util.stream.Collectors.joining("; "))));
    b.append(
        "\"model\" is the same loop on a second device opened with `clock=virtual`: the timing"
            + " model's own latencies, exact whatever the host does (so they answer whether the model"
            + " is right); \"measured\" is the host's clock through JNI and the host's wake-ups."
            + " Verdicts: IOPS and mean within 10%, P99 within 25% (a lognormal tail fitted to each"
            + " row's P99/mean, docs/timing-model.md).\n\n");
    b.append(
        "| profile | op | block | QD | paper IOPS | model IOPS | measured IOPS | paper mean us"
            + " | model mean us | measured mean us | paper P99 us | model P50 / P99 / P99.9 us"
            + " | measured P50 / P99 / P99.9 us | late % | verdict |\n");
    b.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Row r : rows) {
      b.append(r.line()).append('\n');
    }
    b.append(hostVerdict(rows));
    b.append("\n## Shape checks (ratios within one run)\n\n");
    b.append("| claim | paper | measured | verdict |\n|---|---|---|---|\n");
    double a1 = iops(rows, "zn540", Op.APPEND, 8192, 1);
    double a4 = iops(rows, "zn540", Op.APPEND, 8192, 4);
    double a8 = iops(rows, "zn540", Op.APPEND, 8192, 8);
    double a16 = iops(rows, "zn540", Op.APPEND, 8192, 16);
    double w1 = iops(rows, "zn540", Op.WRITE, 8192, 1);
    b.append(
        check(
            "ZN540 8 KiB: write QD1 / append QD1 (write ~10% faster)",
            62_044.0 / 56_397, w1 / a1, 0.10));
    b.append(
        check("ZN540 8 KiB: append QD4 / write QD1 (2.41x)", 149_470.0 / 62_044, a4 / w1, 0.15));
    b.append(check("ZN540 8 KiB: append QD4 / QD1 (grows)", 149_470.0 / 56_397, a4 / a1, 0.15));
    b.append(check("ZN540 8 KiB: append QD8 / QD4 (flat)", 149_429.0 / 149_470, a8 / a4, 0.10));
    b.append(check("ZN540 8 KiB: append QD16 / QD4 (flat)", 149_469.0 / 149_470, a16 / a4, 0.10));
    double c1 = iops(rows, "confzns", Op.APPEND, 8192, 1);
    double c32 = iops(rows, "confzns", Op.APPEND, 8192, 32);
    double c64 = iops(rows, "confzns", Op.APPEND, 8192, 64);
    b.append(
        check(
            "ConfZNS 8 KiB: append QD32 / QD1 (scales to QD32)", 35_554.0 / 2_067, c32 / c1, 0.15));
    b.append(check("ConfZNS 8 KiB: append QD64 / QD32 (flat)", 35_552.0 / 35_554, c64 / c32, 0.10));
    b.append("\n## Shape checks of the model (its own clock, exact)\n\n");
    b.append("| claim | paper | model | verdict |\n|---|---|---|---|\n");
    for (ModelClaim m : MODEL_CLAIMS) {
      java.util.function.ToDoubleFunction<Result> f =
          m.p99 ? r -> r.latency().percentileMicros(99) : r -> r.latency().meanMicros();
      double ratio =
          model(rows, m.a.profile, m.a.op, m.a.bs, m.a.qd, f)
              / model(rows, m.b.profile, m.b.op, m.b.bs, m.b.qd, f);
      b.append(check(m.claim, m.paper, ratio, m.tolerance));
    }
    return b.toString();
  }
}
