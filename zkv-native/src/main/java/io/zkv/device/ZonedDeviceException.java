package io.zkv.device;

import java.io.IOException;

/** A device operation failed; {@link #code()} is the native code (negative). */
public class ZonedDeviceException extends IOException {
  private static final long serialVersionUID = 1L;
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
    if ((v & ZnsStatus.ZNS_BASE) != 0) {
      ZnsStatus s = ZnsStatus.ofNvme((int) (v & 0xFFFF));
      return new ZoneStatusException(
          context + ": " + s.description() + String.format(" (NVMe status 0x%03X)", v & 0xFFFF),
          code,
          s);
    }
    Errno e = Errno.of((int) v);
    if (e == Errno.EBUSY) {
      return new DeviceInUseException(context + ": " + e.description(), code);
    }
    String what = e == Errno.OTHER ? "host error, errno " + v : e.description();
    return new ZonedDeviceException(context + ": " + what, code);
  }
}
