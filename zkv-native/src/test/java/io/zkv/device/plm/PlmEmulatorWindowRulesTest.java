package io.zkv.device.plm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.EmulatedPlm;
import io.zkv.device.ZoneCondition;
import io.zkv.device.ZonedDevice;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window rules of the emulator's {@code plm} profile seen from Java (PlmAdmin for the spec's
 * commands, EmulatedPlm for the model's clock and state): NDWIN Time Minimum, a lockdown that grows
 * with the bytes written in the NDWIN before, the internal job queue's limit. The window clock is
 * virtual, so the figures are exact; the real clock is checked for a lower bound only.
 */
class PlmEmulatorWindowRulesTest {
  private static final long MS = 1_000_000;
  private static final long MIB = 1 << 20;
  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(16, 4 * MIB, 4 * MIB, 0, 0, 1 << 20);

  @TempDir Path dir;
  private ZonedDevice dev;
  private PlmAdmin plm;
  private EmulatedPlm model;

  @BeforeEach
  void open() throws Exception {
    dev = open("manual.zkvemu", "timescale=100", "clock=manual");
    plm = new PlmAdmin(dev);
    model = dev.emulatedPlm();
    plm.configure(1, new PlmConfig(true, 0xC000, 0, 0, 0));
  }

  @AfterEach
  void close() {
    dev.close();
  }

  private ZonedDevice open(String name, String... options) throws Exception {
    Path file = dir.resolve(name);
    EmulatedDevice.format(file, GEOMETRY);
    String[] all = new String[options.length + 1];
    all[0] = "sets=2"; // 8 zones per set
    System.arraycopy(options, 0, all, 1, options.length);
    return ZonedDevice.open(EmulatedDevice.uri(file, "plm", all));
  }

  private void write(int zone, long bytes) throws Exception {
    ByteBuffer b = ByteBuffer.allocateDirect((int) MIB);
    for (long done = 0; done < bytes; done += MIB) {
      dev.append(zone, b.clear().limit((int) Math.min(MIB, bytes - done)));
    }
  }

  @Test
  void dtwinWaitsOutTheNdwinMinimumThenTheLockdown() throws Exception {
    long minimum = plm.log(1).ndwinTimeMinimumLow() * MS;
    assertEquals(40 * MS, minimum, "4 s / timescale 100");
    long previous = 0;
    for (int zone = 0; zone < 3; zone++) {
      long ndStart = model.set(1).clockNanos();
      write(zone, (zone + 1) * MIB);
      plm.selectWindow(1, PlmWindow.DETERMINISTIC);
      EmulatedPlm.SetState s = model.set(1);
      assertEquals(PlmWindow.DETERMINISTIC, s.window());
      assertEquals((zone + 1) * MIB, s.lastLockdownBytes(), "the bytes written in the NDWIN");
      assertEquals(minimum + s.lastLockdownNanos(), s.clockNanos() - ndStart);
      assertTrue(s.lastLockdownNanos() > previous, "the lockdown grows with the bytes written");
      previous = s.lastLockdownNanos();
      plm.selectWindow(1, PlmWindow.NON_DETERMINISTIC);
    }
  }

  @Test
  void aFullJobQueueEndsDtwin() throws Exception {
    for (int zone = 0; zone < 6; zone++) {
      write(zone, 4096);
    }
    plm.selectWindow(1, PlmWindow.DETERMINISTIC);
    long capacity = model.set(1).capacityNanos();
    assertEquals(40 * MS, capacity, "what one minimum NDWIN retires: 4 s / 100");
    int resets = 0;
    while (model.set(1).window() == PlmWindow.DETERMINISTIC) {
      dev.resetZone(resets++); // each queues 9.8 ms of garbage collection, suspended in DTWIN
    }
    assertEquals(5, resets, "four resets (39.2 ms) fit, the fifth does not");
    assertEquals(0x8000, plm.log(1).eventType(), "Deterministic Excursion");
    for (int zone = 0; zone < 5; zone++) {
      assertEquals(ZoneCondition.EMPTY, dev.zone(zone).condition(), "the resets took effect");
    }
  }

  @Test
  void onTheRealClockTheRequestIsNotCompletedBeforeTheMinimum() throws Exception {
    try (ZonedDevice real = open("real.zkvemu", "timescale=1000")) {
      PlmAdmin p = new PlmAdmin(real);
      long t0 = System.nanoTime();
      p.configure(2, new PlmConfig(true, 0, 0, 0, 0));
      p.selectWindow(2, PlmWindow.DETERMINISTIC);
      long elapsed = System.nanoTime() - t0;
      assertTrue(elapsed >= 4 * MS, "4 s / 1000 at least, took " + elapsed + " ns");
      // entered; whether it is still on depends on the host (its maximum is 60 ms here)
      assertEquals(1, real.emulatedPlm().set(2).dtwinEntries());
    }
  }
}
