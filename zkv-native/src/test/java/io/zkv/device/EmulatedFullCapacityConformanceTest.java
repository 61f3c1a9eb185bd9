package io.zkv.device;

/**
 * The conformance suite on the emulator with zone capacity equal to zone size (QEMU's and
 * null_blk's default): the next zone starts right where a zone's writable space ends.
 */
class EmulatedFullCapacityConformanceTest extends EmulatedDeviceConformanceTest {
  @Override
  DeviceGeometry geometry() {
    return DeviceGeometry.of(16, 1024 * KIB, 1024 * KIB, 4, 6, (int) (64 * KIB));
  }
}
