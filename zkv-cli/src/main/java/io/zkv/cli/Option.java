package io.zkv.cli;

/**
 * One option of a {@link ZkvCommand}, for its help: {@code zkv CMD --help} prints one line each.
 *
 * @param name without the dashes, e.g. {@code device}
 * @param value what follows it, e.g. {@code URI}; null for a flag (given alone)
 * @param defaultValue what the command uses when it is not given ({@link #REQUIRED}: it must be
 *     given; null: nothing, the description says what happens)
 * @param description one sentence
 */
public record Option(String name, String value, String defaultValue, String description) {
  /** The default of an option that must be given. */
  public static final String REQUIRED = "(required)";

  /** An option with a value. */
  public static Option of(String name, String value, String defaultValue, String description) {
    return new Option(name, value, defaultValue, description);
  }

  /** A flag: given alone (or with true/false), off by default. */
  public static Option flag(String name, String description) {
    return new Option(name, null, null, description);
  }

  boolean required() {
    return REQUIRED.equals(defaultValue);
  }

  /** {@code --name VALUE}, or {@code --name} for a flag. */
  String form() {
    return "--" + name + (value == null ? "" : " " + value);
  }

  /** In the synopsis: bracketed unless required. */
  String synopsis() {
    return required() ? form() : "[" + form() + "]";
  }

  /** One help line, the description starting at column {@code width}. */
  String helpLine(int width) {
    String tail =
        required() ? " (required)" : defaultValue == null ? "" : " (default: " + defaultValue + ")";
    return String.format("  %-" + (width - 2) + "s  %s%s", form(), description, tail);
  }
}
