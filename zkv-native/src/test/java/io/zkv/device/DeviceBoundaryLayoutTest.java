package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/**
 * The device layer's crossings of the typed native boundary (layouts 5-7 and 9-11: geometry, zone
 * report, counters, an emulated PLM set, a plmarray: set, the host's lateness) agree with the C
 * structs as compiled (zkv/device.h, reported by zkv_boundary_layout).
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
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(DeviceGeometry.LAYOUT));
  }

  @Test
  void plmSetStateArraySetAndLateness() {
    assertArrayEquals(
        new int[] {
          1,
          EmulatedPlm.STATS_RECORD,
          EmulatedPlm.FIRST_ZONE,
          EmulatedPlm.NR_ZONES,
          EmulatedPlm.WINDOW,
          EmulatedPlm.CLOCK_NS,
          EmulatedPlm.BACKLOG_NS,
          EmulatedPlm.CAPACITY_NS,
          EmulatedPlm.DIRTY_BYTES,
          EmulatedPlm.LAST_LOCKDOWN_NS,
          EmulatedPlm.LAST_LOCKDOWN_BYTES,
          EmulatedPlm.DTWIN_ENTRIES,
          EmulatedPlm.AUTONOMOUS_EXITS,
          EmulatedPlm.WRITES_IN_DTWIN,
          EmulatedPlm.READS_DETERMINISTIC,
          EmulatedPlm.READS_NONDETERMINISTIC,
          EmulatedPlm.READS_STALLED,
          EmulatedPlm.MAX_STALL_NS,
          EmulatedPlm.RECLAIM_JOBS,
          EmulatedPlm.GC_JOBS,
          EmulatedPlm.MODEL_READ_SUM_NS,
          EmulatedPlm.MODEL_READ_MAX_NS,
          EmulatedPlm.MODEL_READS_OVER_200US
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(EmulatedPlm.STATS_LAYOUT));
    assertArrayEquals(
        new int[] {
          1,
          PlmArray.STATS_RECORD,
          PlmArray.WINDOW,
          PlmArray.HELD_WRITES,
          PlmArray.HELD_BYTES,
          PlmArray.HOLD_CAPACITY,
          PlmArray.WRITES_DIRECT,
          PlmArray.WRITES_HELD,
          PlmArray.BYTES_DRAINED,
          PlmArray.WRITES_FORCED,
          PlmArray.READS_DIRECT,
          PlmArray.READS_RECONSTRUCTED,
          PlmArray.READS_FROM_BUFFER,
          PlmArray.JOURNAL_BYTES,
          PlmArray.WRITES_UNSCHEDULED
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(PlmArray.STATS_LAYOUT));
    assertArrayEquals(
        new int[] {
          1, EmulatedDevice.LATENESS_RECORD, 0, EmulatedDevice.LATE, EmulatedDevice.WORST_LATE_NS
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(EmulatedDevice.LATENESS_LAYOUT));
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
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(ZonedDevice.REPORT_LAYOUT));
    assertArrayEquals(
        new int[] {1, ZonedDevice.STATS_FIELDS * 8, 0, (ZonedDevice.STATS_FIELDS - 1) * 8},
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(ZonedDevice.STATS_LAYOUT));
  }
}
