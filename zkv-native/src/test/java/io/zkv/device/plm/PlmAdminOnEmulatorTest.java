package io.zkv.device.plm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.EmulatedPlm;
import io.zkv.device.NvmeAdminException;
import io.zkv.device.ZonedDevice;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PlmAdmin on the emulator: profiles without PLM report it as not supported, not as a failure; the
 * {@code plm} profile answers the same commands as a PLM-capable {@code nvme:} controller. The
 * window clock is virtual ({@code clock=manual}), so the round trips are exact on any host.
 */
class PlmAdminOnEmulatorTest {
  private static final long MS = 1_000_000;
  @TempDir Path dir;

  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(8, 1 << 20, 1 << 20, 0, 0, 64 << 10);

  private ZonedDevice open(String profile, String... options) throws Exception {
    Path file = dir.resolve(profile + ".zkvemu");
    EmulatedDevice.format(file, GEOMETRY);
    return ZonedDevice.open(EmulatedDevice.uri(file, profile, options));
  }

  @Test
  void emulatorHasNoPlm() throws Exception {
    try (ZonedDevice dev = open("instant")) {
      PlmAdmin plm = new PlmAdmin(dev);
      assertFalse(plm.advertised());
      PlmNotSupportedException e = assertThrows(PlmNotSupportedException.class, () -> plm.log(1));
      assertEquals(-95, e.rawStatus(), "EOPNOTSUPP from the emulator backend");
      assertTrue(e.getMessage().contains("not supported"), e::getMessage);
      assertTrue(e.getCause().getMessage().contains("profile=plm"), e.getCause()::getMessage);
      assertThrows(PlmNotSupportedException.class, () -> plm.window(1));
      assertThrows(IllegalArgumentException.class, () -> plm.window(0));
      NvmeAdminException raw =
          assertThrows(NvmeAdminException.class, () -> dev.nvmeAdmin(0x06, 0, 1, 0, 0, 0, null));
      assertEquals(-1, raw.statusCode());
      assertThrows(UnsupportedOperationException.class, dev::emulatedPlm);
    }
  }

  @Test
  void plmProfileAnswersThePlmCommands() throws Exception {
    try (ZonedDevice dev = open("plm", "sets=2", "timescale=100", "clock=manual")) {
      PlmAdmin plm = new PlmAdmin(dev);
      EmulatedPlm model = dev.emulatedPlm();
      assertTrue(plm.advertised());
      assertEquals(4, model.set(2).firstZone(), "set 2 owns zones 4-7");
      assertEquals(4, model.set(2).zoneCount());

      PredictableLatencyLog off = plm.log(1);
      assertNull(off.window(), "PLM is off until configured");
      assertEquals(600, off.dtwinTimeMaximum(), "60 s / timescale 100, in ms");
      assertEquals(40, off.ndwinTimeMinimumLow());
      assertEquals(0, off.dtwinWritesTypical(), "write-free DTWIN");
      NvmeAdminException early =
          assertThrows(
              NvmeAdminException.class, () -> plm.selectWindow(1, PlmWindow.DETERMINISTIC));
      assertEquals(0x00C, early.statusCode(), "Command Sequence Error: PLM not enabled");
      assertTrue(early.getMessage().contains("Command Sequence Error"), early::getMessage);

      PlmConfig config = new PlmConfig(true, 1 << 14, 5000, 0, 300);
      plm.configure(1, config);
      plm.configure(2, new PlmConfig(true, 0, 0, 0, 0));
      assertEquals(config, plm.config(1));
      assertEquals(PlmWindow.NON_DETERMINISTIC, plm.window(1));

      long before = model.set(1).clockNanos();
      plm.selectWindow(1, PlmWindow.DETERMINISTIC); // waits out the NDWIN minimum (virtually)
      plm.selectWindow(2, PlmWindow.DETERMINISTIC);
      assertEquals(40 * MS, model.set(1).clockNanos() - before);
      assertEquals(PlmWindow.DETERMINISTIC, plm.window(1));
      PredictableLatencyLog in = plm.log(1);
      assertEquals(PlmWindow.DETERMINISTIC, in.window());
      assertEquals(600, in.dtwinTimeEstimate());
      model.advanceClock(100 * MS);
      assertEquals(500, plm.log(1).dtwinTimeEstimate(), "the estimate is live");

      ByteBuffer b = ByteBuffer.allocateDirect(4096);
      dev.read(0, b); // reads keep DTWIN
      assertEquals(in.dtwinReadsEstimate() - 1, plm.log(1).dtwinReadsEstimate());
      EmulatedPlm.ModelledReads modelled = model.set(1).modelDeterministic();
      assertEquals(1, modelled.count());
      assertTrue(
          modelled.maxNanos() >= 59_000 && modelled.maxNanos() <= 89_000,
          "74 us +-20%, no stall in DTWIN: " + modelled);
      assertEquals(PlmWindow.DETERMINISTIC, plm.window(1));
      dev.append(1, b.clear()); // a write ends it
      assertEquals(PlmWindow.NON_DETERMINISTIC, plm.window(1));
      assertEquals(PlmWindow.DETERMINISTIC, plm.window(2), "sets are independent");
      assertEquals(List.of(1), plm.eventAggregate().nvmSetIds());
      assertEquals(1 << 14, plm.log(1).eventType(), "DTWIN exceeded (writes typical 0)");
      assertEquals(0, plm.log(1).eventType(), "read without RAE: cleared");
      assertEquals(List.of(), plm.eventAggregate().nvmSetIds());
      assertEquals(1, model.set(1).writesInDtwin());
    }
  }
}
