package io.zkv.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The {@code zkv} command line. Commands are {@link ZkvCommand}s: the built-in ones plus any found
 * with {@link ServiceLoader} (zkv-bench adds its benchmarks that way).
 */
public final class Zkv {
  private Zkv() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command; returns the process exit code (0 ok, 2 usage error, 1 failure). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Map<String, ZkvCommand> commands = new LinkedHashMap<>();
    // zkv-bench adds "demo" (zkv vs RocksDB on its default Env); this one measures the device.
    commands.put("device-demo", new DemoCommand());
    for (ZkvCommand c : FsCommands.all()) {
      commands.put(c.name(), c);
    }
    for (ZkvCommand c : ServiceLoader.load(ZkvCommand.class)) {
      commands.putIfAbsent(c.name(), c);
    }
    if (args.length == 0
        || args[0].equals("help")
        || args[0].equals("--help")
        || args[0].equals("-h")) {
      usage(out, commands);
      return args.length == 0 ? 2 : 0;
    }
    ZkvCommand c = commands.get(args[0]);
    if (c == null) {
      err.println("zkv: unknown command '" + args[0] + "'");
      usage(err, commands);
      return 2;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      return c.run(new Arguments(c.name(), rest), out);
    } catch (Arguments.UsageException e) {
      err.println("zkv " + c.name() + ": " + e.getMessage());
      err.println("usage: zkv " + c.name() + " " + c.usage());
      return 2;
    } catch (Exception e) {
      err.println("zkv " + c.name() + ": " + e.getMessage());
      return 1;
    }
  }

  private static void usage(PrintStream out, Map<String, ZkvCommand> commands) {
    out.println("usage: zkv <command> [options]");
    out.println();
    for (ZkvCommand c : commands.values()) {
      out.printf("  %-12s %s%n", c.name(), c.summary());
      out.printf("  %-12s   zkv %s %s%n", "", c.name(), c.usage());
    }
  }
}
