package io.zkv.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code --name value} options with typed getters and specific errors; unknown names fail. Words
 * before the first option (e.g. {@code compare} in {@code zkv bench compare --config ...}) are
 * positional: a command reads them with {@link #positional}, and {@link #requireAllUsed} refuses
 * those it did not read. An option given twice keeps every value ({@link #strings}); the other
 * getters return the last one. An option given without a value ({@code --prefix} last, or before
 * another option) is a flag: {@link #flag} reads it as true, any other getter refuses it.
 */
public final class Arguments {
  private final Map<String, List<String>> values = new HashMap<>();
  private final List<String> positionals = new ArrayList<>();
  private final Set<String> used = new HashSet<>();
  private int positionalsRead;

  Arguments(String command, String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        if (!values.isEmpty() || a.startsWith("-")) {
          throw new UsageException("unexpected argument '" + a + "'");
        }
        positionals.add(a);
        continue;
      }
      String name = a.substring(2);
      int eq = name.indexOf('=');
      if (eq >= 0) {
        add(name.substring(0, eq), name.substring(eq + 1));
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        add(name, args[++i]);
      } else {
        add(name, null); // no value: a flag, or a mistake the getters report
      }
    }
  }

  private void add(String name, String value) {
    values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
  }

  public static Arguments of(String... args) {
    return new Arguments("test", args);
  }

  /**
   * The positional word at {@code index} (0 = the first word after the command name), or {@code
   * def} if there are fewer.
   */
  public String positional(int index, String def) {
    positionalsRead = Math.max(positionalsRead, index + 1);
    return index < positionals.size() ? positionals.get(index) : def;
  }

  public String string(String name, String def) {
    used.add(name);
    List<String> v = values.get(name);
    return v == null ? def : valueOf(name, v.get(v.size() - 1));
  }

  private static String valueOf(String name, String value) {
    if (value == null) {
      throw new UsageException("--" + name + " needs a value");
    }
    return value;
  }

  /** Every value of an option that may repeat ({@code --config a --config b}), in order. */
  public List<String> strings(String name) {
    used.add(name);
    List<String> all = new ArrayList<>();
    for (String v : values.getOrDefault(name, List.of())) {
      all.add(valueOf(name, v));
    }
    return List.copyOf(all);
  }

  public long number(String name, long def, long min, long max) {
    used.add(name);
    String v = string(name, null);
    if (v == null) {
      return def;
    }
    long n;
    try {
      n = parseSize(v);
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " needs a number, not '" + v + "'");
    }
    if (n < min || n > max) {
      throw new UsageException(
          "--" + name + " must be between " + min + " and " + max + ", not " + v);
    }
    return n;
  }

  /** A decimal number such as {@code 0.5}. */
  public double decimal(String name, double def, double min, double max) {
    String v = string(name, null);
    if (v == null) {
      return def;
    }
    double d;
    try {
      d = Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " needs a number, not '" + v + "'");
    }
    if (!(d >= min && d <= max)) {
      throw new UsageException(
          "--" + name + " must be between " + min + " and " + max + ", not " + v);
    }
    return d;
  }

  /** A yes/no option: absent is {@code def}; {@code --name} alone, true/false, yes/no, 1/0. */
  public boolean flag(String name, boolean def) {
    used.add(name);
    List<String> given = values.get(name);
    if (given == null) {
      return def;
    }
    String v = given.get(given.size() - 1);
    if (v == null) {
      return true; // --name alone
    }
    switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "1", "on":
        return true;
      case "false", "no", "0", "off":
        return false;
      default:
        throw new UsageException("--" + name + " needs true or false, not '" + v + "'");
    }
  }

  /** Fails on options the command did not ask for (call after reading all options). */
  public void requireAllUsed() {
    if (positionals.size() > positionalsRead) {
      throw new UsageException("unexpected argument '" + positionals.get(positionalsRead) + "'");
    }
    for (String k : values.keySet()) {
      if (!used.contains(k)) {
        throw new UsageException("unknown option --" + k);
      }
    }
  }

  /** Accepts plain numbers and K/M/G suffixes (powers of 1024). */
  public static long parseSize(String v) {
    String s = v.trim().toUpperCase(java.util.Locale.ROOT);
    long mul = 1;
    if (s.endsWith("K") || s.endsWith("M") || s.endsWith("G")) {
      mul = s.endsWith("K") ? 1L << 10 : s.endsWith("M") ? 1L << 20 : 1L << 30;
      s = s.substring(0, s.length() - 1);
    }
    return Math.multiplyExact(Long.parseLong(s), mul);
  }

  /** A bad command line: printed with the command's usage, exit code 2. */
  public static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
      super(message);
    }
  }
}
