package io.zkv.device.plm;

import java.nio.ByteBuffer;

/**
 * Log page 0x0A, Predictable Latency Per NVM Set (512 bytes): the set's window, its events, and the
 * DTWIN/NDWIN typical, maximum, minimum and estimate values (u64 little endian; unsigned, held bit
 * for bit). Units: reads in 4 KiB random reads, writes in optimal write size units, times in
 * milliseconds (NVMe 1.4, I/O Determinism).
 *
 * @param window the set's window, or null when Predictable Latency Mode is not enabled (status 0)
 * @param eventType event bits: 0 DTWIN reads warning, 1 writes warning, 2 time warning, 14 DTWIN
 *     exceeded, 15 deterministic excursion
 */
public record PredictableLatencyLog(
    PlmWindow window,
    int eventType,
    long dtwinReadsTypical,
    long dtwinWritesTypical,
    long dtwinTimeMaximum,
    long ndwinTimeMinimumHigh,
    long ndwinTimeMinimumLow,
    long dtwinReadsEstimate,
    long dtwinWritesEstimate,
    long dtwinTimeEstimate) {
  /** Size of the log page. */
  public static final int SIZE = 512;

  /** Decodes the log page; a reserved status value means the bytes are not this log. */
  public static PredictableLatencyLog decode(byte[] data) throws PlmFormatException {
    ByteBuffer b = PlmBytes.view(data, SIZE, "a Predictable Latency Per NVM Set log");
    int status = b.get(0) & 0x7;
    if ((b.get(0) & ~0x7) != 0) {
      throw new PlmFormatException(
          "reserved bits set in the PLM status byte: " + (b.get(0) & 0xFF));
    }
    PlmWindow window = status == 0 ? null : PlmWindow.of(status);
    return new PredictableLatencyLog(
        window,
        Short.toUnsignedInt(b.getShort(2)),
        b.getLong(32),
        b.getLong(40),
        b.getLong(48),
        b.getLong(56),
        b.getLong(64),
        b.getLong(128),
        b.getLong(136),
        b.getLong(144));
  }
}
