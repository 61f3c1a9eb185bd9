package io.zkv.plm.window;

/**
 * O-Vigil: R-Vigil whose NDWIN adapts to the backlog of held writes (ATC '22, section 6.2, "dynamic
 * NDWIN adjustment"). Each NDWIN starts at the device's minimum, spreading the held writes over
 * successive turns; while a set's backlog is above {@code heldBytesThreshold} at the planned end
 * (the paper's trigger is the host write cache's limit), the NDWIN goes on, as long as every other
 * set can still leave DTWIN before its maximum.
 */
public final class AdaptiveVigil extends VigilCycle {
  private final long heldBytesThreshold;

  /**
   * @param heldBytesThreshold backlog of held writes above which an NDWIN is extended (bytes)
   * @throws IllegalArgumentException if it is negative
   */
  public AdaptiveVigil(long heldBytesThreshold) {
    if (heldBytesThreshold < 0) {
      throw new IllegalArgumentException(
          "held-bytes threshold must be >= 0, not " + heldBytesThreshold);
    }
    this.heldBytesThreshold = heldBytesThreshold;
  }

  @Override
  public String name() {
    return "o-vigil";
  }

  public long heldBytesThreshold() {
    return heldBytesThreshold;
  }

  @Override
  protected boolean extend(SetStatus s, PlmLimits limits) {
    return s.heldWriteBytes() > heldBytesThreshold;
  }
}
