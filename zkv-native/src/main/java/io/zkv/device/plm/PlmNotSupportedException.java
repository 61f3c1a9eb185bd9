package io.zkv.device.plm;

import io.zkv.device.NvmeAdminException;

/**
 * The device does not implement Predictable Latency Mode: it refused a PLM command as an unknown
 * field, opcode or log page (QEMU answers 0x4002, Invalid Field in Command with Do Not Retry), or
 * it is not an {@code nvme:} device.
 */
public final class PlmNotSupportedException extends NvmeAdminException {
  private static final long serialVersionUID = 1L;

  PlmNotSupportedException(String what, NvmeAdminException cause) {
    super(what + ": Predictable Latency Mode is not supported by this device", cause);
  }
}
