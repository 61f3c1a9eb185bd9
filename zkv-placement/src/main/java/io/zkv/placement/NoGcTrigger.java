package io.zkv.placement;

/** {@link GcTrigger#off()}: no background GC round ever collects. */
final class NoGcTrigger implements GcTrigger {
  static final NoGcTrigger INSTANCE = new NoGcTrigger();

  private NoGcTrigger() {}

  @Override
  public String name() {
    return "off";
  }

  @Override
  public long maxLiveBytes(ZoneTableView zones, long capacity) {
    return 0;
  }

  @Override
  public String toString() {
    return name();
  }
}
