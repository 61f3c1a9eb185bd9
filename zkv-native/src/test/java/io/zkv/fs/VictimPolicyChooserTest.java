package io.zkv.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.ZoneCondition;
import io.zkv.placement.ZoneTable;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The native zone view as a victim policy sees it. */
class VictimPolicyChooserTest {
  private static final long MIB = 1 << 20;
  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(6, 4 * MIB, 3 * MIB, 6, 6, 65536);

  /** One zone: written bytes, live, copy, meta, busy, victim-eligible. */
  private static void zone(
      ZoneViewWriter w,
      long written,
      long live,
      long copy,
      boolean meta,
      boolean busy,
      boolean ok) {
    int i = w.zones.size();
    w.zones.add(
        new ZoneViewWriter.Zone(i * 4 * MIB, 3 * MIB, written, live, copy, 3, meta, busy, ok, -1));
    if (live > 0 && !meta) {
      w.placements.add(new ZoneViewWriter.Placement(i, 100 + i, live));
    }
  }

  private static ByteBuffer table(boolean busyFullZones) {
    ZoneViewWriter w = new ZoneViewWriter();
    zone(w, MIB, MIB, MIB, true, false, false); // metadata
    zone(w, 3 * MIB, MIB / 4, 2 * MIB, false, busyFullZones, true); // padded syncs: 0.25 in 2 MiB
    zone(w, 3 * MIB, 3 * MIB / 2, 3 * MIB / 2, false, busyFullZones, true); // 1.5 MiB to copy
    zone(w, 3 * MIB, MIB / 2, MIB / 2, false, busyFullZones, false); // withheld (above the bound)
    zone(w, 3 * MIB, 0, 0, false, true, false); // full, busy
    zone(w, MIB, MIB, MIB, false, false, false); // partly written
    return w.build();
  }

  @Test
  void policiesSeeTheBytesToCopy() {
    ZoneTable view = ZoneTableProjection.forVictimChoice(ZoneView.wrap(table(false)), GEOMETRY);
    assertEquals(2 * MIB, view.zone(1).liveBytes()); // blocks to copy, not live bytes
    assertEquals(MIB / 4, view.liveBytes(1, 101)); // the file's own bytes, the rest is padding
    assertEquals(ZoneCondition.FULL, view.zone(3).condition());
    assertTrue(view.zone(4).busy());
    // greedy by bytes to copy: zone 3 (0.5 MiB); by live bytes it would have been zone 1
    VictimPolicyChooser chooser = new VictimPolicyChooser(new GreedyVictimPolicy(), GEOMETRY);
    assertEquals(3, chooser.chooseVictim(table(false)));
    assertEquals(1, chooser.calls());
  }

  @Test
  void noFullIdleZoneMeansNoVictim() {
    assertEquals(
        -1, new VictimPolicyChooser(new GreedyVictimPolicy(), GEOMETRY).chooseVictim(table(true)));
  }

  @Test
  void allocationSeesLiveBytesOfRealFiles() {
    ZoneTable view = ZoneTableProjection.forAllocation(ZoneView.wrap(table(false)), GEOMETRY);
    assertEquals(MIB / 4, view.zone(1).liveBytes());
    assertEquals(java.util.Set.of(101L), view.filesIn(1));
    assertFalse(view.zone(3).busy());
    assertEquals(ZoneCondition.CLOSED, view.zone(5).condition());
  }
}
