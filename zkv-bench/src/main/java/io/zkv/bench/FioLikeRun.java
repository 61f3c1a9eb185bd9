package io.zkv.bench;

import io.zkv.device.AsyncQueue;
import io.zkv.device.Completions;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.HostLateness;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.util.LatencyRecorder;
import java.nio.ByteBuffer;

/**
 * One fio-like measurement on a device, as fio's io_uring engine with {@code zonemode=zbd,
 * rw=write, numjobs=1} does it: one thread keeps {@code qd} requests in flight and resubmits on
 * each completion, zone after zone; completion latency is submit-to-reap, on the host's clock or,
 * for a device opened with {@code clock=virtual}, on the timing model's own clock (the model's
 * latencies exactly).
 */
final class FioLikeRun {
  enum Op {
    APPEND,
    WRITE
  }

  record Result(
      Op op,
      int blockSize,
      int qd,
      long ops,
      double seconds,
      LatencyRecorder.Summary latency,
      HostLateness lateness) {
    double iops() {
      return ops / seconds;
    }
  }

  private final ZonedDevice dev;
  private final DeviceGeometry g;
  private final boolean modelClock;
  private int zone;
  private long wp;

  /** On the host's clock. */
  FioLikeRun(ZonedDevice dev) {
    this(dev, false);
  }

  /** On the device's clock when {@code modelClock} (its URI has {@code clock=virtual}). */
  FioLikeRun(ZonedDevice dev, boolean modelClock) {
    this.dev = dev;
    this.g = dev.geometry();
    this.modelClock = modelClock;
  }

  private long now() {
    return modelClock ? EmulatedDevice.clockNanos(dev) : System.nanoTime();
  }

  Result run(Op op, int bs, int qd, double seconds) throws ZonedDeviceException {
    if (op == Op.WRITE && qd != 1) {
      throw new IllegalArgumentException("writes to a zone are QD1 only");
    }
    nextZone();
    ByteBuffer buf = ByteBuffer.allocateDirect(bs);
    long[] submitted = new long[qd];
    LatencyRecorder rec = new LatencyRecorder(1 << 18);
    Completions done = new Completions(qd);
    long ops = 0;
    HostLateness lateBefore = EmulatedDevice.lateness();
    long start = now();
    long end = start + (long) (seconds * 1e9);
    try (AsyncQueue q = dev.newQueue(qd)) {
      for (int i = 0; i < qd; i++) {
        submit(q, op, buf, bs, i, submitted);
      }
      boolean stopping = false;
      while (q.inFlight() > 0) {
        int n = q.reap(done, 1);
        long now = now();
        stopping |= now >= end;
        for (int i = 0; i < n; i++) {
          int slot = (int) done.tag(i);
          if (done.ok(i)) {
            rec.record(now - submitted[slot]);
            ops++;
          } else {
            throw done.error(i);
          }
          if (!stopping) {
            submit(q, op, buf, bs, slot, submitted);
          }
        }
      }
    }
    double elapsed = (now() - start) / 1e9;
    return new Result(
        op, bs, qd, ops, elapsed, rec.summary(), EmulatedDevice.lateness().since(lateBefore));
  }

  private void submit(AsyncQueue q, Op op, ByteBuffer buf, int bs, int slot, long[] submitted)
      throws ZonedDeviceException {
    // The host never submits more than a zone holds, so in-flight appends all fit.
    if (wp + bs > g.zoneStart(zone) + g.zoneCapacity()) {
      nextZone();
    }
    submitted[slot] = now();
    boolean ok =
        op == Op.APPEND
            ? q.submitAppend(zone, buf, 0, bs, 0, slot)
            : q.submitWrite(wp, buf, 0, bs, 0, slot);
    if (!ok) {
      throw new IllegalStateException("queue full");
    }
    wp += bs;
  }

  /**
   * Moves to the next zone, resetting it first; the device is used as a ring of zones. A zone left
   * with room (a capacity that is no multiple of the block size) is finished, so that it does not
   * stay active.
   */
  private void nextZone() throws ZonedDeviceException {
    if (wp > g.zoneStart(zone) && wp < g.zoneStart(zone) + g.zoneCapacity()) {
      dev.finishZone(zone);
    }
    zone = (zone + 1) % g.zoneCount();
    dev.resetZone(zone);
    wp = g.zoneStart(zone);
  }
}
