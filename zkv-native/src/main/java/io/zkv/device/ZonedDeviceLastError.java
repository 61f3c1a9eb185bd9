package io.zkv.device;

/** Messages of native failures: the last slow-path one, and the text of a code. */
final class ZonedDeviceLastError {
  private ZonedDeviceLastError() {}

  static String get() {
    return nLastError();
  }

  /**
   * The name and meaning of a native code: "Zone Is Full (NVMe status 0x1B9): ..." or "No space
   * left on device (ENOSPC): ...".
   */
  static String describe(long code) {
    return code < Integer.MIN_VALUE || code >= 0 ? "code " + code : nStatusMessage((int) code);
  }

  private static native String nLastError();

  private static native String nStatusMessage(int code);
}
