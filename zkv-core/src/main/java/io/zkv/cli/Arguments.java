package io.zkv.cli;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** {@code --name value} options with typed getters and specific errors; unknown names fail. */
public final class Arguments {
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> used = new HashSet<>();

  Arguments(String command, String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        throw new UsageException("unexpected argument '" + a + "'");
      }
      String name = a.substring(2);
      int eq = name.indexOf('=');
      if (eq >= 0) {
        values.put(name.substring(0, eq), name.substring(eq + 1));
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        values.put(name, args[++i]);
      } else {
        values.put(name, "true");
      }
    }
  }

  public static Arguments of(String... args) {
    return new Arguments("test", args);
  }

  public String string(String name, String def) {
    used.add(name);
    return values.getOrDefault(name, def);
  }

  public long number(String name, long def, long min, long max) {
    used.add(name);
    String v = values.get(name);
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

  /** Fails on options the command did not ask for (call after reading all options). */
  public void requireAllUsed() {
    for (String k : values.keySet()) {
      if (!used.contains(k)) {
        throw new UsageException("unknown option --" + k);
      }
    }
  }

  /** Accepts plain numbers and K/M/G suffixes (powers of 1024). */
  static long parseSize(String v) {
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
