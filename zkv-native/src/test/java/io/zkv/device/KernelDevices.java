package io.zkv.device;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real device of the guest-only tests: its URI comes from the system property {@code
 * zkv.test.device} (e.g. {@code nvme:/dev/ng0n1}). Each class is enabled only for the URIs of its
 * backend ({@code @EnabledIfSystemProperty}), so the guest runner can pass each URI in turn to the
 * same set of classes; the assumptions here catch a class run without that condition.
 */
final class KernelDevices {
  static final String PROPERTY = "zkv.test.device";

  private KernelDevices() {}

  /** The device URI if it uses {@code scheme}; otherwise the calling test is skipped. */
  static String uri(String scheme) {
    String uri = System.getProperty(PROPERTY, "");
    assumeTrue(
        uri.startsWith(scheme + ":"),
        () -> "-D" + PROPERTY + "=" + scheme + ":/dev/... not given (it is '" + uri + "')");
    return uri;
  }

  /** The device URI of any kernel backend; otherwise the calling test is skipped. */
  static String anyUri() {
    String uri = System.getProperty(PROPERTY, "");
    assumeTrue(
        uri.startsWith("nvme:") || uri.startsWith("zbd:"),
        () -> "-D" + PROPERTY + "=nvme:/dev/ngXnY or zbd:/dev/nvmeXnY not given");
    return uri;
  }

  /** Opens the device and resets every zone that is not empty: a fresh device for each test. */
  static ZonedDevice openReset(String uri) throws ZonedDeviceException {
    ZonedDevice dev = ZonedDevice.open(uri);
    try {
      for (Zone z : dev.report()) {
        if (z.condition() != ZoneCondition.EMPTY) {
          dev.resetZone(z.index());
        }
      }
    } catch (ZonedDeviceException | RuntimeException e) {
      dev.close();
      throw e;
    }
    return dev;
  }
}
