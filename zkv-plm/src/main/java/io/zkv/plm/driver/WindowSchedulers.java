package io.zkv.plm.driver;

import io.zkv.placement.PolicyClass;
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
   * @param name a built-in's name, or {@code class:com.example.MyScheduler}: a {@link
   *     WindowScheduler} of the user's own, made with its public constructor without arguments
   *     ({@code io.zkv.placement.PolicyClass})
   * @param holdCapacityBytes the array's buffer limit: O-Vigil extends an NDWIN while the set's
   *     backlog is above half of it
   * @throws IllegalArgumentException for an unknown name, listing the known ones, or a class that
   *     does not load or implement {@link WindowScheduler}
   */
  public static WindowScheduler create(String name, long holdCapacityBytes) {
    if (PolicyClass.isClassSetting(name)) {
      return PolicyClass.instantiate(name, WindowScheduler.class);
    }
    return switch (name) {
      case "base" -> new BaseScheduler();
      case "plm" -> new SimplePlm();
      case "r-vigil" -> new RoundRobinVigil();
      case "o-vigil" -> new AdaptiveVigil(holdCapacityBytes / 2);
      default ->
          throw new IllegalArgumentException(
              "unknown window scheduler '"
                  + name
                  + "' (known: "
                  + String.join(", ", NAMES)
                  + ", or class:com.example.MyScheduler)");
    };
  }
}
