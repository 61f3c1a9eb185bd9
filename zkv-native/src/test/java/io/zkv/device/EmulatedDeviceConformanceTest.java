package io.zkv.device;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The conformance suite on the emulator: a fresh backing file per test, instant timing. */
class EmulatedDeviceConformanceTest extends ZonedDeviceConformanceTest {
  static final long KIB = 1024;

  @TempDir Path dir;

  /** 16 zones of 1 MiB with 768 KiB capacity. */
  DeviceGeometry geometry() {
    return DeviceGeometry.of(16, 1024 * KIB, 768 * KIB, 4, 6, (int) (64 * KIB));
  }

  @Override
  protected DeviceUnderTest newDevice() throws Exception {
    Path file = dir.resolve("conformance.zkvemu");
    EmulatedDevice.format(file, geometry());
    return DeviceUnderTest.of(ZonedDevice.open(EmulatedDevice.uri(file, "instant")));
  }
}
