package io.zkv.device;

/** Another opener (this process or another) owns the device; zkv opens devices exclusively. */
public final class DeviceInUseException extends ZonedDeviceException {
  private static final long serialVersionUID = 1L;

  public DeviceInUseException(String message, long code) {
    super(message, code);
  }
}
