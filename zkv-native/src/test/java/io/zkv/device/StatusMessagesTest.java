package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.nativelib.ZkvNative;
import org.junit.jupiter.api.Test;

/** Every native code reaches users with a name and a sentence, never as a bare number. */
class StatusMessagesTest {
  @Test
  void everyNvmeStatusHasItsNameAndASentence() {
    ZkvNative.ensureLoaded();
    for (ZnsStatus s : ZnsStatus.values()) {
      if (s == ZnsStatus.OTHER) {
        continue;
      }
      long code = -(ZnsStatus.ZNS_BASE | s.nvmeStatus());
      ZonedDeviceException e = ZonedDeviceException.of(code, "write at 0");
      ZoneStatusException z = assertInstanceOf(ZoneStatusException.class, e);
      assertEquals(s, z.status());
      String head =
          "write at 0: "
              + s.description()
              + String.format(" (NVMe status 0x%03X): ", s.nvmeStatus());
      assertTrue(e.getMessage().startsWith(head), e.getMessage());
      assertTrue(e.getMessage().length() > head.length() + 10, "a sentence: " + e.getMessage());
    }
  }

  @Test
  void unknownStatusesAndHostErrorsAreNamedToo() {
    ZkvNative.ensureLoaded();
    ZonedDeviceException unknown = ZonedDeviceException.of(-(ZnsStatus.ZNS_BASE | 0x1C5), "append");
    assertEquals(ZnsStatus.OTHER, ((ZoneStatusException) unknown).status());
    assertEquals(
        "append: NVMe status 0x1C5 (type 1, code 0xC5): a status zkv has no name for",
        unknown.getMessage());
    assertTrue(
        ZonedDeviceException.of(-28, "sync")
            .getMessage()
            .startsWith("sync: No space left on device (ENOSPC): "));
    assertTrue(
        ZonedDeviceException.of(-117, "mount").getMessage().contains("(EUCLEAN): the zone file"));
    assertInstanceOf(DeviceInUseException.class, ZonedDeviceException.of(-16, "open"));
    for (long code = -1; code > -134; code--) {
      if (code == -41 || code == -58) {
        continue; // numbers Linux assigns no error to
      }
      String m = ZonedDeviceException.of(code, "op").getMessage();
      assertFalse(m.contains("Unknown error") || m.contains("unknown errno"), m);
    }
  }

  @Test
  void adminStatusesAreNamed() {
    ZkvNative.ensureLoaded();
    NvmeAdminException e = new NvmeAdminException(0x0A, 0x7F000A, 0x4002, -0x10002, "");
    assertEquals(
        "NVMe admin command 0x0A (cdw10 0x7F000A): Invalid Field in Command (NVMe status 0x002):"
            + " the device refused a field of the command (unaligned offset or length, an append"
            + " above ZASL, an unknown action) (raw status 0x4002, Do Not Retry)",
        e.getMessage());
    assertTrue(
        new NvmeAdminException(0x02, 0, 0x109, -0x10109, "")
            .getMessage()
            .contains("Invalid Log Page (NVMe status 0x109)"));
  }
}
