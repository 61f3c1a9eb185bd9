package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;
import org.rocksdb.ZkvEnv;

/**
 * The device layer's crossings of the typed native boundary (layouts 5-7: geometry, zone report,
 * counters) agree with the C structs as compiled (zkv/device.h, reported by zkv_boundary_layout).
 */
class DeviceBoundaryLayoutTest {
  @Test
  void geometry() {
    assertArrayEquals(
        new int[] {
          DeviceGeometry.VERSION,
          DeviceGeometry.RECORD,
          DeviceGeometry.LBA,
          DeviceGeometry.ZONES,
          DeviceGeometry.ZONE_SIZE,
          DeviceGeometry.ZONE_CAP,
          DeviceGeometry.MAX_OPEN,
          DeviceGeometry.MAX_ACTIVE,
          DeviceGeometry.ZASL,
          DeviceGeometry.FLAGS,
          DeviceGeometry.META_CLASS_ZONES
        },
        ZkvEnv.nativeBoundaryLayout(DeviceGeometry.LAYOUT));
  }

  @Test
  void zoneReportAndCounters() {
    assertArrayEquals(
        new int[] {
          1,
          ZonedDevice.REPORT_RECORD,
          ZonedDevice.Z_START,
          ZonedDevice.Z_CAP,
          ZonedDevice.Z_WP,
          ZonedDevice.Z_COND,
          ZonedDevice.Z_INDEX
        },
        ZkvEnv.nativeBoundaryLayout(ZonedDevice.REPORT_LAYOUT));
    assertArrayEquals(
        new int[] {1, ZonedDevice.STATS_FIELDS * 8, 0, (ZonedDevice.STATS_FIELDS - 1) * 8},
        ZkvEnv.nativeBoundaryLayout(ZonedDevice.STATS_LAYOUT));
  }
}
