package io.zkv.bench.driver;

import io.zkv.device.PlmArray;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.device.plm.PlmWindow;
import java.util.ArrayList;
import java.util.List;

/**
 * The kv-sets' windows and held bytes over a phase on a {@code plmarray:} device, as the array saw
 * them, sampled every {@link #PERIOD_NANOS} by a thread of its own (one native call per set and
 * sample, off the clients' path), for the window-timeline plot.
 *
 * @param seconds when each sample was taken, from the phase's start
 * @param windows per sample and kv-set (index 0 = NVM Set 2): 0 PLM off, 1 DTWIN, 2 NDWIN
 * @param heldBytes per sample, the bytes held for all kv-sets together
 */
public record WindowTimeline(double[] seconds, int[][] windows, long[] heldBytes) {
  static final long PERIOD_NANOS = 2_000_000L;

  /** Samples {@code device}'s kv-sets until {@link Sampler#stop()}. */
  static Sampler start(ZonedDevice device) {
    Sampler s = new Sampler(device);
    s.thread.start();
    return s;
  }

  /** A running sampler. */
  static final class Sampler {
    private final ZonedDevice device;
    private final Thread thread;
    private final List<Double> seconds = new ArrayList<>();
    private final List<int[]> windows = new ArrayList<>();
    private final List<Long> held = new ArrayList<>();
    private final long start = System.nanoTime();
    private volatile boolean stopped;

    private Sampler(ZonedDevice device) {
      this.device = device;
      this.thread = new Thread(this::run, "bench-window-timeline");
      thread.setDaemon(true);
    }

    private void run() {
      PlmArray array = device.plmArray();
      while (!stopped) {
        List<Integer> w = new ArrayList<>();
        long bytes = 0;
        for (int set = 2; ; set++) {
          try {
            PlmArray.SetBacklog b = array.set(set);
            w.add(b.window() == null ? 0 : b.window() == PlmWindow.DETERMINISTIC ? 1 : 2);
            bytes += b.heldBytes();
          } catch (ZonedDeviceException e) {
            break; // past the last set, or the device closed
          }
        }
        seconds.add((System.nanoTime() - start) / 1e9);
        windows.add(w.stream().mapToInt(Integer::intValue).toArray());
        held.add(bytes);
        try {
          Thread.sleep(PERIOD_NANOS / 1_000_000L);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** Stops sampling; the timeline taken. */
    WindowTimeline stop() throws InterruptedException {
      stopped = true;
      thread.join();
      return new WindowTimeline(
          seconds.stream().mapToDouble(Double::doubleValue).toArray(),
          windows.toArray(new int[0][]),
          held.stream().mapToLong(Long::longValue).toArray());
    }
  }
}
