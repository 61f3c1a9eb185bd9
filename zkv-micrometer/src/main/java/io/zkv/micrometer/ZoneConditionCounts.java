package io.zkv.micrometer;

import io.zkv.ZkvException;
import io.zkv.ZonedEnv;
import io.zkv.device.Zone;
import io.zkv.device.ZoneCondition;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Zones per condition from the device's zone report, read at most once per {@link #MAX_AGE_NANOS}:
 * a registry reads the seven {@code zkv.zones} gauges one after the other, and a zone report is a
 * device command (about 6.7 ms on the {@code pm1731a} profile), so they share one report.
 */
final class ZoneConditionCounts {
  static final long MAX_AGE_NANOS = 1_000_000_000L;

  private final LongSupplier clock;
  private Map<ZoneCondition, Integer> counts; // guarded by this
  private long readAt; // guarded by this

  ZoneConditionCounts() {
    this(System::nanoTime);
  }

  ZoneConditionCounts(LongSupplier clock) {
    this.clock = clock;
  }

  /**
   * Zones of {@code env} in condition {@code c}; NaN if the env is closed or the report failed.
   * Always the same env: one instance serves the gauges of one env.
   */
  synchronized double count(ZonedEnv env, ZoneCondition c) {
    long now = clock.getAsLong();
    if (counts == null || now - readAt >= MAX_AGE_NANOS) {
      try {
        counts = tally(env);
      } catch (ZkvException e) {
        counts = null;
        return Double.NaN;
      }
      readAt = now;
    }
    return counts.getOrDefault(c, 0);
  }

  private static Map<ZoneCondition, Integer> tally(ZonedEnv env) {
    Map<ZoneCondition, Integer> m = new EnumMap<>(ZoneCondition.class);
    for (Zone z : env.zoneReport()) {
      m.merge(z.condition(), 1, Integer::sum);
    }
    return m;
  }
}
