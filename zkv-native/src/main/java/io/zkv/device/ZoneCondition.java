package io.zkv.device;

/** Zone conditions of NVMe ZNS, with the Zone State codes of the zone descriptor. */
public enum ZoneCondition {
  EMPTY(0x1),
  IMPLICITLY_OPEN(0x2),
  EXPLICITLY_OPEN(0x3),
  CLOSED(0x4),
  READ_ONLY(0xD),
  FULL(0xE),
  OFFLINE(0xF);

  private final int code;

  ZoneCondition(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** Open zones use an open resource (and an active one). */
  public boolean isOpen() {
    return this == IMPLICITLY_OPEN || this == EXPLICITLY_OPEN;
  }

  /** Active zones (open or closed) count against the device's active limit. */
  public boolean isActive() {
    return isOpen() || this == CLOSED;
  }

  public static ZoneCondition of(int code) {
    for (ZoneCondition c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown zone condition code " + code);
  }
}
