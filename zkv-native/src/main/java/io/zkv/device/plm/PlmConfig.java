package io.zkv.device.plm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Predictable Latency Mode Config of one NVM Set (Set/Get Features 0x13): whether PLM is enabled
 * (Dword 12 bit 0 on Set, Dword 0 bit 0 of a Get's completion) and the 512-byte data structure:
 * Enable Event (bytes 1:0) and the DTWIN Reads, Writes and Time Thresholds (u64 at bytes 32, 40,
 * 48). The u64 fields are unsigned; Java longs hold them bit for bit.
 *
 * @param enabled Predictable Latency Enable
 * @param enableEvents Enable Event bits: 0 DTWIN reads warning, 1 writes warning, 2 time warning,
 *     14 DTWIN exceeded, 15 deterministic excursion
 * @param dtwinReadsThreshold reads (4 KiB random-read units) before the reads warning
 * @param dtwinWritesThreshold writes (optimal-write-size units) before the writes warning
 * @param dtwinTimeThreshold milliseconds in DTWIN before the time warning
 */
public record PlmConfig(
    boolean enabled,
    int enableEvents,
    long dtwinReadsThreshold,
    long dtwinWritesThreshold,
    long dtwinTimeThreshold) {
  /** Size of the data structure. */
  public static final int SIZE = 512;

  public PlmConfig {
    if ((enableEvents & ~0xFFFF) != 0) {
      throw new IllegalArgumentException("enableEvents is a 16-bit field: " + enableEvents);
    }
  }

  /** Decodes the data structure; {@code enabled} comes from the completion's Dword 0. */
  public static PlmConfig decode(byte[] data, int dword0) throws PlmFormatException {
    ByteBuffer b = PlmBytes.view(data, SIZE, "a PLM Config structure");
    return new PlmConfig(
        (dword0 & 1) != 0,
        Short.toUnsignedInt(b.getShort(0)),
        b.getLong(32),
        b.getLong(40),
        b.getLong(48));
  }

  /** The 512-byte data structure of a Set Features (reserved bytes zero). */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
    b.putShort(0, (short) enableEvents);
    b.putLong(32, dtwinReadsThreshold);
    b.putLong(40, dtwinWritesThreshold);
    b.putLong(48, dtwinTimeThreshold);
    return b.array();
  }
}
