package io.zkv.plm.driver;

import io.zkv.device.PlmArray;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.device.plm.PlmAdmin;
import io.zkv.device.plm.PlmConfig;
import io.zkv.device.plm.PlmWindow;
import io.zkv.plm.window.Phase;
import io.zkv.plm.window.PlmLimits;
import io.zkv.plm.window.SetStatus;
import io.zkv.plm.window.WindowDecision;
import io.zkv.plm.window.WindowScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Applies a {@link WindowScheduler}'s decisions to the kv-sets of a {@code plmarray:} device
 * (Vigil-KV's {@code devd}; docs/plm.md): at each decision it polls what the array holds for each
 * set (one native call per set), asks the scheduler, and sends the window requests (Set Features
 * 0x13/0x14) through {@link PlmAdmin}. It is never on the I/O path: the array routes each read and
 * write by the windows it saw these requests set.
 *
 * <p>Phases on the device: ADT and UDT are DTWIN, AND and UND are NDWIN (the array drains the set's
 * held writes when its NDWIN starts), LOCKDOWN is the DTWIN request (the device completes it after
 * its NDWIN minimum and the lockdown), OFF is PLM disabled. The array serves reads and writes
 * synchronously, so UDT and UND have nothing outstanding to drain.
 *
 * <p>{@link #step()} makes one decision on the clock given (tests drive it on a virtual clock);
 * {@link #start} runs decisions on a daemon thread until {@link #close()}.
 */
public final class WindowDriver implements AutoCloseable {
  /** Bandwidths the schedulers estimate drains with when the device does not say (per set). */
  public static final long READ_BYTES_PER_SECOND = 800_000_000L;

  public static final long WORST_WRITE_BYTES_PER_SECOND = 300_000_000L;
  public static final long LOCKDOWN_BYTES_PER_SECOND = 2_380_000_000L;

  private final ZonedDevice device;
  private final PlmArray array;
  private final PlmAdmin admin;
  private final WindowScheduler scheduler;
  private final PlmLimits limits;
  private final LongSupplier clock;
  private final int sets; // kv-sets: NVM Sets 2..sets+1
  private final Phase[] phase;
  private final long[] phaseSince;
  private final long[] dtwinSince;
  private final long[] drainedAtNdwin;
  private Thread thread;
  private volatile boolean closed;
  private volatile Throwable failure;
  private long decisions;

  private WindowDriver(
      ZonedDevice device, WindowScheduler scheduler, PlmLimits limits, LongSupplier clock)
      throws ZonedDeviceException {
    this.device = Objects.requireNonNull(device, "device");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.array = device.plmArray();
    this.admin = new PlmAdmin(device);
    int n = 0;
    while (true) {
      try {
        array.set(n + 2);
        n++;
      } catch (ZonedDeviceException e) {
        break;
      }
    }
    this.sets = n;
    this.limits = limits != null ? limits : limitsOf(admin);
    phase = new Phase[n];
    phaseSince = new long[n];
    dtwinSince = new long[n];
    drainedAtNdwin = new long[n];
    long now = clock.getAsLong();
    for (int i = 0; i < n; i++) {
      PlmArray.SetBacklog b = array.set(i + 2);
      phase[i] =
          b.window() == null
              ? Phase.OFF
              : b.window() == PlmWindow.DETERMINISTIC ? Phase.ADT : Phase.AND;
      phaseSince[i] = now;
      dtwinSince[i] = now;
    }
  }

  /**
   * A driver making decisions only when {@link #step()} is called, on {@code clock} (e.g. the
   * emulator's virtual window clock).
   *
   * @param limits the window limits, or null to read them from the device's log page 0x0A
   */
  public static WindowDriver manual(
      ZonedDevice device, WindowScheduler scheduler, PlmLimits limits, LongSupplier clock)
      throws ZonedDeviceException {
    return new WindowDriver(device, scheduler, limits, clock);
  }

  /**
   * Refuses, saying why, a device whose windows {@code scheduler} cannot drive: only a {@code
   * plmarray:} device composes NVM Sets with the parity, rebuilt reads and held writes the
   * schedulers rely on (an array with too few sets, or parity over one data set, is refused when it
   * opens). A scheduler that asks for windows needs the controller's Predictable Latency Mode
   * (Identify Controller CTRATT bit 5): QEMU's has none, nor do emulated devices of other profiles;
   * Base, which keeps PLM off, runs on any array. A single {@code nvme:} namespace is one NVM Set:
   * it is refused with the way to compose the drive's sets.
   *
   * @return whether the device has PLM (false: only a scheduler that keeps it off runs)
   * @throws IllegalArgumentException naming the reason
   * @throws ZonedDeviceException if the controller cannot be asked
   */
  public static boolean checkDevice(ZonedDevice device, WindowScheduler scheduler)
      throws ZonedDeviceException {
    String uri = device.uri();
    if (device.isPlmArray()) {
      boolean plm = new PlmAdmin(device).advertised();
      if (scheduler.needsPlm() && !plm) {
        throw new IllegalArgumentException(
            noPlm(uri)
                + scheduler.name()
                + " has no windows to schedule; base (PLM off) runs on it");
      }
      return plm;
    }
    if (uri.startsWith("nvme:")) {
      if (!new PlmAdmin(device).advertised()) {
        throw new IllegalArgumentException(noPlm(uri) + "it has no windows to schedule");
      }
      throw new IllegalArgumentException(
          uri
              + " is one namespace, one NVM Set: compose the drive's sets, one namespace each with"
              + " the meta set first, as plmarray:nvme:/dev/ngXnA,nvme:/dev/ngXnB,... (docs/plm.md)");
    }
    throw new IllegalArgumentException(
        "window scheduling needs a plmarray: device (the NVM Sets of an emulated PLM device"
            + " composed with parity, docs/plm.md), not "
            + uri
            + (uri.startsWith("emu:") && uri.contains("profile=plm")
                ? "; write plmarray:" + uri
                : ""));
  }

  private static String noPlm(String uri) {
    return uri
        + " does not support Predictable Latency Mode (Identify Controller CTRATT bit 5 is"
        + " clear; QEMU's NVMe controller has none), so ";
  }

  /**
   * A driver deciding on its own daemon thread, on {@link System#nanoTime()}, until closed; none
   * (null) for a scheduler that keeps PLM off on an array whose device has no PLM: there is nothing
   * to decide.
   */
  public static WindowDriver start(ZonedDevice device, WindowScheduler scheduler)
      throws ZonedDeviceException {
    if (!checkDevice(device, scheduler)) {
      return null; // PLM off: the scheduler keeps it so (one that needs it was refused)
    }
    WindowDriver d = new WindowDriver(device, scheduler, null, System::nanoTime);
    d.thread = new Thread(d::run, "zkv-plm-window-driver");
    d.thread.setDaemon(true);
    d.thread.start();
    return d;
  }

  /**
   * The device's limits: DTWIN Time Maximum and NDWIN Time Minimum Low of the first kv-set (the
   * emulator reports them already divided by its timescale), and the default bandwidths.
   */
  static PlmLimits limitsOf(PlmAdmin admin) throws ZonedDeviceException {
    var log = admin.log(2);
    return new PlmLimits(
        log.dtwinTimeMaximum() * 1_000_000L,
        Math.max(1, log.ndwinTimeMinimumLow()) * 1_000_000L,
        READ_BYTES_PER_SECOND,
        WORST_WRITE_BYTES_PER_SECOND,
        LOCKDOWN_BYTES_PER_SECOND);
  }

  /** The kv-sets driven (NVM Sets 2..kvSets()+1). */
  public int kvSets() {
    return sets;
  }

  /** The phase of kv-set {@code index} (0-based) as this driver last set it. */
  public synchronized Phase phase(int index) {
    return phase[index];
  }

  /** Decisions made so far. */
  public synchronized long decisions() {
    return decisions;
  }

  /** What stopped the driver's thread, or null. */
  public Throwable failure() {
    return failure;
  }

  /**
   * One decision now: polls the array, asks the scheduler, applies its changes. Returns the time
   * the scheduler wants the next decision at.
   */
  public synchronized long step() throws ZonedDeviceException {
    long now = clock.getAsLong();
    List<SetStatus> status = new ArrayList<>(sets);
    long[] drained = new long[sets];
    for (int i = 0; i < sets; i++) {
      if (phase[i].deterministic()) {
        // Vigil-KV's devd reads each set's log page: the array learns a DTWIN the device ended on
        // its own (its maximum, a full internal queue), and the scheduler sees a stray
        admin.log(i + 2);
      }
      PlmArray.SetBacklog b = array.set(i + 2);
      drained[i] = b.bytesDrained();
      long ndwinWritten = phase[i].nonDeterministic() ? drained[i] - drainedAtNdwin[i] : 0;
      status.add(
          new SetStatus(
              i,
              phase[i],
              phaseSince[i],
              dtwinSince[i],
              0,
              0,
              b.heldBytes(),
              ndwinWritten,
              b.window() == PlmWindow.DETERMINISTIC));
    }
    WindowDecision d = scheduler.decide(now, status, limits);
    decisions++;
    for (WindowDecision.Change c : d.changes()) {
      apply(c.set(), c.to(), drained[c.set()]);
      long at = clock.getAsLong(); // a DTWIN request may have waited (or moved a virtual clock)
      if (c.to().deterministic() && !phase[c.set()].deterministic()) {
        dtwinSince[c.set()] = at;
      }
      phase[c.set()] = c.to();
      phaseSince[c.set()] = at;
    }
    return d.nextDecisionNanos();
  }

  private void apply(int i, Phase to, long drained) throws ZonedDeviceException {
    int set = i + 2;
    Phase from = phase[i];
    switch (to) {
      case OFF -> {
        if (from != Phase.OFF) {
          admin.configure(set, new PlmConfig(false, 0, 0, 0, 0));
        }
      }
      case ADT -> {
        if (from == Phase.OFF) {
          admin.configure(set, new PlmConfig(true, 0, 0, 0, 0)); // the set starts in NDWIN
        }
        if (from != Phase.LOCKDOWN && from != Phase.UDT) {
          admin.selectWindow(set, PlmWindow.DETERMINISTIC);
        }
      }
      case AND -> {
        drainedAtNdwin[i] = drained;
        if (from != Phase.UND) {
          admin.selectWindow(set, PlmWindow.NON_DETERMINISTIC); // the array drains the set
        }
      }
      case LOCKDOWN -> admin.selectWindow(set, PlmWindow.DETERMINISTIC);
        // UDT: the NDWIN request of AND waits in the array for the set's reads in flight; UND: the
        // array's writes are synchronous, none is in flight when the DTWIN request comes
      case UDT, UND -> {}
    }
  }

  private void run() {
    long next = Long.MIN_VALUE;
    while (!closed) {
      try {
        long now = System.nanoTime();
        if (now - next >= 0 || next == Long.MIN_VALUE) {
          next = step();
          continue;
        }
        synchronized (this) {
          if (!closed) {
            long wait = Math.min(next - now, 100_000_000L); // look at least every 100 ms
            wait(wait / 1_000_000L, (int) (wait % 1_000_000L));
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ZonedDeviceException | RuntimeException e) {
        failure = e; // the sets stay in the windows they are in
        return;
      }
    }
  }

  /** Stops the thread (if any); the sets stay in the windows they are in. */
  @Override
  public void close() {
    closed = true;
    synchronized (this) {
      notifyAll();
    }
    if (thread != null) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
