package io.zkv.device;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The conformance suite on the {@code zbd:} backend (the kernel's zoned block device). Needs a real
 * zoned device: runs in the QEMU guest ({@code scripts/guest/}) with {@code
 * -Dzkv.test.device=zbd:/dev/nvme0n1}.
 */
@Tag("guest")
@EnabledIfSystemProperty(named = KernelDevices.PROPERTY, matches = "zbd:.+")
class ZbdDeviceConformanceTest extends ZonedDeviceConformanceTest {
  @Override
  protected DeviceUnderTest newDevice() throws Exception {
    return DeviceUnderTest.of(KernelDevices.openReset(KernelDevices.uri("zbd")));
  }
}
