package io.zkv.plm.window;

import java.util.List;

/**
 * Decides the windows of a PLM device's NVM sets (Vigil-KV's {@code devd}). Consulted at window
 * decisions only, never per I/O: at start, when a time it asked for comes, and when a drain it
 * waits for (outstanding reads in UDT, writes in UND) completes. The driver applies the changes to
 * the device (Set Features 0x14) and to its own I/O routing (reads to sets outside ADT are
 * reconstructed, held writes go only to sets in AND).
 *
 * <p>Implementations: {@link BaseScheduler} (PLM off), {@link RoundRobinVigil} (R-Vigil), {@link
 * AdaptiveVigil} (O-Vigil).
 */
public interface WindowScheduler {

  /** Short, stable name for configuration and reports, e.g. {@code "o-vigil"}. */
  String name();

  /**
   * Decides at {@code nowNanos}.
   *
   * @param nowNanos the driver's clock
   * @param sets every set, in index order
   * @param limits the device's window limits and bandwidths
   * @return the changes to apply now and when to decide next; never null
   */
  WindowDecision decide(long nowNanos, List<SetStatus> sets, PlmLimits limits);

  /**
   * Whether this scheduler asks for windows, so that the device must support Predictable Latency
   * Mode. One that keeps PLM off on every set runs on any {@code plmarray:} device.
   */
  default boolean needsPlm() {
    return true;
  }
}
