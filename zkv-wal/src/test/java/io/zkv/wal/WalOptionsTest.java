package io.zkv.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WalOptionsTest {
  @Test
  void bufferFrom4KiBTo1MiBInBlockMultiples() {
    assertEquals(1 << 20, WalOptions.defaults().bufferBytes());
    assertEquals(4096, WalOptions.withBuffer(4096).bufferBytes());
    assertEquals(WalOptions.withBuffer(8192), WalOptions.withBuffer(8192));
    for (int bad : new int[] {0, 512, 4095, 4096 + 100, (1 << 20) + 512, 2 << 20}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> WalOptions.withBuffer(bad));
      assertTrue(e.getMessage().contains("must be 4 KiB to 1 MiB"), e.getMessage());
    }
  }
}
