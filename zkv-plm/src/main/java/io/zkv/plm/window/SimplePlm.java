package io.zkv.plm.window;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The PLM configuration of Vigil-KV's ablation ladder (ATC '22, section 7.1: "Vigil-KV hardware
 * with a simple driver, which utilizes the PLM interfaces"): PLM on for every set, each kept in
 * DTWIN as much as the device lets it. No schedule: a write that reaches a set ends its DTWIN (the
 * device's write-free rule), and once the set has been out of it for the device's minimum NDWIN the
 * scheduler asks for DTWIN again. Nothing is rebuilt or held by this scheduler's choice; the device
 * layout decides that.
 *
 * <p>Stateful (when each set was seen leaving DTWIN): one instance per device.
 */
public final class SimplePlm implements WindowScheduler {
  private long[] outSince = new long[0]; // when each set was first seen out of DTWIN, or -1

  @Override
  public String name() {
    return "plm";
  }

  @Override
  public WindowDecision decide(long now, List<SetStatus> sets, PlmLimits limits) {
    if (outSince.length != sets.size()) {
      outSince = new long[sets.size()];
      Arrays.fill(outSince, -1);
    }
    List<WindowDecision.Change> changes = new ArrayList<>();
    for (SetStatus s : sets) {
      int i = s.set();
      if (s.phase() == Phase.OFF) { // PLM on and a DTWIN request (the device waits its minimum)
        changes.add(new WindowDecision.Change(i, Phase.ADT));
      } else if (s.inDeviceDtwin()) {
        outSince[i] = -1;
      } else if (outSince[i] < 0) {
        outSince[i] = now;
      } else if (now - outSince[i] >= limits.minNdwinNanos()) {
        changes.add(new WindowDecision.Change(i, Phase.ADT)); // DTWIN again
        outSince[i] = -1;
      }
    }
    return new WindowDecision(changes, now + limits.minNdwinNanos() / 8);
  }
}
