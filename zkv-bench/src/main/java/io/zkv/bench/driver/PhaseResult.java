package io.zkv.bench.driver;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The measurements of one phase on one configuration.
 *
 * @param workload phase name
 * @param ops operations completed by the clients and the background writer
 * @param seconds wall time of the phase
 * @param userBytes key and value bytes the phase asked the store to write
 * @param latency per operation type (READ, WRITE, INSERT, UPDATE, READ_MODIFY_WRITE, SCAN)
 * @param histograms the histograms behind {@code latency} (nanoseconds), for plots
 * @param intervalSeconds nominal length of a timeline interval
 * @param timeline operations per second in each interval (the last one may be shorter)
 * @param device zone device figures, or null for targets without a zoned device
 */
public record PhaseResult(
    String workload,
    long ops,
    double seconds,
    long userBytes,
    Map<String, LatencyStats> latency,
    Map<String, Histogram> histograms,
    double intervalSeconds,
    double[] timeline,
    DeviceFigures device) {

  /** The same result with the device figures. */
  public PhaseResult withDevice(DeviceFigures figures) {
    return new PhaseResult(
        workload, ops, seconds, userBytes, latency, histograms, intervalSeconds, timeline, figures);
  }

  public double opsPerSecond() {
    return seconds > 0 ? ops / seconds : 0;
  }
}
