package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WriteLifetimeTest {

  @Test
  void valuesMirrorRocksDbEnvWriteLifeTimeHint() {
    assertEquals(0, WriteLifetime.NOT_SET.value());
    assertEquals(1, WriteLifetime.NONE.value());
    assertEquals(2, WriteLifetime.SHORT.value());
    assertEquals(3, WriteLifetime.MEDIUM.value());
    assertEquals(4, WriteLifetime.LONG.value());
    assertEquals(5, WriteLifetime.EXTREME.value());
  }

  @Test
  void fromValueRoundTripsAndRejectsOthers() {
    for (WriteLifetime lt : WriteLifetime.values()) {
      assertEquals(lt, WriteLifetime.fromValue(lt.value()));
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WriteLifetime.fromValue(6));
    assertTrue(e.getMessage().contains("0..5"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> WriteLifetime.fromValue(-1));
  }
}
