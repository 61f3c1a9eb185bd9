package io.zkv.device.plm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Little-endian views of PLM structures with a length check first. */
final class PlmBytes {
  private PlmBytes() {}

  static ByteBuffer view(byte[] data, int need, String what) throws PlmFormatException {
    if (data == null || data.length < need) {
      throw new PlmFormatException(
          what
              + " needs "
              + need
              + " bytes, got "
              + (data == null ? "none" : String.valueOf(data.length)));
    }
    return ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
  }
}
