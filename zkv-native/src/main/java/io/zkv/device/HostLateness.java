package io.zkv.device;

import java.util.Locale;

/**
 * How far a busy host kept the emulator from its timing profile: of {@code completions} timed
 * requests, {@code late} were observed later than modelled by more than 20 us + 10% of their
 * modelled service time (the waiting thread was not running at the deadline; a queue's completion
 * reaped after its deadline without being waited for is on time: docs/timing-model.md). Counters
 * are process-wide and only grow; {@link #since} gives the figures of an interval.
 */
public record HostLateness(long completions, long late, long worstLateNanos) {
  /** A share of late completions above which a measurement describes the host, not the profile. */
  public static final double NOT_HONOURED_SHARE = 0.01;

  /** The figures between {@code earlier} and this; the worst lateness is the process's so far. */
  public HostLateness since(HostLateness earlier) {
    return new HostLateness(completions - earlier.completions, late - earlier.late, worstLateNanos);
  }

  /** Late completions as a share of timed ones (0 when nothing was timed). */
  public double lateShare() {
    return completions == 0 ? 0 : (double) late / completions;
  }

  /** Whether more than {@link #NOT_HONOURED_SHARE} of the timed completions came late. */
  public boolean notHonoured() {
    return lateShare() > NOT_HONOURED_SHARE;
  }

  /** One sentence for reports. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "the host could not honour the timing profile: %,d of %,d emulated-device completions (%.1f%%)"
            + " came later than modelled by more than 20 us + 10%%",
        late,
        completions,
        100 * lateShare());
  }
}
