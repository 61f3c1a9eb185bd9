package io.zkv.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.ZoneCondition;
import io.zkv.placement.ZoneTable;
import org.junit.jupiter.api.Test;

/** The native zone table as a victim policy sees it. */
class VictimPolicyChooserTest {
  private static final long MIB = 1 << 20;
  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(6, 4 * MIB, 3 * MIB, 6, 6, 65536);

  /** One zone's row: written bytes, live, copy, meta, busy, victim-eligible. */
  private static void zone(
      long[] t, int i, long written, long live, long copy, int meta, int busy, int ok) {
    int o = i * NativeZoneTable.FIELDS;
    t[o + NativeZoneTable.START] = i * 4 * MIB;
    t[o + NativeZoneTable.CAPACITY] = 3 * MIB;
    t[o + NativeZoneTable.WRITE_POINTER] = i * 4 * MIB + written;
    t[o + NativeZoneTable.LIVE] = live;
    t[o + NativeZoneTable.LIFETIME] = 3;
    t[o + NativeZoneTable.META] = meta;
    t[o + NativeZoneTable.BUSY] = busy;
    t[o + NativeZoneTable.COPY] = copy;
    t[o + NativeZoneTable.VICTIM_OK] = ok;
  }

  private static long[] table() {
    long[] t = new long[6 * NativeZoneTable.FIELDS];
    zone(t, 0, MIB, MIB, MIB, 1, 0, 0); // metadata
    zone(t, 1, 3 * MIB, MIB / 4, 2 * MIB, 0, 0, 1); // full: padded syncs, 0.25 MiB in 2 MiB
    zone(t, 2, 3 * MIB, 3 * MIB / 2, 3 * MIB / 2, 0, 0, 1); // full, 1.5 MiB to copy
    zone(t, 3, 3 * MIB, MIB / 2, MIB / 2, 0, 0, 0); // full but withheld (e.g. above the bound)
    zone(t, 4, 3 * MIB, 0, 0, 0, 1, 0); // full, busy
    zone(t, 5, MIB, MIB, MIB, 0, 0, 0); // partly written
    return t;
  }

  @Test
  void policiesSeeTheBytesToCopy() {
    ZoneTable view = ZoneTableProjection.forVictimChoice(table(), GEOMETRY);
    assertEquals(2 * MIB, view.zone(1).liveBytes()); // blocks to copy, not live bytes
    assertEquals(ZoneCondition.FULL, view.zone(3).condition());
    assertTrue(view.zone(4).busy());
    // greedy by bytes to copy: zone 3 (0.5 MiB); by live bytes it would have been zone 1
    VictimPolicyChooser chooser = new VictimPolicyChooser(new GreedyVictimPolicy(), GEOMETRY);
    assertEquals(3, chooser.chooseVictim(table()));
    assertEquals(1, chooser.calls());
  }

  @Test
  void noFullIdleZoneMeansNoVictim() {
    long[] t = table();
    for (int i = 1; i < 4; i++) {
      t[i * NativeZoneTable.FIELDS + NativeZoneTable.BUSY] = 1;
    }
    assertEquals(-1, new VictimPolicyChooser(new GreedyVictimPolicy(), GEOMETRY).chooseVictim(t));
  }

  @Test
  void allocationSeesLiveBytes() {
    ZoneTable view = ZoneTableProjection.forAllocation(table(), GEOMETRY);
    assertEquals(MIB / 4, view.zone(1).liveBytes());
    assertFalse(view.zone(3).busy());
    assertEquals(ZoneCondition.CLOSED, view.zone(5).condition());
  }
}
