package io.zkv.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs {@code zkv} command lines in the test's JVM and keeps what the last one printed. */
final class CliRun {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** Runs one command line and returns its exit code; earlier output is dropped. */
  int run(String... args) {
    out.reset();
    err.reset();
    return Zkv.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** What the last command printed to standard output. */
  String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  /** What the last command printed to standard error. */
  String err() {
    return err.toString(StandardCharsets.UTF_8);
  }
}
