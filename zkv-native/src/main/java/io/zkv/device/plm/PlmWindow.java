package io.zkv.device.plm;

/** The window an NVM Set is in (PLM Window feature 0x14, Window Select; log page 0x0A status). */
public enum PlmWindow {
  /** Deterministic Window: reads and writes see predictable latency. */
  DETERMINISTIC(1),
  /** Non-Deterministic Window: the device does its background work. */
  NON_DETERMINISTIC(2);

  private final int code;

  PlmWindow(int code) {
    this.code = code;
  }

  /** The spec's Window Select value. */
  public int code() {
    return code;
  }

  /** Decodes a Window Select value (bits 2:0); other values are reserved. */
  public static PlmWindow of(int code) throws PlmFormatException {
    for (PlmWindow w : values()) {
      if (w.code == code) {
        return w;
      }
    }
    throw new PlmFormatException("reserved PLM window select value " + code);
  }
}
