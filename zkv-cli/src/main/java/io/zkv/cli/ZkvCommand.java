package io.zkv.cli;

import java.io.PrintStream;

/** One {@code zkv} subcommand; modules add their own through {@link java.util.ServiceLoader}. */
public interface ZkvCommand {
  String name();

  /** One line for the help. */
  String summary();

  /** The options, e.g. {@code [--threads N]}. */
  String usage();

  /** Runs; returns the exit code. Bad options throw {@link Arguments.UsageException}. */
  int run(Arguments args, PrintStream out) throws Exception;
}
