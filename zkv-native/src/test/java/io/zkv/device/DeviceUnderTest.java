package io.zkv.device;

import java.io.IOException;

/**
 * What a backend hands {@link ZonedDeviceConformanceTest}: a fresh, empty, opened device and the
 * cleanup of whatever the backend created for it.
 */
public interface DeviceUnderTest extends AutoCloseable {
  /** The opened device; every zone EMPTY. */
  ZonedDevice device();

  /** Closes the device (a no-op if a test closed it already) and removes what the backend made. */
  @Override
  void close() throws IOException;

  /** A device whose cleanup is closing it (the backing storage is cleaned up elsewhere). */
  static DeviceUnderTest of(ZonedDevice device) {
    return of(device, () -> {});
  }

  /** A device with an extra cleanup step run after it is closed. */
  static DeviceUnderTest of(ZonedDevice device, Cleanup afterClose) {
    return new DeviceUnderTest() {
      @Override
      public ZonedDevice device() {
        return device;
      }

      @Override
      public void close() throws IOException {
        device.close();
        afterClose.run();
      }
    };
  }

  /** A cleanup step. */
  @FunctionalInterface
  interface Cleanup {
    void run() throws IOException;
  }
}
