package io.zkv.device;

/** NVMe command statuses a zoned device returns (Status Code Type 1 = command specific). */
public enum ZnsStatus {
  INVALID_FIELD(0x002, "Invalid Field in Command"),
  LBA_OUT_OF_RANGE(0x080, "LBA Out of Range"),
  ZONE_BOUNDARY_ERROR(0x1B8, "Zone Boundary Error"),
  ZONE_IS_FULL(0x1B9, "Zone Is Full"),
  ZONE_IS_READ_ONLY(0x1BA, "Zone Is Read Only"),
  ZONE_IS_OFFLINE(0x1BB, "Zone Is Offline"),
  ZONE_INVALID_WRITE(0x1BC, "Zone Invalid Write"),
  TOO_MANY_ACTIVE_ZONES(0x1BD, "Too Many Active Zones"),
  TOO_MANY_OPEN_ZONES(0x1BE, "Too Many Open Zones"),
  INVALID_ZONE_STATE_TRANSITION(0x1BF, "Invalid Zone State Transition"),
  OTHER(-1, "NVMe error");

  /** Native codes carry an NVMe status as {@code -(ZNS_BASE | status)}. */
  static final int ZNS_BASE = 0x10000;

  private final int nvmeStatus;
  private final String description;

  ZnsStatus(int nvmeStatus, String description) {
    this.nvmeStatus = nvmeStatus;
    this.description = description;
  }

  /** Status Code Type and Status Code as {@code SCT << 8 | SC}. */
  public int nvmeStatus() {
    return nvmeStatus;
  }

  /** The code a native call returns for this status: {@code -(ZNS_BASE | status)}. */
  public long nativeCode() {
    return -(ZNS_BASE | nvmeStatus);
  }

  public String description() {
    return description;
  }

  static ZnsStatus ofNvme(int status) {
    for (ZnsStatus s : values()) {
      if (s.nvmeStatus == status) {
        return s;
      }
    }
    return OTHER;
  }
}
