package io.zkv.placement;

import static io.zkv.placement.WriteLifetime.LONG;
import static io.zkv.placement.ZoneCondition.CLOSED;
import static io.zkv.placement.ZoneCondition.FULL;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class GreedyVictimPolicyTest {
  static final long CAP = 1_000;
  final GreedyVictimPolicy greedy = new GreedyVictimPolicy();

  static ZoneTable.Builder full(ZoneTable.Builder b, int zone, long live) {
    b.zone(zone, FULL, CAP, LONG);
    if (live > 0) {
      b.live(zone, 100 + zone, live);
    }
    return b;
  }

  @Test
  void choosesTheFullZoneWithLeastLiveBytes() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP);
    full(b, 1, 700);
    full(b, 3, 200);
    full(b, 4, 900);
    assertEquals(OptionalInt.of(3), greedy.chooseVictim(b.build()));
    assertEquals("greedy", greedy.name());
  }

  @Test
  void aTieGoesToTheLowestIndex() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP);
    full(b, 5, 200);
    full(b, 2, 200);
    full(b, 6, 300);
    assertEquals(OptionalInt.of(2), greedy.chooseVictim(b.build()));
  }

  @Test
  void aZoneWithoutLiveDataComesFirst() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP);
    full(b, 1, 10);
    full(b, 6, 0);
    assertEquals(OptionalInt.of(6), greedy.chooseVictim(b.build()));
  }

  @Test
  void onlyFullUnreservedUnheldZonesQualify() {
    ZoneTable.Builder b = ZoneTable.builder(8, CAP);
    b.zone(0, CLOSED, 500, LONG); // no live data but still writable: not a GC victim
    full(b, 1, 0).reserve(1, ZoneReservation.METADATA);
    full(b, 2, 0).busy(2); // a writer has not released the zone it just filled
    full(b, 3, 100).reserve(3, ZoneReservation.WAL);
    full(b, 4, 800);
    SimulatedZoneTable t = SimulatedZoneTable.of(b.build());
    t.markReadOnly(5);
    assertEquals(OptionalInt.of(4), greedy.chooseVictim(t));
  }

  @Test
  void noFullZoneNoVictim() {
    ZoneTable.Builder b = ZoneTable.builder(4, CAP);
    b.zone(0, CLOSED, 500, LONG);
    assertEquals(OptionalInt.empty(), greedy.chooseVictim(b.build()));
  }
}
