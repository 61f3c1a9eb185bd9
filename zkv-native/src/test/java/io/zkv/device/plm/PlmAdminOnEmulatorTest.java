package io.zkv.device.plm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.NvmeAdminException;
import io.zkv.device.ZonedDevice;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A backend without NVMe admin commands reports PLM as not supported, not as a failure. */
class PlmAdminOnEmulatorTest {
  @TempDir Path dir;

  @Test
  void emulatorHasNoPlm() throws Exception {
    Path file = dir.resolve("dev.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(4, 1 << 20, 1 << 20, 2, 2, 64 << 10));
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "instant"))) {
      PlmAdmin plm = new PlmAdmin(dev);
      assertFalse(plm.advertised());
      PlmNotSupportedException e = assertThrows(PlmNotSupportedException.class, () -> plm.log(1));
      assertEquals(-95, e.rawStatus(), "EOPNOTSUPP from the emulator backend");
      assertTrue(e.getMessage().contains("not supported"), e::getMessage);
      assertThrows(PlmNotSupportedException.class, () -> plm.window(1));
      assertThrows(IllegalArgumentException.class, () -> plm.window(0));
      NvmeAdminException raw =
          assertThrows(NvmeAdminException.class, () -> dev.nvmeAdmin(0x06, 0, 1, 0, 0, 0, null));
      assertEquals(-1, raw.statusCode());
    }
  }
}
