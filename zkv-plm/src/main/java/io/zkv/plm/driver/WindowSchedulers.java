package io.zkv.plm.driver;

import io.zkv.plm.window.AdaptiveVigil;
import io.zkv.plm.window.BaseScheduler;
import io.zkv.plm.window.RoundRobinVigil;
import io.zkv.plm.window.SimplePlm;
import io.zkv.plm.window.WindowScheduler;
import java.util.List;

/** The window schedulers by the names configurations use ({@code base}, {@code r-vigil}, ...). */
public final class WindowSchedulers {
  /** Every name {@link #create} knows. */
  public static final List<String> NAMES = List.of("base", "plm", "r-vigil", "o-vigil");

  private WindowSchedulers() {}

  /**
   * A new scheduler (they are stateful: one per device).
   *
   * @param holdCapacityBytes the array's buffer limit: O-Vigil extends an NDWIN while the set's
   *     backlog is above half of it
   * @throws IllegalArgumentException for an unknown name, listing the known ones
   */
  public static WindowScheduler create(String name, long holdCapacityBytes) {
    return switch (name) {
      case "base" -> new BaseScheduler();
      case "plm" -> new SimplePlm();
      case "r-vigil" -> new RoundRobinVigil();
      case "o-vigil" -> new AdaptiveVigil(holdCapacityBytes / 2);
      default ->
          throw new IllegalArgumentException(
              "unknown window scheduler '" + name + "' (known: " + String.join(", ", NAMES) + ")");
    };
  }
}
