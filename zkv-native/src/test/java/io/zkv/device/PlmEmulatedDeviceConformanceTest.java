package io.zkv.device;

import io.zkv.device.plm.PlmAdmin;
import io.zkv.device.plm.PlmConfig;
import io.zkv.device.plm.PlmWindow;
import java.nio.file.Path;

/**
 * The conformance suite on the emulator's {@code plm} profile: with Predictable Latency Mode on and
 * every NVM Set in its deterministic window at the start, the device is still a correct zoned
 * device (writes end a set's DTWIN, reads stall behind internal work; data and zone states must not
 * notice). Windows run 1000 times faster than the paper's.
 */
class PlmEmulatedDeviceConformanceTest extends EmulatedDeviceConformanceTest {
  @Override
  protected DeviceUnderTest newDevice() throws Exception {
    Path file = dir.resolve("conformance-plm.zkvemu");
    EmulatedDevice.format(file, geometry());
    ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "plm", "sets=4", "timescale=1000"));
    PlmAdmin plm = new PlmAdmin(dev);
    for (int set = 1; set <= 4; set++) {
      plm.configure(set, new PlmConfig(true, 0, 0, 0, 0));
    }
    for (int set = 1; set <= 4; set++) {
      plm.selectWindow(set, PlmWindow.DETERMINISTIC);
    }
    return DeviceUnderTest.of(dev);
  }
}
