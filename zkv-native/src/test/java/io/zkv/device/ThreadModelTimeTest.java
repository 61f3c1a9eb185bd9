package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread's modelled device time: on the model's own clock (clock=virtual) one thread's requests
 * move the clock by exactly their modelled service times, so the two must agree to the nanosecond.
 */
class ThreadModelTimeTest {
  @TempDir Path dir;

  private ZonedDevice open(String profile, String... options) throws ZonedDeviceException {
    Path file = dir.resolve(profile + ".zkvemu");
    EmulatedDevice.format(file, ProfileGeometry.of(profile, 4));
    return ZonedDevice.open(EmulatedDevice.uri(file, profile, options));
  }

  private static void appendAndRead(ZonedDevice d, int appends, int reads)
      throws ZonedDeviceException {
    ByteBuffer b = ByteBuffer.allocateDirect(8192);
    for (int i = 0; i < appends; i++) {
      b.clear();
      d.append(0, b);
    }
    for (int i = 0; i < reads; i++) {
      b.clear();
      d.read((long) (i % appends) * 8192, b);
    }
  }

  @Test
  void equalsTheModelClocksMovementForOneThread() throws Exception {
    try (ZonedDevice d = open("zn540", "clock=virtual", "seed=3");
        ThreadModelTime model = ThreadModelTime.start()) {
      d.resetZone(0);
      long clock0 = EmulatedDevice.clockNanos(d);
      long model0 = model.nanos();
      long waits0 = model.waits();
      appendAndRead(d, 100, 50);
      long clock = EmulatedDevice.clockNanos(d) - clock0;
      assertTrue(clock > 150 * 10_000L, "150 zn540 requests take over 1.5 ms: " + clock);
      assertEquals(clock, model.nanos() - model0);
      assertEquals(150, model.waits() - waits0);
    }
  }

  @Test
  void countsNothingOnTheInstantProfile() throws Exception {
    try (ZonedDevice d = open("instant");
        ThreadModelTime model = ThreadModelTime.start()) {
      d.resetZone(0);
      appendAndRead(d, 20, 20);
      assertEquals(0, model.nanos());
    }
  }

  @Test
  void countsOnlyTheCallingThreadsRequests() throws Exception {
    try (ZonedDevice d = open("zn540", "clock=virtual");
        ThreadModelTime model = ThreadModelTime.start()) {
      d.resetZone(0);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread other =
          new Thread(
              () -> {
                try {
                  appendAndRead(d, 20, 20);
                } catch (Throwable e) {
                  failure.set(e);
                }
              });
      other.start();
      other.join();
      assertEquals(null, failure.get());
      assertEquals(0, model.nanos());
      assertEquals(0, model.waits());
      appendAndRead(d, 1, 1);
      assertTrue(model.nanos() > 0);
    }
  }

  @Test
  void belongsToTheThreadThatStartedIt() throws Exception {
    ThreadModelTime model = ThreadModelTime.start();
    try {
      assertThrows(IllegalStateException.class, ThreadModelTime::start);
      AtomicReference<Throwable> seen = new AtomicReference<>();
      Thread other = new Thread(() -> seen.set(catchIt(model::nanos)));
      other.start();
      other.join();
      assertTrue(seen.get() instanceof IllegalStateException, String.valueOf(seen.get()));
    } finally {
      model.close();
    }
    model.close(); // idempotent
    assertThrows(IllegalStateException.class, model::nanos);
    // The thread can count again, from 0.
    try (ZonedDevice d = open("zn540", "clock=virtual");
        ThreadModelTime again = ThreadModelTime.start()) {
      d.resetZone(0);
      appendAndRead(d, 2, 2);
      assertTrue(again.nanos() > 0);
    }
  }

  private static Throwable catchIt(Runnable r) {
    try {
      r.run();
      return null;
    } catch (Throwable e) {
      return e;
    }
  }
}
