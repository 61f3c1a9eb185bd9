package io.zkv.device.plm;

import io.zkv.device.ZonedDeviceException;

/** Bytes that do not hold a valid Predictable Latency Mode structure (truncated or corrupt). */
public final class PlmFormatException extends ZonedDeviceException {
  private static final long serialVersionUID = 1L;
  private static final int EBADMSG = 74;

  public PlmFormatException(String message) {
    super(message, -EBADMSG);
  }
}
