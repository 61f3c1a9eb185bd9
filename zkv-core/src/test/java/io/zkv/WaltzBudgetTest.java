package io.zkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkv.device.DeviceGeometry;
import org.junit.jupiter.api.Test;

/**
 * How many zones WALTZ's log keeps beside its current one, by the device's active limit: the file
 * system's limit (the device's less 2) must leave a flush, a compaction and the MANIFEST a zone
 * each where it can, two of them at least (issue 42: the log's four zones left an 8-active device's
 * flush none after a crash).
 */
class WaltzBudgetTest {
  private static WaltzMode.ZoneBudget budget(int active, int envReserve) {
    return WaltzMode.budgetFor(
        DeviceGeometry.of(64, 4L << 20, 3L << 20, active, active, 1 << 20), envReserve, "emu:x");
  }

  @Test
  void theLogLeavesTheDatabasesWritersTheirZones() {
    assertEquals(new WaltzMode.ZoneBudget(2, 1), budget(0, 2)); // no limit
    assertEquals(new WaltzMode.ZoneBudget(2, 1), budget(14, 2)); // 12: 1 + 3 beside 2 + 3 + 3
    assertEquals(new WaltzMode.ZoneBudget(2, 1), budget(10, 0)); // 8: 1 + 3 beside 3, 1 free
    assertEquals(new WaltzMode.ZoneBudget(1, 1), budget(8, 0)); // 6: 1 + 2 beside 3
    assertEquals(new WaltzMode.ZoneBudget(1, 0), budget(7, 0)); // 5: 1 + 1 beside 3
    assertEquals(new WaltzMode.ZoneBudget(1, 0), budget(6, 0)); // 4: 1 + 1 beside 2 (at least)
    assertEquals(new WaltzMode.ZoneBudget(1, 0), budget(8, 2)); // 6: 1 + 1 beside 2 + 2
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> budget(6, 2));
    assertEquals(true, e.getMessage().contains("reservedZones(0)"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> budget(5, 0));
  }
}
