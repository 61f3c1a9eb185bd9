package io.zkv.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WalOptionsTest {
  @Test
  void bufferFrom4KiBTo1MiBInBlockMultiples() {
    assertEquals(1 << 20, WalOptions.defaults().bufferBytes());
    assertEquals(WalMode.FILE, WalOptions.defaults().mode());
    assertEquals(4096, WalOptions.withBuffer(4096).bufferBytes());
    assertEquals(WalOptions.withBuffer(8192), WalOptions.withBuffer(8192));
    for (int bad : new int[] {0, 512, 4095, 4096 + 100, (1 << 20) + 512, 2 << 20}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> WalOptions.withBuffer(bad));
      assertTrue(e.getMessage().contains("must be 4 KiB to 1 MiB"), e.getMessage());
    }
  }

  @Test
  void zwalQueueDepthAndBarrierAreChecked() {
    WalOptions z =
        WalOptions.builder().mode(WalMode.ZWAL).buffer(8192).queueDepth(16).barrier(65536).build();
    assertEquals(WalMode.ZWAL, z.mode());
    assertEquals(16, z.queueDepth());
    assertEquals(65536, z.barrierBytes());
    assertEquals("WalOptions[mode=ZWAL, buffer=8192, queueDepth=16, barrier=65536]", z.toString());
    assertEquals(32, WalOptions.builder().mode(WalMode.ZWAL).build().queueDepth());
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> WalOptions.builder().queueDepth(65))
            .getMessage()
            .contains("must be 1 to 64"));
    assertThrows(IllegalArgumentException.class, () -> WalOptions.builder().queueDepth(0));
    assertThrows(IllegalArgumentException.class, () -> WalOptions.builder().barrier(1000));
    assertThrows(IllegalArgumentException.class, () -> WalOptions.builder().barrier(-512));
  }

  @Test
  void twoReservedWalZonesByDefaultZeroToEight() {
    assertEquals(2, WalOptions.defaults().reservedZones());
    assertEquals(0, WalOptions.defaults().switchRoom());
    WalOptions none = WalOptions.builder().reservedZones(0).build();
    assertEquals(0, none.reservedZones());
    assertTrue(!none.equals(WalOptions.defaults()));
    assertEquals("WalOptions[mode=FILE, buffer=1048576, reservedZones=0]", none.toString());
    WalOptions r = WalOptions.builder().reservedZones(8).switchRoom(1 << 20).build();
    assertEquals(
        "WalOptions[mode=FILE, buffer=1048576, reservedZones=8, switchRoom=1048576]", r.toString());
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> WalOptions.builder().reservedZones(9))
            .getMessage()
            .contains("must be 0 to 8"));
    assertThrows(IllegalArgumentException.class, () -> WalOptions.builder().reservedZones(-1));
    assertThrows(IllegalArgumentException.class, () -> WalOptions.builder().switchRoom(-1));
  }
}
