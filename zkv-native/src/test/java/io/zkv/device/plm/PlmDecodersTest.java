package io.zkv.device.plm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The PLM decoders on synthetic bytes laid out as NVMe 1.4 specifies (libnvme's structs). */
class PlmDecodersTest {
  private static ByteBuffer le(int size) {
    return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Test
  void plmConfigDecodesTheSpecLayout() throws Exception {
    ByteBuffer b = le(512);
    b.putShort(0, (short) 0xC007); // bits 0-2, 14, 15
    b.putLong(32, 1_000_000L);
    b.putLong(40, 42L);
    b.putLong(48, 60_000L);
    b.put(100, (byte) 0xFF); // reserved bytes are ignored
    PlmConfig c = PlmConfig.decode(b.array(), 1);
    assertEquals(new PlmConfig(true, 0xC007, 1_000_000L, 42L, 60_000L), c);
    assertFalse(PlmConfig.decode(b.array(), 0xFFFFFFFE).enabled(), "only Dword 0 bit 0 counts");
  }

  @Test
  void plmConfigEncodesWhatItDecodes() throws Exception {
    PlmConfig c = new PlmConfig(false, 0xFFFF, -1L, Long.MIN_VALUE, 7);
    byte[] bytes = c.encode();
    assertEquals(512, bytes.length);
    assertEquals(c, PlmConfig.decode(bytes, 0));
    assertEquals(-1L, le(8).put(bytes, 32, 8).getLong(0), "u64 all ones kept bit for bit");
    byte[] reserved = Arrays.copyOfRange(bytes, 56, 512);
    assertArrayEquals(new byte[512 - 56], reserved, "reserved bytes are zero");
    assertThrows(IllegalArgumentException.class, () -> new PlmConfig(true, 0x10000, 0, 0, 0));
  }

  @Test
  void truncatedPlmConfigFails() {
    PlmFormatException e =
        assertThrows(PlmFormatException.class, () -> PlmConfig.decode(new byte[511], 0));
    assertTrue(e.getMessage().contains("511"), e::getMessage);
    assertThrows(PlmFormatException.class, () -> PlmConfig.decode(null, 0));
    assertTrue(e.code() < 0);
  }

  private static ByteBuffer perSetLog(int status) {
    ByteBuffer b = le(512);
    b.put(0, (byte) status);
    b.putShort(2, (short) 0x4003);
    long[] values = {11, 12, 13, 14, 15};
    int[] at = {32, 40, 48, 56, 64};
    for (int i = 0; i < at.length; i++) {
      b.putLong(at[i], values[i]);
    }
    b.putLong(128, 21);
    b.putLong(136, 22);
    b.putLong(144, -2L);
    return b;
  }

  @Test
  void perSetLogDecodesTheSpecLayout() throws Exception {
    PredictableLatencyLog log = PredictableLatencyLog.decode(perSetLog(1).array());
    assertEquals(
        new PredictableLatencyLog(PlmWindow.DETERMINISTIC, 0x4003, 11, 12, 13, 14, 15, 21, 22, -2L),
        log);
    assertEquals(
        PlmWindow.NON_DETERMINISTIC, PredictableLatencyLog.decode(perSetLog(2).array()).window());
    assertNull(PredictableLatencyLog.decode(perSetLog(0).array()).window(), "PLM not enabled");
  }

  @Test
  void corruptOrTruncatedPerSetLogFails() {
    for (int status : new int[] {3, 4, 7}) {
      assertThrows(
          PlmFormatException.class,
          () -> PredictableLatencyLog.decode(perSetLog(status).array()),
          "reserved status " + status);
    }
    assertThrows(
        PlmFormatException.class, () -> PredictableLatencyLog.decode(perSetLog(0x11).array()));
    byte[] shortLog = Arrays.copyOf(perSetLog(1).array(), 152);
    PlmFormatException e =
        assertThrows(PlmFormatException.class, () -> PredictableLatencyLog.decode(shortLog));
    assertTrue(e.getMessage().contains("152"), e::getMessage);
    assertThrows(PlmFormatException.class, () -> PredictableLatencyLog.decode(new byte[0]));
  }

  private static byte[] aggregate(long count, int... ids) {
    ByteBuffer b = le(8 + 2 * ids.length);
    b.putLong(0, count);
    for (int i = 0; i < ids.length; i++) {
      b.putShort(8 + 2 * i, (short) ids[i]);
    }
    return b.array();
  }

  @Test
  void eventAggregateDecodesTheSpecLayout() throws Exception {
    assertEquals(
        List.of(1, 5, 65535),
        PredictableLatencyEventAggregate.decode(aggregate(3, 1, 5, 65535)).nvmSetIds());
    assertEquals(List.of(), PredictableLatencyEventAggregate.decode(aggregate(0)).nvmSetIds());
    assertEquals(3, PredictableLatencyEventAggregate.entryCount(aggregate(3)));
    assertEquals(
        List.of(9),
        PredictableLatencyEventAggregate.decode(aggregate(1, 9, 0)).nvmSetIds(),
        "bytes past the announced entries are not entries");
  }

  @Test
  void corruptOrTruncatedEventAggregateFails() {
    assertThrows(
        PlmFormatException.class,
        () -> PredictableLatencyEventAggregate.decode(aggregate(3, 1, 5)),
        "announces more entries than it holds");
    assertThrows(
        PlmFormatException.class,
        () -> PredictableLatencyEventAggregate.decode(aggregate(0x10000)),
        "more entries than 16-bit identifiers allow");
    assertThrows(
        PlmFormatException.class,
        () -> PredictableLatencyEventAggregate.decode(aggregate(-1L)),
        "a u64 count of all ones");
    assertThrows(
        PlmFormatException.class,
        () -> PredictableLatencyEventAggregate.decode(aggregate(2, 4, 0)),
        "NVM Set 0 does not exist");
    assertThrows(
        PlmFormatException.class, () -> PredictableLatencyEventAggregate.decode(new byte[7]));
  }

  @Test
  void windowSelectValues() throws Exception {
    assertEquals(PlmWindow.DETERMINISTIC, PlmWindow.of(1));
    assertEquals(PlmWindow.NON_DETERMINISTIC, PlmWindow.of(2));
    for (int reserved : new int[] {0, 3, 7}) {
      assertThrows(PlmFormatException.class, () -> PlmWindow.of(reserved));
    }
  }
}
