package io.zkv.device;

import io.zkv.device.plm.PlmAdmin;
import io.zkv.device.plm.PlmConfig;
import io.zkv.device.plm.PlmWindow;
import java.nio.file.Path;

/**
 * The conformance suite on a {@code plmarray:} device (docs/plm.md) over an emulated PLM device of
 * 4 NVM Sets: kv-sets 2 and 3 in DTWIN (writes to them held in the array's buffer, their reads
 * direct) and kv-set 4 in NDWIN (its chunks rebuilt from the other two): data and zone states must
 * not notice.
 */
class PlmArrayConformanceTest extends EmulatedDeviceConformanceTest {
  /** 64 zones of 1 MiB (16 per set) with an open limit of 16: the array has 23 zones of 2 MiB. */
  @Override
  DeviceGeometry geometry() {
    return DeviceGeometry.of(64, 1024 * KIB, 1024 * KIB, 16, 0, (int) (64 * KIB));
  }

  @Override
  protected DeviceUnderTest newDevice() throws Exception {
    Path file = dir.resolve("conformance-plmarray.zkvemu");
    EmulatedDevice.format(file, geometry());
    ZonedDevice dev =
        ZonedDevice.open("plmarray:" + EmulatedDevice.uri(file, "plm", "sets=4", "clock=manual"));
    PlmAdmin plm = new PlmAdmin(dev);
    for (int set = 2; set <= 4; set++) {
      plm.configure(set, new PlmConfig(true, 0, 0, 0, 0));
    }
    plm.selectWindow(2, PlmWindow.DETERMINISTIC);
    plm.selectWindow(3, PlmWindow.DETERMINISTIC);
    return DeviceUnderTest.of(dev);
  }
}
