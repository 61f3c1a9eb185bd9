package io.zkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.ZonedDevice;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A window scheduler on the QEMU guest's {@code nvme:} device (docs/guest.md), whose controller has
 * no Predictable Latency Mode: opening the env with one is refused at open, saying that the device
 * does not support PLM, and the device is left closed and usable. Guest only: it formats the device
 * it is given ({@code -Dzkv.test.device}).
 */
@Tag("guest")
@EnabledIfSystemProperty(named = "zkv.test.device", matches = "nvme:.+")
class KernelDeviceWindowSchedulerTest {
  @Test
  void aWindowSchedulerIsRefusedBecauseQemuHasNoPlm() throws Exception {
    String uri = System.getProperty("zkv.test.device");
    for (String scheduler : new String[] {"base", "plm", "r-vigil", "o-vigil"}) {
      ZonedEnvOptions options = ZonedEnvOptions.builder().windowScheduler(scheduler).build();
      ZkvException e =
          assertThrows(ZkvException.class, () -> ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, options));
      System.out.println("[" + uri + "] " + scheduler + ": " + e.getMessage());
      assertTrue(
          e.getMessage().contains("cannot start window scheduler " + scheduler), e.getMessage());
      assertTrue(
          e.getMessage().contains("does not support Predictable Latency Mode"), e.getMessage());
    }
    try (ZonedDevice dev = ZonedDevice.open(uri)) { // closed again, and still works
      dev.resetZone(0);
      ByteBuffer b = ByteBuffer.allocateDirect(dev.geometry().lbaSize());
      assertEquals(0L, dev.append(0, b));
    }
  }
}
