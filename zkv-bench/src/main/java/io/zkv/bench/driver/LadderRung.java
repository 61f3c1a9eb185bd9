package io.zkv.bench.driver;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The configurations of Vigil-KV's ablation ladder (ATC '22, section 7.1) on a {@code plmarray:}
 * device (docs/plm.md, "The ablation ladder"): which window scheduler drives the kv-sets and which
 * of the array's mechanisms are on ({@code isolate}: the WAL and metadata on the meta set; {@code
 * defer}: writes for a set in DTWIN held until its NDWIN; {@code rebuild}: reads of a set outside
 * DTWIN rebuilt from the others).
 */
public enum LadderRung {
  /** PLM off on every set, everything striped over the kv-sets (the paper's md over the sets). */
  BASE("base", "base", false, false, false),
  /** PLM on, a simple driver asking for DTWIN again after every NDWIN; writes break DTWINs. */
  PLM("plm", "plm", false, false, false),
  /** PLM plus the WAL and metadata isolated on the meta set. */
  I_PLM("i-plm", "plm", true, false, false),
  /** I-PLM plus Vigil-KV's window schedule: round-robin minimum NDWINs, held writes, rebuilds. */
  R_VIGIL("r-vigil", "r-vigil", true, true, true),
  /** R-Vigil with each NDWIN extended while the set's held backlog is large. */
  O_VIGIL("o-vigil", "o-vigil", true, true, true);

  private final String label;
  private final String scheduler;
  private final boolean isolate;
  private final boolean defer;
  private final boolean rebuild;

  LadderRung(String label, String scheduler, boolean isolate, boolean defer, boolean rebuild) {
    this.label = label;
    this.scheduler = scheduler;
    this.isolate = isolate;
    this.defer = defer;
    this.rebuild = rebuild;
  }

  /** The names {@code windows=} takes. */
  public static final List<String> NAMES = Arrays.stream(values()).map(LadderRung::label).toList();

  /** The rung called {@code name}, or an IllegalArgumentException listing the names. */
  public static LadderRung of(String name) {
    for (LadderRung r : values()) {
      if (r.label.equals(name.trim().toLowerCase(Locale.ROOT))) {
        return r;
      }
    }
    throw new IllegalArgumentException(
        "unknown windows '" + name + "' (known: " + String.join(", ", NAMES) + ")");
  }

  public String label() {
    return label;
  }

  /** The window scheduler's name ({@code io.zkv.plm.driver.WindowSchedulers}). */
  public String scheduler() {
    return scheduler;
  }

  /** The plmarray: options of this rung, as written before the '@' of its URI. */
  public String arrayOptions() {
    return "isolate=" + bit(isolate) + "&defer=" + bit(defer) + "&rebuild=" + bit(rebuild);
  }

  private static String bit(boolean b) {
    return b ? "1" : "0";
  }
}
