package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments.UsageException;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.ProfileGeometry;
import org.junit.jupiter.api.Test;

/**
 * The order of {@link TargetConfig#parse}'s checks: each key as it comes, then the checks that span
 * several keys (CAZA's threshold, its reserve, the data zones left, the zone capacity), which see
 * every key whatever its place in the spec.
 */
class TargetConfigChecksTest {
  private static String refused(String spec) {
    return assertThrows(
            UsageException.class, () -> TargetConfig.parse(spec, SampleReports.defaults()))
        .getMessage();
  }

  @Test
  void eachKeyIsCheckedAsItComes() {
    assertTrue(refused("zkv:zones=2,bogus=1").contains("zones must be between 4"));
    assertTrue(refused("zkv:bogus=1,zones=2").contains("unknown key 'bogus'"));
    assertTrue(refused("zkv:zones=2,foo").contains("zones must be between 4"));
    // the target's keys first: a key rocksdb-default does not take is refused as such
    String r = refused("rocksdb-default:bogus=1");
    assertTrue(r.startsWith("configuration 'rocksdb-default:bogus=1': rocksdb-default takes"), r);
    assertTrue(r.endsWith(", not bogus"), r);
  }

  @Test
  void checksAcrossKeysSeeEveryKeyAndComeInTheirOrder() {
    // op-zones is checked against the zones given after it
    String op = refused("zkv:op-zones=12,zones=20");
    assertEquals(
        "configuration 'zkv:op-zones=12,zones=20': op-zones 12 leaves data writers fewer than 4 of"
            + " the 20 zones (3 hold the file system's metadata, 2 more are kept empty for GC and"
            + " RocksDB's metadata files)",
        op);
    // CAZA's threshold before the reserve, the reserve before the zone capacity
    assertTrue(refused("zkv:zones=20,op-zones=12,ths=10").contains("give gc=caza"));
    assertTrue(
        refused("zkv:zone-size=2M,zone-cap=4M,zones=20,op-zones=12").contains("op-zones 12"));
    assertEquals(
        "configuration 'zkv:zone-cap=4M,zone-size=2M': zone capacity 4194304 exceeds zone size"
            + " 2097152",
        refused("zkv:zone-cap=4M,zone-size=2M"));
    // a gc= given last still turns the threshold's check on, and a later gc= off again
    assertEquals(7, TargetConfig.parse("zkv:ths=7,gc=caza", SampleReports.defaults()).ths());
    assertTrue(refused("zkv:gc=caza,ths=7,gc=zenfs").contains("give gc=caza"));
  }

  @Test
  void aZoneSizeOrCapacityNotGivenComesFromTheGeometry() {
    TargetConfig open =
        TargetConfig.defaults("zn540", null, 64, 0, 0, "liza", false, LsmShape.DEFAULTS);
    TargetConfig c = TargetConfig.parse("zkv:zone-size=2M", open);
    DeviceGeometry zn540 = ProfileGeometry.of("zn540", 64, 2 << 20, 0);
    assertEquals(2 << 20, c.zoneSize());
    assertEquals(zn540.zoneCapacity(), c.zoneCapacity());
    assertEquals("zn540", c.geometry()); // the profile's own without geometry=
    TargetConfig caza = TargetConfig.parse("zkv:geometry=caza", open);
    DeviceGeometry g = ProfileGeometry.of("caza", 64, 0, 0);
    assertEquals(g.zoneSize(), caza.zoneSize());
    assertEquals(g.zoneCapacity(), caza.zoneCapacity());
    // rocksdb-default has no zones: nothing is filled in
    assertEquals(0, TargetConfig.parse("rocksdb-default", open).zoneCapacity());
  }
}
