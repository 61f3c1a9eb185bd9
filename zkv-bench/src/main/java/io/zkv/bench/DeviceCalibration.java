package io.zkv.bench;

import io.zkv.bench.FioLikeRun.Op;
import io.zkv.bench.FioLikeRun.Result;
import io.zkv.cli.Arguments;
import io.zkv.cli.ScratchDir;
import io.zkv.cli.ZkvCommand;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
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
  /** A published fio figure (notes/wal-papers-waltz-zwal.md section 4.4 and WALTZ section 2). */
  record Paper(String profile, Op op, int bs, int qd, double iops, double meanMicros) {}

  static final List<Paper> PAPER =
      List.of(
          new Paper("zn540", Op.APPEND, 8192, 1, 56_397, 16.8),
          new Paper("zn540", Op.APPEND, 8192, 2, 105_974, 18.1),
          new Paper("zn540", Op.APPEND, 8192, 4, 149_470, 26.0),
          new Paper("zn540", Op.APPEND, 8192, 8, 149_429, 52.8),
          new Paper("zn540", Op.APPEND, 8192, 16, 149_469, 106.3),
          new Paper("zn540", Op.WRITE, 8192, 1, 62_044, 15.0),
          new Paper("zn540", Op.APPEND, 4096, 1, 50_854, 18.6),
          new Paper("zn540", Op.APPEND, 4096, 4, 134_275, 28.6),
          new Paper("zn540", Op.APPEND, 4096, 16, 135_574, 117.3),
          new Paper("zn540", Op.WRITE, 4096, 1, 62_979, 14.7),
          new Paper("confzns", Op.APPEND, 8192, 1, 2_067, 482.6),
          new Paper("confzns", Op.APPEND, 8192, 4, 6_420, 621.7),
          new Paper("confzns", Op.APPEND, 8192, 8, 12_396, 643.7),
          new Paper("confzns", Op.APPEND, 8192, 16, 23_532, 678.5),
          new Paper("confzns", Op.APPEND, 8192, 32, 35_554, 898.6),
          new Paper("confzns", Op.APPEND, 8192, 64, 35_552, 1798.6),
          new Paper("confzns", Op.WRITE, 8192, 1, 2_064, 482.5),
          new Paper("pm1731a", Op.APPEND, 4096, 1, 1e6 / 93, 93));

  static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(16, 64L << 20, 48L << 20, 14, 14, 1 << 20);

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
  public String usage() {
    return "[--seconds 2] [--profiles zn540,confzns,pm1731a,plm] [--out docs/calibration.md]"
        + " [--dir DIR]";
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
      Files.deleteIfExists(file);
      EmulatedDevice.format(file, GEOMETRY);
      try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, profile))) {
        FioLikeRun fio = new FioLikeRun(dev);
        for (Paper p : PAPER) {
          if (p.profile.equals(profile)) {
            Result r = fio.run(p.op, p.bs, p.qd, seconds);
            rows.add(new Row(p, r));
            out.println(rows.get(rows.size() - 1).line());
          }
        }
      } finally {
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

  record Row(Paper paper, Result measured) {
    String line() {
      return String.format(
          "| %s | %s | %d KiB | %d | %,.0f | %,.0f | %.2f | %.1f | %.1f | %.1f | %.1f%s |",
          paper.profile,
          paper.op.name().toLowerCase(java.util.Locale.ROOT),
          paper.bs / 1024,
          paper.qd,
          paper.iops,
          measured.iops(),
          measured.iops() / paper.iops,
          paper.meanMicros,
          measured.latency().meanMicros(),
          measured.latency().percentileMicros(99),
          100 * measured.lateness().lateShare(),
          measured.lateness().notHonoured() ? " NOT HONOURED" : "");
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
            .map(
                r ->
                    r.paper.profile
                        + " "
                        + r.paper.op.name().toLowerCase(java.util.Locale.ROOT)
                        + " "
                        + r.paper.bs / 1024
                        + " KiB QD"
                        + r.paper.qd)
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
                + String.join(", ", bad)
                + "): rerun them on a quiet host.\n");
  }

  private static double iops(List<Row> rows, String profile, Op op, int bs, int qd) {
    return rows.stream()
        .filter(
            r ->
                r.paper.profile.equals(profile)
                    && r.paper.op == op
                    && r.paper.bs == bs
                    && r.paper.qd == qd)
        .mapToDouble(r -> r.measured.iops())
        .findFirst()
        .orElse(Double.NaN);
  }

  private static String check(String what, double paper, double measured, double tolerance) {
    if (Double.isNaN(measured)) {
      return String.format("| %s | %.2f | - | not measured in this run |%n", what, paper);
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
                + "Geometry: %s. Published figures: WD ZN540 and ConfZNS fio tables of the ZWAL artifact, "
                + "PM1731a append latency from WALTZ (see `docs/timing-model.md`).%n%n",
            LocalDate.now(), seconds, GEOMETRY));
    b.append(
        "| profile | op | block | QD | paper IOPS | measured IOPS | measured/paper | paper mean us | measured mean us | measured p99 us | late % |\n");
    b.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
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
    return b.toString();
  }
}
