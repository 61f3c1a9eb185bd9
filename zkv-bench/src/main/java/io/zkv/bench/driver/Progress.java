package io.zkv.bench.driver;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Progress of long phases on stderr: nothing for the first {@value #QUIET_SECONDS} seconds of a
 * phase; then a bar redrawn in place when stderr is a terminal, or one plain line every {@value
 * #LINE_SECONDS} seconds when it is not (a log file, CI).
 */
public final class Progress {
  static final double QUIET_SECONDS = 3;
  static final double LINE_SECONDS = 10;
  private static final int BAR = 30;

  private final PrintStream err;
  private final boolean terminal;
  private final boolean enabled;
  private double lastLine;
  private boolean drawn;

  Progress(PrintStream err, boolean terminal, boolean enabled) {
    this.err = err;
    this.terminal = terminal;
    this.enabled = enabled;
  }

  /** Progress on {@code System.err}, as a bar if it is a terminal. */
  public static Progress toStderr(boolean enabled) {
    return new Progress(System.err, stderrIsTerminal(), enabled);
  }

  /** No output (tests). */
  public static Progress off() {
    return new Progress(System.err, false, false);
  }

  /**
   * Whether file descriptor 2 is a terminal: on Linux its {@code /proc/self/fd/2} link names a
   * {@code /dev/pts/N} or {@code /dev/ttyN} device. Elsewhere: assumed not.
   */
  static boolean stderrIsTerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return false;
    }
  }

  /** A new phase starts. */
  void start() {
    lastLine = 0;
    drawn = false;
  }

  /**
   * Reports {@code done} operations after {@code elapsed} seconds; {@code fraction} is the share of
   * the phase done (of its ops or its time, whichever is further), NaN if unknown.
   */
  void update(String label, long done, double elapsed, double fraction, double opsPerSecond) {
    if (!enabled || elapsed < QUIET_SECONDS) {
      return;
    }
    String stats =
        String.format(
            Locale.ROOT, "%s %,d ops, %,.0f ops/s, %.0f s", label, done, opsPerSecond, elapsed);
    if (terminal) {
      int filled = Double.isNaN(fraction) ? 0 : (int) Math.round(Math.min(1, fraction) * BAR);
      String pct =
          Double.isNaN(fraction)
              ? "  ?%"
              : String.format(Locale.ROOT, "%3.0f%%", 100 * Math.min(1, fraction));
      err.print(
          "\r["
              + "#".repeat(filled)
              + " ".repeat(BAR - filled)
              + "] "
              + pct
              + " "
              + stats
              + "\033[K");
      err.flush();
      drawn = true;
    } else if (elapsed - lastLine >= LINE_SECONDS || lastLine == 0) {
      lastLine = elapsed;
      err.println(
          "progress: "
              + stats
              + (Double.isNaN(fraction)
                  ? ""
                  : String.format(Locale.ROOT, " (%.0f%%)", 100 * Math.min(1, fraction))));
    }
  }

  /** The phase ended: clears the bar. */
  void finish() {
    if (drawn) {
      err.print("\r\033[K");
      err.flush();
      drawn = false;
    }
  }
}
