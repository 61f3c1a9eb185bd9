package io.zkv.examples;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.Zone;
import io.zkv.device.ZonedDevice;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The README's device example: format an emulated device, append a record, read it back. */
public final class DeviceQuickstart {
  private DeviceQuickstart() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("zkv-quickstart");
    Path file = dir.resolve("dev.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(32, 64L << 20, 48L << 20, 14, 14, 1 << 20));
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "zn540"))) {
      ByteBuffer record = ByteBuffer.allocateDirect(8192);
      record.put("hello, zoned world".getBytes(StandardCharsets.UTF_8)).clear();
      long at = dev.append(0, record); // the device picks the place
      ByteBuffer back = ByteBuffer.allocateDirect(8192);
      dev.read(at, back);
      back.flip().limit(18);
      Zone zone = dev.zone(0);
      System.out.printf(
          "appended at byte %d, read back \"%s\"; zone 0 is %s with %d bytes written%n",
          at, StandardCharsets.UTF_8.decode(back), zone.condition(), zone.written());
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }
}
