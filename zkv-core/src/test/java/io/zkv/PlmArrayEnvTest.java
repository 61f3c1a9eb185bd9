package io.zkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zone file system and RocksDB on a plmarray: device (docs/plm.md), unchanged: the WAL and
 * metadata land on the meta set, SST data striped over the kv-sets; with R-Vigil driving the
 * windows (1000 times shorter than the paper's), the data survives a reopen.
 */
class PlmArrayEnvTest {
  static final long MIB = 1024 * 1024;

  @TempDir Path dir;

  private String uri(Path file) throws Exception {
    EmulatedDevice.format(file, DeviceGeometry.of(64, 8 * MIB, 8 * MIB, 0, 0, 1 << 20));
    return "plmarray:" + EmulatedDevice.uri(file, "plm", "sets=4", "timescale=1000");
  }

  @Test
  void rocksDbRunsOnTheArrayWithRVigilAndReopens() throws Exception {
    String uri = uri(dir.resolve("array.zkvemu"));
    ZonedEnvOptions options = ZonedEnvOptions.builder().windowScheduler("r-vigil").build();
    PlmArrayChecks.roundTrip(uri, options, 20_000, 13);
  }

  @Test
  void zwalIsRefusedOnTheArraySayingWhy() throws Exception {
    String uri = uri(dir.resolve("zwal.zkvemu"));
    ZonedEnvOptions options =
        ZonedEnvOptions.builder()
            .wal(io.zkv.wal.WalOptions.builder().mode(io.zkv.wal.WalMode.ZWAL).build())
            .build();
    RuntimeException e =
        assertThrows(
            RuntimeException.class, () -> ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, options));
    String m = e.getMessage() + " / " + e.getCause();
    assertTrue(m.contains("ZWAL keeps zone appends in flight"), m);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) { // the failed open let it go
      assertTrue(env.formatted());
    }
  }

  @Test
  void aWindowSchedulerNeedsAPlmArray() throws Exception {
    Path file = dir.resolve("plain.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.small());
    ZonedEnvOptions options = ZonedEnvOptions.builder().windowScheduler("o-vigil").build();
    ZkvException e =
        assertThrows(
            ZkvException.class,
            () ->
                ZonedEnv.open(EmulatedDevice.uri(file, "instant"), ZonedEnv.Mode.FORMAT, options));
    assertTrue(e.getMessage().contains("needs a plmarray: device"), e.getMessage());
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "instant"))) {
      assertEquals(false, dev.isPlmArray()); // the failed open closed the device again
    }
    IllegalArgumentException unknown =
        assertThrows(
            IllegalArgumentException.class,
            () -> ZonedEnvOptions.builder().windowScheduler("silk"));
    assertTrue(unknown.getMessage().contains("base, plm, r-vigil, o-vigil"), unknown.getMessage());
  }

  /** A PLM device's sets, but not composed: the message says how to write the URI. */
  @Test
  void anUncomposedPlmDeviceIsRefusedWithTheUriToUse() throws Exception {
    Path file = dir.resolve("sets.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(64, 8 * MIB, 8 * MIB, 0, 0, 1 << 20));
    String plain = EmulatedDevice.uri(file, "plm", "sets=4");
    ZonedEnvOptions options = ZonedEnvOptions.builder().windowScheduler("r-vigil").build();
    ZkvException e =
        assertThrows(ZkvException.class, () -> ZonedEnv.open(plain, ZonedEnv.Mode.FORMAT, options));
    assertTrue(e.getMessage().contains("cannot start window scheduler r-vigil"), e.getMessage());
    assertTrue(e.getMessage().contains("write plmarray:" + plain), e.getMessage());
  }

  /**
   * Layouts the array cannot make are refused at open, saying why: three sets leave two kv-sets,
   * parity over a single data set; two or one leave no kv-set to stripe over.
   */
  @Test
  void tooFewSetsForParityAreRefusedAtOpen() throws Exception {
    Path file = dir.resolve("few.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(64, 8 * MIB, 8 * MIB, 0, 0, 1 << 20));
    ZonedEnvOptions options = ZonedEnvOptions.builder().windowScheduler("o-vigil").build();
    for (int sets = 1; sets <= 3; sets++) {
      String uri = "plmarray:" + EmulatedDevice.uri(file, "plm", "sets=" + sets);
      ZkvException e =
          assertThrows(ZkvException.class, () -> ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, options));
      assertTrue(e.getMessage().contains("at least 4 NVM Sets"), e.getMessage());
      assertTrue(e.getMessage().contains("so that parity has two data chunks"), e.getMessage());
      assertTrue(e.getMessage().contains("the device has " + sets), e.getMessage());
    }
  }

  /**
   * A drive whose NVM Sets are namespaces, composed one device per set (here emulated devices
   * without PLM stand for them, as QEMU's namespaces in the guest): the window schedulers are
   * refused because the device has no PLM, Base (PLM off) runs RocksDB on it, and the data survives
   * a reopen.
   */
  @Test
  void namespacesWithoutPlmRunBaseAndRefuseTheSchedulersThatAskForWindows() throws Exception {
    StringBuilder list = new StringBuilder("plmarray:");
    for (int i = 1; i <= 4; i++) {
      Path file = dir.resolve("ns" + i + ".zkvemu");
      EmulatedDevice.format(file, DeviceGeometry.of(16, 8 * MIB, 8 * MIB, 0, 0, 1 << 20));
      list.append(i > 1 ? "," : "").append(EmulatedDevice.uri(file, "instant"));
    }
    String uri = list.toString();
    PlmArrayChecks.schedulersNeedingPlmRefused(uri);
    try (ZonedDevice device = ZonedDevice.open(uri)) {
      assertEquals(null, device.plmArray().set(2).window(), "PLM is off on a device without it");
    }
    PlmArrayChecks.roundTrip(
        uri, ZonedEnvOptions.builder().windowScheduler("base").build(), 5_000, 7);
  }
}
