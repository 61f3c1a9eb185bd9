package io.zkv.device;

import java.io.IOException;

/** A device operation failed; {@link #code()} is the native code (negative). */
public class ZonedDeviceException extends IOException {
  private static final long serialVersionUID = 1L;
  private static final int EBUSY = 16;
  private final long code;

  public ZonedDeviceException(String message, long code) {
    super(message);
    this.code = code;
  }

  public long code() {
    return code;
  }

  /** Throws the typed exception for a negative native code; returns the value otherwise. */
  static long check(long code, String context) throws ZonedDeviceException {
    if (code >= 0) {
      return code;
    }
    throw of(code, context);
  }

  static ZonedDeviceException of(long code, String context) {
    long v = -code;
    String message = context + ": " + ZonedDeviceLastError.describe(code);
    if ((v & ZnsStatus.ZNS_BASE) != 0) {
      return new ZoneStatusException(message, code, ZnsStatus.ofNvme((int) (v & 0xFFFF)));
    }
    if (v == EBUSY) {
      return new DeviceInUseException(message, code);
    }
    return new ZonedDeviceException(message, code);
  }
}
