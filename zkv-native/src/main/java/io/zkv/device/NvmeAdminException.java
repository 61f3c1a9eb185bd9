package io.zkv.device;

/**
 * An NVMe admin command failed: the device answered with a status ({@link #rawStatus()} &gt; 0, as
 * the kernel gives it: Status Code Type and Status Code in bits 10:0, More and Do Not Retry in bits
 * 13 and 14), or the host refused it ({@link #rawStatus()} is then a negative errno).
 */
public class NvmeAdminException extends ZonedDeviceException {
  private static final long serialVersionUID = 1L;
  private final int opcode;
  private final int rawStatus;

  public NvmeAdminException(int opcode, int cdw10, int rawStatus, long code, String detail) {
    super(describe(opcode, cdw10, rawStatus, detail), code);
    this.opcode = opcode;
    this.rawStatus = rawStatus;
  }

  /** Copies another failure (a subclass saying what it means). */
  protected NvmeAdminException(String message, NvmeAdminException cause) {
    super(message, cause.code());
    this.opcode = cause.opcode;
    this.rawStatus = cause.rawStatus;
    initCause(cause);
  }

  public int opcode() {
    return opcode;
  }

  /** The device's status (e.g. 0x4002: Invalid Field in Command, Do Not Retry), or -errno. */
  public int rawStatus() {
    return rawStatus;
  }

  /** Status Code Type and Status Code ({@code SCT << 8 | SC}), or -1 when the host refused. */
  public int statusCode() {
    return rawStatus > 0 ? rawStatus & 0x7FF : -1;
  }

  private static String describe(int opcode, int cdw10, int raw, String detail) {
    String what = String.format("NVMe admin command 0x%02X (cdw10 0x%X)", opcode, cdw10);
    if (raw > 0) {
      return what
          + ": "
          + ZonedDeviceLastError.describe(-(ZnsStatus.ZNS_BASE | (raw & 0x7FF)))
          + String.format(
              " (raw status 0x%04X%s)", raw, (raw & 0x4000) != 0 ? ", Do Not Retry" : "");
    }
    String host = ZonedDeviceException.of(raw, what).getMessage();
    return detail == null || detail.isEmpty() ? host : host + " (" + detail + ")";
  }
}
