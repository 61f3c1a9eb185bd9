package io.zkv.device.plm;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Log page 0x0B, Predictable Latency Event Aggregate: the NVM Sets with a pending PLM event, as a
 * u64 entry count followed by one u16 NVM Set Identifier per entry.
 *
 * @param nvmSetIds the sets reporting an event, in log order
 */
public record PredictableLatencyEventAggregate(List<Integer> nvmSetIds) {
  /** Bytes before the identifiers (the entry count). */
  public static final int HEADER = 8;

  public PredictableLatencyEventAggregate {
    nvmSetIds = List.copyOf(nvmSetIds);
  }

  /** The number of entries the log announces, from its first 8 bytes. */
  public static int entryCount(byte[] data) throws PlmFormatException {
    long n = PlmBytes.view(data, HEADER, "a PLM event aggregate header").getLong(0);
    if (n < 0 || n > 0xFFFF) { // identifiers are 16-bit, 0 is not a set: at most 65535 entries
      throw new PlmFormatException(
          "PLM event aggregate announces "
              + Long.toUnsignedString(n)
              + " entries; NVM Set identifiers are 16-bit");
    }
    return (int) n;
  }

  /** Decodes the whole log; the bytes must hold every announced entry. */
  public static PredictableLatencyEventAggregate decode(byte[] data) throws PlmFormatException {
    int n = entryCount(data);
    ByteBuffer b =
        PlmBytes.view(data, HEADER + 2 * n, "a PLM event aggregate of " + n + " entries");
    List<Integer> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int id = Short.toUnsignedInt(b.getShort(HEADER + 2 * i));
      if (id == 0) {
        throw new PlmFormatException("PLM event aggregate entry " + i + " names NVM Set 0");
      }
      ids.add(id);
    }
    return new PredictableLatencyEventAggregate(ids);
  }
}
