package io.zkv;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.ZonedDevice;
import io.zkv.device.plm.PlmAdmin;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A {@code plmarray:} composed of the QEMU guest's namespaces, one per NVM Set (docs/guest.md,
 * docs/plm.md): the array opens on the real kernel path, admin commands reach the controller
 * through it (which has no PLM, so every set stays off), the schedulers that ask for windows are
 * refused at open saying so, and Base runs RocksDB on it across a remount. Guest only: it formats
 * the namespaces it is given ({@code -Dzkv.test.device}).
 */
@Tag("guest")
@EnabledIfSystemProperty(named = "zkv.test.device", matches = "plmarray:.*nvme:.+")
class KernelPlmArrayTest {
  @Test
  void baseRunsOnTheComposedNamespacesAndTheOtherSchedulersAreRefused() throws Exception {
    String uri = System.getProperty("zkv.test.device");
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      assertTrue(dev.isPlmArray());
      assertFalse(new PlmAdmin(dev).advertised(), "QEMU's controller has no PLM");
      assertNull(dev.plmArray().set(2).window(), "PLM is off");
    }
    PlmArrayChecks.schedulersNeedingPlmRefused(uri);
    PlmArrayChecks.roundTrip(
        uri, ZonedEnvOptions.builder().windowScheduler("base").build(), 4_000, 3);
  }
}
