package io.zkv;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDeviceException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Emulated devices and small helpers for the zkv-core tests. */
final class TestDevices {
  /** 16 zones of 8 MiB (6 MiB capacity): 13 data zones, 78 MiB. */
  static final DeviceGeometry MEDIUM = DeviceGeometry.of(16, 8L << 20, 6L << 20, 8, 8, 1 << 20);

  private TestDevices() {}

  /** Formats an emulated device file in {@code dir} and returns its URI (profile instant). */
  static String format(Path dir, String name, DeviceGeometry g) throws ZonedDeviceException {
    Path f = dir.resolve(name + ".zkvemu");
    EmulatedDevice.format(f, g);
    return EmulatedDevice.uri(f, "instant");
  }

  static String medium(Path dir) throws ZonedDeviceException {
    return format(dir, "dev", MEDIUM);
  }

  /** Options that fit a small device: 1 MiB memtables, 1 MiB SST files. */
  static ZkvOptions small() {
    return ZkvOptions.builder()
        .writeBufferSize(1L << 20)
        .rocksDbTuning(o -> o.setTargetFileSizeBase(1L << 20))
        .build();
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
