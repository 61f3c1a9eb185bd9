package io.zkv.plm.window;

import java.util.List;

/**
 * What a scheduler decided: the phase changes to apply now, and when to ask it again at the latest
 * (the driver also asks as soon as a drain it waits for completes).
 *
 * @param changes sets that change phase now
 * @param nextDecisionNanos the time of the next decision
 */
public record WindowDecision(List<Change> changes, long nextDecisionNanos) {

  /** One set's move to another phase. */
  public record Change(int set, Phase to) {}

  public WindowDecision {
    changes = List.copyOf(changes);
  }
}
