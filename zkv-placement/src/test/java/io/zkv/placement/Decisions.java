package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** The policy tests' reading of a decision: its kind asserted, the reason shown if it is not. */
final class Decisions {
  private Decisions() {}

  /** The zone of a {@code UseZone}. */
  static int used(Allocation a) {
    return assertInstanceOf(Allocation.UseZone.class, a, a.reason()).target();
  }

  /** An {@code OpenEmptyZone}. */
  static Allocation.OpenEmptyZone opened(Allocation a) {
    return assertInstanceOf(Allocation.OpenEmptyZone.class, a, a.reason());
  }
}
