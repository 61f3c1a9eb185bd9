package io.zkv.plm.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.EmulatedPlm;
import io.zkv.device.PlmArray;
import io.zkv.device.ZonedDevice;
import io.zkv.device.plm.PlmWindow;
import io.zkv.plm.window.BaseScheduler;
import io.zkv.plm.window.Phase;
import io.zkv.plm.window.RoundRobinVigil;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window driver on a plmarray: device over an emulated PLM device whose window clock is virtual
 * (clock=manual, windows 1000 times shorter than the paper's): the driver polls the array and
 * applies R-Vigil's decisions; writes go on between decisions. Checked at every decision: at least
 * n-1 kv-sets in DTWIN as the array sees them, no write ever reaching a set in DTWIN, every set's
 * held writes drained in its turns, and the data reading back whole.
 */
class WindowDriverTest {
  static final long KIB = 1024;
  static final long MIB = 1024 * KIB;

  @TempDir Path dir;

  private ZonedDevice open(String name) throws Exception {
    Path file = dir.resolve(name);
    EmulatedDevice.format(file, DeviceGeometry.of(32, 4 * MIB, 4 * MIB, 0, 0, (int) (256 * KIB)));
    return ZonedDevice.open(
        "plmarray:" + EmulatedDevice.uri(file, "plm", "sets=4", "timescale=1000", "clock=manual"));
  }

  @Test
  void rVigilKeepsTwoOfThreeSetsInDtwinAndDrainsEveryHeldWrite() throws Exception {
    try (ZonedDevice dev = open("rvigil.zkvemu")) {
      EmulatedPlm plm = dev.emulatedPlm();
      PlmArray array = dev.plmArray();
      WindowDriver driver = WindowDriver.manual(dev, new RoundRobinVigil(), null, () -> clock(plm));
      assertEquals(3, driver.kvSets());
      Random random = new Random(42);
      long zoneBytes = dev.geometry().zoneCapacity();
      byte[] written = new byte[(int) (3 * MIB)];
      random.nextBytes(written);
      long at = 0;
      int ndwinTurns = 0;
      for (int step = 0; step < 400 && at < written.length; step++) {
        long next = driver.step();
        int inDtwin = 0;
        for (int s = 2; s <= 4; s++) {
          if (array.set(s).window() == PlmWindow.DETERMINISTIC) {
            inDtwin++;
          }
        }
        if (step > 0) {
          assertTrue(inDtwin >= 2, "step " + step + ": " + inDtwin + " sets in DTWIN");
        }
        for (int s = 0; s < 3; s++) {
          ndwinTurns += driver.phase(s) == Phase.AND ? 1 : 0;
        }
        int len = (int) Math.min(48 * KIB, written.length - at);
        dev.write(at, ByteBuffer.allocateDirect(len).put(written, (int) at, len).flip());
        at += len;
        long now = clock(plm);
        if (next > now && next != Long.MAX_VALUE) {
          plm.advanceClock(Math.min(next - now, 1_000_000L));
        }
      }
      assertEquals(written.length, at);
      assertTrue(ndwinTurns >= 6, "NDWIN turns seen: " + ndwinTurns);
      for (int s = 2; s <= 4; s++) {
        assertEquals(0, plm.set(s).writesInDtwin(), "writes into DTWIN on set " + s);
        assertTrue(array.set(s).bytesDrained() > 0, "set " + s + " never drained");
        assertEquals(0, array.set(s).writesForced());
      }
      ByteBuffer back = ByteBuffer.allocateDirect(written.length);
      dev.read(0, back);
      byte[] got = new byte[written.length];
      back.flip().get(got);
      assertArrayEquals(written, got);
      assertTrue(zoneBytes >= written.length);
      driver.close();
      assertNull(driver.failure());
    }
  }

  @Test
  void baseTurnsPlmOff() throws Exception {
    try (ZonedDevice dev = open("base.zkvemu")) {
      EmulatedPlm plm = dev.emulatedPlm();
      WindowDriver driver = WindowDriver.manual(dev, new RoundRobinVigil(), null, () -> clock(plm));
      driver.step(); // PLM on, every set in DTWIN
      assertEquals(PlmWindow.DETERMINISTIC, dev.plmArray().set(3).window());
      WindowDriver base = WindowDriver.manual(dev, new BaseScheduler(), null, () -> clock(plm));
      assertEquals(Long.MAX_VALUE, base.step());
      for (int s = 2; s <= 4; s++) {
        assertNull(dev.plmArray().set(s).window());
      }
    }
  }

  @Test
  void unknownSchedulerNamesAreRefusedWithTheKnownOnes() {
    var e = assertThrows(IllegalArgumentException.class, () -> WindowSchedulers.create("silk", 1));
    assertTrue(e.getMessage().contains("base, plm, r-vigil, o-vigil"), e.getMessage());
    assertEquals("o-vigil", WindowSchedulers.create("o-vigil", 1 << 20).name());
    assertEquals("plm", WindowSchedulers.create("plm", 1 << 20).name());
  }

  /** Only Base keeps PLM off, so only Base runs on an array whose device has no PLM. */
  @Test
  void onlyBaseRunsWithoutPlm() {
    for (String name : WindowSchedulers.NAMES) {
      assertEquals(!name.equals("base"), WindowSchedulers.create(name, 1 << 20).needsPlm(), name);
    }
  }

  private static long clock(EmulatedPlm plm) {
    try {
      return plm.set(2).clockNanos();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
