package io.zkv.device.plm;

import io.zkv.device.NvmeAdminException;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Predictable Latency Mode commands on an {@code nvme:} device: Get/Set Features 0x13 (PLM Config)
 * and 0x14 (PLM Window), Get Log Page 0x0A (per NVM Set) and 0x0B (event aggregate), decoded into
 * {@link PlmConfig}, {@link PlmWindow}, {@link PredictableLatencyLog} and {@link
 * PredictableLatencyEventAggregate}. A device without PLM refuses these commands; that comes back
 * as {@link PlmNotSupportedException}, whatever the backend.
 */
public final class PlmAdmin {
  static final int GET_LOG_PAGE = 0x02;
  static final int IDENTIFY = 0x06;
  static final int SET_FEATURES = 0x09;
  static final int GET_FEATURES = 0x0A;
  static final int FID_PLM_CONFIG = 0x13;
  static final int FID_PLM_WINDOW = 0x14;
  static final int LID_PER_SET = 0x0A;
  static final int LID_AGGREGATE = 0x0B;

  /** Identify Controller CTRATT (bytes 99:96): bit 2 NVM Sets, bit 5 Predictable Latency Mode. */
  static final int CTRATT_OFFSET = 96;

  private static final int EOPNOTSUPP = 95;
  private final ZonedDevice device;

  public PlmAdmin(ZonedDevice device) {
    this.device = device;
  }

  /**
   * Whether the controller advertises Predictable Latency Mode (Identify Controller CTRATT bit 5).
   * False for backends that cannot send admin commands.
   */
  public boolean advertised() throws ZonedDeviceException {
    ByteBuffer id = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
    try {
      device.nvmeAdmin(IDENTIFY, 0, 0x01, 0, 0, 0, id);
    } catch (NvmeAdminException e) {
      if (e.rawStatus() == -EOPNOTSUPP) {
        return false;
      }
      throw e;
    }
    return (id.getInt(CTRATT_OFFSET) & (1 << 5)) != 0;
  }

  /** Get Features 0x13 for NVM Set {@code nvmSet} (current value). */
  public PlmConfig config(int nvmSet) throws ZonedDeviceException {
    ByteBuffer data = ByteBuffer.allocateDirect(PlmConfig.SIZE);
    int dw0 = run("Get Features PLM Config", GET_FEATURES, FID_PLM_CONFIG, set(nvmSet), 0, 0, data);
    return PlmConfig.decode(bytes(data), dw0);
  }

  /** Set Features 0x13: enables or disables PLM on a set with the config's thresholds. */
  public void configure(int nvmSet, PlmConfig config) throws ZonedDeviceException {
    ByteBuffer data = ByteBuffer.allocateDirect(PlmConfig.SIZE).put(config.encode()).flip();
    run(
        "Set Features PLM Config",
        SET_FEATURES,
        FID_PLM_CONFIG,
        set(nvmSet),
        config.enabled() ? 1 : 0,
        0,
        data);
  }

  /** Get Features 0x14: the window the set is in. */
  public PlmWindow window(int nvmSet) throws ZonedDeviceException {
    int dw0 = run("Get Features PLM Window", GET_FEATURES, FID_PLM_WINDOW, set(nvmSet), 0, 0, null);
    return PlmWindow.of(dw0 & 0x7);
  }

  /** Set Features 0x14: asks the set to enter a window. */
  public void selectWindow(int nvmSet, PlmWindow window) throws ZonedDeviceException {
    run(
        "Set Features PLM Window",
        SET_FEATURES,
        FID_PLM_WINDOW,
        set(nvmSet),
        window.code(),
        0,
        null);
  }

  /** Get Log Page 0x0A for one NVM Set (Log Specific Identifier = the set). */
  public PredictableLatencyLog log(int nvmSet) throws ZonedDeviceException {
    byte[] b = getLog(LID_PER_SET, set(nvmSet), PredictableLatencyLog.SIZE);
    return PredictableLatencyLog.decode(b);
  }

  /** Get Log Page 0x0B: reads the entry count, then all announced entries. */
  public PredictableLatencyEventAggregate eventAggregate() throws ZonedDeviceException {
    byte[] head = getLog(LID_AGGREGATE, 0, PredictableLatencyEventAggregate.HEADER);
    int n = PredictableLatencyEventAggregate.entryCount(head);
    int len = PredictableLatencyEventAggregate.HEADER + 2 * n;
    return PredictableLatencyEventAggregate.decode(getLog(LID_AGGREGATE, 0, (len + 3) & ~3));
  }

  private byte[] getLog(int lid, int lsi, int len) throws ZonedDeviceException {
    ByteBuffer data = ByteBuffer.allocateDirect(len);
    int numd = len / 4 - 1; // 0-based dwords; NUMDL in cdw10 bits 31:16, NUMDU in cdw11 15:0
    int cdw10 = lid | (numd & 0xFFFF) << 16;
    int cdw11 = (numd >>> 16) | lsi << 16;
    String what = String.format("Get Log Page 0x%02X", lid);
    run(what, GET_LOG_PAGE, cdw10, cdw11, 0, 0, data);
    return bytes(data);
  }

  /** Runs one command; a refusal that means "no PLM here" becomes PlmNotSupportedException. */
  private int run(String what, int opcode, int cdw10, int cdw11, int cdw12, int cdw13, ByteBuffer b)
      throws ZonedDeviceException {
    try {
      return device.nvmeAdmin(opcode, 0, cdw10, cdw11, cdw12, cdw13, b);
    } catch (NvmeAdminException e) {
      if (notSupported(e)) {
        throw new PlmNotSupportedException(what + " on " + device.uri(), e);
      }
      throw e;
    }
  }

  /**
   * Statuses of a device without PLM: Invalid Command Opcode (0x001), Invalid Field in Command
   * (0x002, QEMU's answer), Invalid Log Page (0x109); and a backend without admin commands.
   */
  static boolean notSupported(NvmeAdminException e) {
    int sc = e.statusCode();
    return sc == 0x001 || sc == 0x002 || sc == 0x109 || e.rawStatus() == -EOPNOTSUPP;
  }

  /** NVM Set Identifiers are 16-bit and start at 1. */
  private static int set(int nvmSet) {
    if (nvmSet < 1 || nvmSet > 0xFFFF) {
      throw new IllegalArgumentException("NVM Set Identifier must be 1..65535, not " + nvmSet);
    }
    return nvmSet;
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] a = new byte[b.capacity()];
    b.get(0, a);
    return a;
  }
}
