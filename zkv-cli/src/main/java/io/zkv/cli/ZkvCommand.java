package io.zkv.cli;

import java.io.PrintStream;
import java.util.List;

/** One {@code zkv} subcommand; modules add their own through {@link java.util.ServiceLoader}. */
public interface ZkvCommand {
  String name();

  /** One line for the help. */
  String summary();

  /** Every option, in the order the help lists them (one line each, with its default). */
  List<Option> options();

  /** Words before the options, e.g. {@code [compare]} for {@code zkv bench}; "" for none. */
  default String positionals() {
    return "";
  }

  /** Notes printed after the options in {@code zkv CMD --help}; "" for none. */
  default String notes() {
    return "";
  }

  /** Runs; returns the exit code. Bad options throw {@link Arguments.UsageException}. */
  int run(Arguments args, PrintStream out) throws Exception;
}
