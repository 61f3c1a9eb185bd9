package io.zkv.device;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The conformance suite on the {@code nvme:} backend (NVMe passthrough on io_uring). Needs a real
 * zoned namespace: runs in the QEMU guest ({@code scripts/guest/}) with {@code
 * -Dzkv.test.device=nvme:/dev/ng0n1}.
 */
@Tag("guest")
@EnabledIfSystemProperty(named = KernelDevices.PROPERTY, matches = "nvme:.+")
class NvmeDeviceConformanceTest extends ZonedDeviceConformanceTest {
  @Override
  protected DeviceUnderTest newDevice() throws Exception {
    return DeviceUnderTest.of(KernelDevices.openReset(KernelDevices.uri("nvme")));
  }
}
