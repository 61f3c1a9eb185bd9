package io.zkv.device;

/** The device rejected a command with an NVMe (ZNS) status, e.g. Zone Is Full. */
public final class ZoneStatusException extends ZonedDeviceException {
  private static final long serialVersionUID = 1L;
  private final ZnsStatus status;

  public ZoneStatusException(String message, long code, ZnsStatus status) {
    super(message, code);
    this.status = status;
  }

  public ZnsStatus status() {
    return status;
  }
}
