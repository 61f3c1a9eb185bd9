package io.zkv.bench.driver;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The measurements of one phase on one configuration.
 *
 * @param workload phase name
 * @param ops operations completed by the client threads (not the background writer)
 * @param seconds wall time of the client threads, from their release to the last one's end
 * @param writes put operations issued (clients and background writer): equal on every configuration
 *     for the same settings, which makes state parity visible
 * @param writesDigest an order-independent digest of the key numbers written (sum of a 64-bit mix
 *     of each); equal digests mean the same multiset of keys was written
 * @param userBytes key and value bytes the phase asked the store to write
 * @param latency per operation type (READ, WRITE, INSERT, UPDATE, READ_MODIFY_WRITE, SCAN); in
 *     {@code readwhilewriting}, WRITE is the background writer's
 * @param histograms the histograms behind {@code latency} (nanoseconds), for plots
 * @param intervalSeconds nominal length of a timeline interval
 * @param timeline the clients' operations per second in each interval
 * @param writeP99Timeline the 99th percentile of the writes' latency in each interval of the
 *     timeline, microseconds (NaN for an interval without a write): WALTZ's Fig. 15
 * @param timelineSeconds when each interval ended, in seconds from the phase's start (intervals are
 *     nominally {@code intervalSeconds} long; a late sample makes one longer)
 * @param writerOps operations of the background writer (0 without one)
 * @param writerSeconds wall time of the background writer (0 without one)
 * @param device zone device figures, or null for targets without a zoned device
 * @param plm what the kv-sets of a {@code plmarray:} device counted in the phase and its settling,
 *     or null on other devices
 * @param windows the kv-sets' windows over the phase on a {@code plmarray:} device, or null
 * @param readDeviceWaits per Get (READ), the device requests the client thread waited for in the
 *     timing model ({@link io.zkv.device.ThreadModelTime#waits()}), or null on a store whose device
 *     takes no modelled time
 * @param recovery what a reopen cost ({@code recover} workload), or null for a phase of operations
 * @param writeStalls how long RocksDB held the writers back during the phase's operations (not its
 *     settling), or null for a store without RocksDB and for a reopen
 */
public record PhaseResult(
    String workload,
    long ops,
    double seconds,
    long writes,
    long writesDigest,
    long userBytes,
    Map<String, LatencyStats> latency,
    Map<String, Histogram> histograms,
    double intervalSeconds,
    double[] timeline,
    double[] timelineSeconds,
    long writerOps,
    double writerSeconds,
    DeviceFigures device,
    PlmCounters plm,
    WindowTimeline windows,
    Histogram readDeviceWaits,
    RecoveryFigures recovery,
    WriteStalls writeStalls,
    double[] writeP99Timeline) {

  /**
   * The standard deviation of the clients' operations per second over the timeline's intervals
   * (ZoneKV's measure of stable throughput), the last one left out when there are three or more (it
   * is cut short by the phase's end); NaN with fewer than two intervals.
   */
  public double opsPerSecondStddev() {
    int n = timeline.length >= 3 ? timeline.length - 1 : timeline.length;
    if (n < 2) {
      return Double.NaN;
    }
    double mean = 0;
    for (int i = 0; i < n; i++) {
      mean += timeline[i];
    }
    mean /= n;
    double squares = 0;
    for (int i = 0; i < n; i++) {
      squares += (timeline[i] - mean) * (timeline[i] - mean);
    }
    return Math.sqrt(squares / (n - 1));
  }

  /** The result of a reopen phase: no operations, the recovery's figures. */
  static PhaseResult ofRecovery(String workload, RecoveryFigures r) {
    return new PhaseResult(
        workload,
        0,
        r.seconds(),
        0,
        0,
        0,
        Map.of(),
        Map.of(),
        0,
        new double[0],
        new double[0],
        0,
        0,
        null,
        null,
        null,
        null,
        r,
        null,
        new double[0]);
  }

  /** The same result with the device figures. */
  public PhaseResult withDevice(DeviceFigures figures) {
    return with(figures, plm, windows, writeStalls);
  }

  /** The same result with a {@code plmarray:} device's counters and window timeline. */
  public PhaseResult withPlm(PlmCounters counters, WindowTimeline windowTimeline) {
    return with(device, counters, windowTimeline, writeStalls);
  }

  /** The same result with RocksDB's write stalls during the phase. */
  public PhaseResult withWriteStalls(WriteStalls stalls) {
    return with(device, plm, windows, stalls);
  }

  private PhaseResult with(DeviceFigures d, PlmCounters p, WindowTimeline w, WriteStalls s) {
    return new PhaseResult(
        workload,
        ops,
        seconds,
        writes,
        writesDigest,
        userBytes,
        latency,
        histograms,
        intervalSeconds,
        timeline,
        timelineSeconds,
        writerOps,
        writerSeconds,
        d,
        p,
        w,
        readDeviceWaits,
        recovery,
        s,
        writeP99Timeline);
  }

  /** The clients' throughput (a background writer's operations are not in it). */
  public double opsPerSecond() {
    return seconds > 0 ? ops / seconds : 0;
  }

  /** The background writer's throughput, or NaN without one. */
  public double writerOpsPerSecond() {
    return writerSeconds > 0 ? writerOps / writerSeconds : Double.NaN;
  }
}
