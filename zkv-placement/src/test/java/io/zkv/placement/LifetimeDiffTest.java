package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LifetimeDiffTest {

  /**
   * Rows: file lifetime; columns: zone lifetime; both in NOT_SET, NONE, SHORT, MEDIUM, LONG,
   * EXTREME order. Written out by hand from ZenFS's GetLifeTimeDiff, not computed.
   */
  private static final int[][] EXPECTED = {
    {0, 100, 100, 100, 100, 100},
    {100, 0, 100, 100, 100, 100},
    {100, 100, 50, 1, 2, 3},
    {100, 100, 100, 50, 1, 2},
    {100, 100, 100, 100, 50, 1},
    {100, 100, 100, 100, 100, 50},
  };

  @Test
  void everyPairScoresAsZenFs() {
    WriteLifetime[] all = WriteLifetime.values();
    for (WriteLifetime file : all) {
      for (WriteLifetime zone : all) {
        assertEquals(
            EXPECTED[file.ordinal()][zone.ordinal()],
            LifetimeDiff.between(zone, file),
            "zone " + zone + ", file " + file);
      }
    }
  }

  @Test
  void constantsAreZenFsValues() {
    assertEquals(100, LifetimeDiff.NOT_GOOD);
    assertEquals(50, LifetimeDiff.COULD_BE_WORSE);
  }
}
