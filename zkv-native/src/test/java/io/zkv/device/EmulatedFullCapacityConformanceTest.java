package io.zkv.device;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance suite on the emulator with zone capacity equal to zone size (QEMU's and
 * null_blk's default): the next zone starts right where a zone's writable space ends.
 */
class EmulatedFullCapacityConformanceTest extends ZonedDeviceConformanceTest {
  private static final long KIB = 1024;

  @TempDir Path dir;

  @Override
  protected DeviceUnderTest newDevice() throws Exception {
    Path file = dir.resolve("conformance.zkvemu");
    EmulatedDevice.format(
        file, DeviceGeometry.of(16, 1024 * KIB, 1024 * KIB, 4, 6, (int) (64 * KIB)));
    return DeviceUnderTest.of(ZonedDevice.open(EmulatedDevice.uri(file, "instant")));
  }
}
