package io.zkv.plm.window;

/**
 * R-Vigil: Vigil-KV's round-robin window schedule with every NDWIN at the device's minimum. Held
 * writes the NDWIN cannot drain wait for the set's next turn.
 */
public final class RoundRobinVigil extends VigilCycle {
  @Override
  public String name() {
    return "r-vigil";
  }

  @Override
  protected boolean extend(SetStatus s, PlmLimits limits) {
    return false;
  }
}
