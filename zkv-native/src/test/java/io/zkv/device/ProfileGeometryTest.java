package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-profile default geometries and the model's own clock (clock=virtual). */
class ProfileGeometryTest {
  private static final long MIB = 1L << 20;

  @TempDir Path dir;

  @Test
  void zn540KeepsItsCapacityRatioAtOneThirtySecondOfItsZoneSize() {
    DeviceGeometry g = ProfileGeometry.of("zn540", 16);
    assertEquals(2048 * MIB / ProfileGeometry.SCALE, g.zoneSize());
    // 1,077 of 2,048 MiB, rounded down to 4 KiB blocks
    assertEquals(35_291_136L, g.zoneCapacity());
    assertEquals(14, g.maxOpen());
    assertEquals(14, g.maxActive());
    assertEquals(MIB, g.zasl());
  }

  @Test
  void cazaIsNullBlkLikeCapacityEqualsSizeAndNoLimits() {
    DeviceGeometry g = ProfileGeometry.of("caza", 100);
    assertEquals(g.zoneSize(), g.zoneCapacity());
    assertEquals(1024 * MIB / ProfileGeometry.SCALE, g.zoneSize());
    assertEquals(0, g.maxOpen());
    assertEquals(0, g.maxActive());
  }

  @Test
  void givenSizesWinAndTheRatioFollowsAGivenSize() {
    assertEquals(48 * MIB, ProfileGeometry.of("instant", 64).zoneCapacity());
    DeviceGeometry g = ProfileGeometry.of("instant", 8, MIB, 0);
    assertEquals(768 * 1024, g.zoneCapacity()); // 3/4, as mkfs's --zone-cap default was
    assertEquals(3 * MIB, ProfileGeometry.of("zn540", 8, 4 * MIB, 3 * MIB).zoneCapacity());
    // limits never exceed the zone count, ZASL never the capacity
    DeviceGeometry few = ProfileGeometry.of("confzns", 4, 2 * MIB, 0);
    assertEquals(4, few.maxActive());
    assertEquals(2 * MIB, few.zasl());
    assertThrows(IllegalArgumentException.class, () -> ProfileGeometry.of("nope", 4));
    assertTrue(ProfileGeometry.names().contains("caza"));
  }

  @Test
  void everyDefaultGeometryFormatsADevice() throws Exception {
    for (String name : ProfileGeometry.names()) {
      Path file = dir.resolve(name + ".zkvemu");
      EmulatedDevice.format(file, ProfileGeometry.of(name, 16));
      try (ZonedDevice d = ZonedDevice.open("emu:" + file)) {
        assertEquals(ProfileGeometry.of(name, 16), d.geometry());
      }
    }
  }

  /** On the model's clock a QD1 8 KiB zn540 append takes the modelled time, never the host's. */
  @Test
  void aVirtualClockMovesByTheModelledLatency() throws Exception {
    Path file = dir.resolve("virtual.zkvemu");
    EmulatedDevice.format(file, ProfileGeometry.of("zn540", 4));
    long[] run = new long[2];
    for (int k = 0; k < 2; k++) {
      try (ZonedDevice d =
          ZonedDevice.open(EmulatedDevice.uri(file, "zn540", "clock=virtual", "seed=7"))) {
        d.resetZone(0);
        long t0 = EmulatedDevice.clockNanos(d);
        ByteBuffer b = ByteBuffer.allocateDirect(8192);
        for (int i = 0; i < 100; i++) {
          b.clear();
          d.append(0, b);
        }
        run[k] = EmulatedDevice.clockNanos(d) - t0;
      }
    }
    assertEquals(run[0], run[1]); // seeded: the same modelled times
    double meanMicros = run[0] / 100 / 1000.0;
    // 8 KiB QD1 append: 16.8 us mean (ZWAL artifact); 100 lognormal draws of P99/mean 1.19
    assertTrue(meanMicros > 15.5 && meanMicros < 18.1, "mean " + meanMicros + " us");
  }
}
