package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.plm.PlmAdmin;
import io.zkv.device.plm.PlmConfig;
import io.zkv.device.plm.PlmNotSupportedException;
import io.zkv.device.plm.PlmWindow;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.function.Executable;

/**
 * Predictable Latency Mode on the guest's QEMU controller, which does not implement it: every PLM
 * command must come back as {@link PlmNotSupportedException} carrying QEMU's status 0x4002 (Invalid
 * Field in Command, Do Not Retry), and the device stays usable.
 */
@Tag("guest")
@EnabledIfSystemProperty(named = KernelDevices.PROPERTY, matches = "nvme:.+")
class NvmePlmTest {
  private ZonedDevice dev;

  @BeforeEach
  void open() throws Exception {
    dev = KernelDevices.openReset(KernelDevices.uri("nvme"));
  }

  @AfterEach
  void close() {
    if (dev != null) {
      dev.close();
    }
  }

  @Test
  void qemuReportsPlmAsNotSupported() throws Exception {
    PlmAdmin plm = new PlmAdmin(dev);
    assertFalse(plm.advertised(), "QEMU's Identify Controller has CTRATT bit 5 clear");
    PlmConfig on = new PlmConfig(true, 0x7, 1000, 100, 60_000);
    List<Executable> commands =
        List.of(
            () -> plm.config(1),
            () -> plm.configure(1, on),
            () -> plm.window(1),
            () -> plm.selectWindow(1, PlmWindow.DETERMINISTIC),
            () -> plm.log(1),
            plm::eventAggregate);
    for (Executable c : commands) {
      PlmNotSupportedException e = assertThrows(PlmNotSupportedException.class, c);
      System.out.println("[" + dev.uri() + "] " + e.getMessage() + " <- " + e.getCause());
      assertEquals(0x4002, e.rawStatus(), e::getMessage);
      assertTrue(e.getMessage().contains("not supported"), e::getMessage);
    }
    // the device goes on working
    ByteBuffer b = ByteBuffer.allocateDirect(dev.geometry().lbaSize());
    assertEquals(0, dev.append(0, b));
  }

  @Test
  void adminCommandsOutsidePlmAreRefusedByZkv() {
    NvmeAdminException e =
        assertThrows(NvmeAdminException.class, () -> dev.nvmeAdmin(0x09, 0, 0x07, 0, 0, 0, null));
    assertEquals(-1, e.statusCode(), "refused on the host, not by the device");
    assertEquals(-1, e.rawStatus(), "EPERM");
    NvmeAdminException other =
        assertThrows(NvmeAdminException.class, () -> dev.nvmeAdmin(0x0A, 0, 0x0B, 0, 0, 0, null));
    assertEquals(-1, other.rawStatus(), "Get Features outside PLM: EPERM");
  }

  @Test
  void aBufferShorterThanTheTransferIsRefused() {
    // Identify moves 4 KiB whatever buffer it is given: a shorter one would be overrun
    NvmeAdminException e =
        assertThrows(
            NvmeAdminException.class,
            () -> dev.nvmeAdmin(0x06, 0, 0x01, 0, 0, 0, ByteBuffer.allocateDirect(512)));
    assertEquals(-22, e.rawStatus(), e::getMessage);
    assertTrue(e.getMessage().contains("transfers 4096 bytes"), e::getMessage);
  }
}
