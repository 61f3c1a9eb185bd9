package io.zkv.fs;

import io.zkv.device.ZonedDeviceException;

/**
 * The device holds no zkv file system (as opposed to a damaged one): the mount found no superblock
 * of zkv's in any metadata zone. The native status is {@code -ENODATA}; callers decide by this
 * type, never by the message's text. Format the device ({@code zkv mkfs}, {@code
 * ZoneFsSettings.format()}, {@code ZonedEnv.Mode.FORMAT_IF_UNFORMATTED}) to create one.
 */
public final class NotFormattedException extends ZonedDeviceException {
  private static final long serialVersionUID = 1L;

  /** The native status of a mount that found no zkv file system. */
  public static final int ENODATA = 61;

  public NotFormattedException(String message) {
    super(message, -ENODATA);
  }

  /**
   * The typed exception for a failed mount's native status: this one for {@code -ENODATA}, a plain
   * {@link ZonedDeviceException} otherwise.
   */
  public static ZonedDeviceException ofMount(String message, long status) {
    return status == -ENODATA
        ? new NotFormattedException(message)
        : new ZonedDeviceException(message, status);
  }
}
