package io.zkv.device;

/** The message of the calling thread's last slow-path native failure. */
final class ZonedDeviceLastError {
  private ZonedDeviceLastError() {}

  static String get() {
    return nLastError();
  }

  private static native String nLastError();
}
