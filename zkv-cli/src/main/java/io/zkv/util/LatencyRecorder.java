package io.zkv.util;

import java.util.Arrays;

/**
 * Collects latencies (nanoseconds) into a preallocated array and summarizes them: mean and
 * percentiles by the nearest-rank method. Not thread-safe: one per thread, then {@link #merge}.
 */
public final class LatencyRecorder {
  private long[] samples;
  private int count;

  public LatencyRecorder(int expected) {
    samples = new long[Math.max(16, expected)];
  }

  public void record(long nanos) {
    if (count == samples.length) {
      samples = Arrays.copyOf(samples, samples.length * 2);
    }
    samples[count++] = nanos;
  }

  public void merge(LatencyRecorder other) {
    for (int i = 0; i < other.count; i++) {
      record(other.samples[i]);
    }
  }

  public int count() {
    return count;
  }

  /** A summary; sorts the samples once. */
  public Summary summary() {
    long[] s = Arrays.copyOf(samples, count);
    Arrays.sort(s);
    double sum = 0;
    for (long v : s) {
      sum += v;
    }
    return new Summary(count, count == 0 ? 0 : sum / count, s);
  }

  /** Latency statistics in microseconds. */
  public static final class Summary {
    private final int count;
    private final double meanNanos;
    private final long[] sorted;

    Summary(int count, double meanNanos, long[] sorted) {
      this.count = count;
      this.meanNanos = meanNanos;
      this.sorted = sorted;
    }

    public int count() {
      return count;
    }

    public double meanMicros() {
      return meanNanos / 1000.0;
    }

    /** Nearest-rank percentile, {@code p} in (0, 100]. */
    public double percentileMicros(double p) {
      if (count == 0) {
        return 0;
      }
      int rank = (int) Math.ceil(p / 100.0 * count);
      return sorted[Math.min(count, Math.max(1, rank)) - 1] / 1000.0;
    }

    public double maxMicros() {
      return count == 0 ? 0 : sorted[count - 1] / 1000.0;
    }
  }
}
