package io.zkv.plm.window;

import java.util.ArrayList;
import java.util.List;

/**
 * The Base configuration of Vigil-KV's ablation ladder: PLM off on every set, no windows, so the
 * device's internal work runs whenever it likes. Decides once.
 */
public final class BaseScheduler implements WindowScheduler {
  @Override
  public String name() {
    return "base";
  }

  @Override
  public WindowDecision decide(long nowNanos, List<SetStatus> sets, PlmLimits limits) {
    List<WindowDecision.Change> changes = new ArrayList<>();
    for (SetStatus s : sets) {
      if (s.phase() != Phase.OFF) {
        changes.add(new WindowDecision.Change(s.set(), Phase.OFF));
      }
    }
    return new WindowDecision(changes, Long.MAX_VALUE);
  }

  /** PLM stays off: the sets of a drive without PLM are composed and run as they are. */
  @Override
  public boolean needsPlm() {
    return false;
  }
}
