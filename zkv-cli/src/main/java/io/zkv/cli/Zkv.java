package io.zkv.cli;

import io.zkv.nativelib.ZkvNative;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The {@code zkv} command line. Commands are {@link ZkvCommand}s: the built-in ones plus any found
 * with {@link ServiceLoader} (zkv-bench adds its benchmarks that way). {@code zkv help CMD} and
 * {@code zkv CMD --help} print a command's options, one a line with its default; {@code zkv
 * --version} the versions of zkv, RocksDB and the JVM.
 */
public final class Zkv {
  private Zkv() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command; returns the process exit code (0 ok, 2 usage error, 1 failure). */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Map<String, ZkvCommand> commands = commands();
    if (args.length == 0) {
      usage(err, commands);
      return 2;
    }
    if (args[0].equals("--version") || args[0].equals("version")) {
      out.println(version());
      return 0;
    }
    if (args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
      if (args.length == 1) {
        usage(out, commands);
        return 0;
      }
      ZkvCommand c = lookup(commands, args[1], "zkv help", err);
      if (c == null) {
        return 2;
      }
      help(out, c);
      return 0;
    }
    ZkvCommand c = lookup(commands, args[0], "zkv", err);
    if (c == null) {
      return 2;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    if (Arrays.asList(rest).contains("--help") || Arrays.asList(rest).contains("-h")) {
      help(out, c);
      return 0;
    }
    try {
      return c.run(new Arguments(c.name(), rest), out);
    } catch (Arguments.UsageException e) {
      return usageError(err, c, e.getMessage());
    } catch (Exception e) {
      if (badInput(e)) {
        return usageError(err, c, e.getMessage());
      }
      err.println("zkv " + c.name() + ": " + e.getMessage());
      return 1;
    }
  }

  /** The command named {@code name}, or null after telling {@code err} the commands there are. */
  private static ZkvCommand lookup(
      Map<String, ZkvCommand> commands, String name, String caller, PrintStream err) {
    ZkvCommand c = commands.get(name);
    if (c == null) {
      err.println(caller + ": unknown command '" + name + "'");
      usage(err, commands);
    }
    return c;
  }

  private static int usageError(PrintStream err, ZkvCommand c, String message) {
    err.println("zkv " + c.name() + ": " + message);
    err.println(synopsis(c));
    err.println("(zkv " + c.name() + " --help lists every option)");
    return 2;
  }

  /**
   * A failure the command line caused: the device layer refused a URI, a profile or a geometry
   * (EINVAL), wherever in the command it was opened.
   */
  private static boolean badInput(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof io.zkv.device.ZonedDeviceException z && z.code() == -22) {
        return true;
      }
    }
    return false;
  }

  static Map<String, ZkvCommand> commands() {
    Map<String, ZkvCommand> commands = new LinkedHashMap<>();
    // zkv-bench adds "demo" (zkv vs RocksDB on its default Env); this one measures the device.
    commands.put("device-demo", new DemoCommand());
    for (ZkvCommand c : FsCommands.all()) {
      commands.put(c.name(), c);
    }
    for (ZkvCommand c : ServiceLoader.load(ZkvCommand.class)) {
      commands.putIfAbsent(c.name(), c);
    }
    return commands;
  }

  private static void usage(PrintStream out, Map<String, ZkvCommand> commands) {
    out.println("usage: zkv <command> [options]");
    out.println("       zkv help <command>     (or zkv <command> --help): its options");
    out.println("       zkv --version");
    out.println();
    for (ZkvCommand c : commands.values()) {
      out.printf("  %-12s %s%n", c.name(), c.summary());
    }
  }

  /** A command's help: summary, synopsis, then one line an option with its default. */
  static void help(PrintStream out, ZkvCommand c) {
    out.println("zkv " + c.name() + ": " + c.summary());
    out.println();
    List<Option> options = c.options();
    out.println(synopsis(c));
    if (!options.isEmpty()) {
      out.println();
      out.println("options:");
      int width = 2 + options.stream().mapToInt(o -> o.form().length()).max().orElse(0);
      for (Option o : options) {
        out.println(o.helpLine(width));
      }
    }
    if (!c.notes().isEmpty()) {
      out.println();
      out.println(c.notes());
    }
  }

  /**
   * "usage: zkv CMD [--opt V] ...", wrapped at 100 columns; an option's synopsis is never split.
   */
  static String synopsis(ZkvCommand c) {
    List<String> words = new java.util.ArrayList<>(List.of("usage:", "zkv", c.name()));
    if (!c.positionals().isEmpty()) {
      words.add(c.positionals());
    }
    c.options().forEach(o -> words.add(o.synopsis()));
    return wrap(words, 100, "         ");
  }

  /** Joins words with spaces, wrapped at {@code width}, continuation lines indented. */
  static String wrap(List<String> words, int width, String indent) {
    StringBuilder b = new StringBuilder();
    int line = 0;
    for (String word : words) {
      if (line > 0 && line + 1 + word.length() > width) {
        b.append('\n').append(indent);
        line = indent.length();
      } else if (line > 0) {
        b.append(' ');
        line++;
      }
      b.append(word);
      line += word.length();
    }
    return b.toString();
  }

  /** zkv's version and commit, the RocksDB release RocksJava loaded, and the JVM. */
  static String version() {
    Versions v = Versions.current();
    return v.zkvPart()
        + "\n"
        + v.rocksDbPart("; zkv supports " + String.join(", ", ZkvNative.SUPPORTED_ROCKSDB))
        + "\n"
        + v.javaPart();
  }
}
