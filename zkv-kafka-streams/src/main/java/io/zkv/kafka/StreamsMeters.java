package io.zkv.kafka;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.zkv.ZonedEnv;
import io.zkv.micrometer.ZkvMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * zkv's Micrometer meters ({@link ZkvMetrics}) for a device Kafka Streams' stores use, bound to the
 * registry the application gives in {@value ZkvStreamsConfig#METRICS_REGISTRY}. The only class of
 * the module that touches Micrometer: it is loaded only when that setting is present, so
 * applications without Micrometer do not need it on their class path.
 */
final class StreamsMeters {
  private final MeterRegistry registry;
  private final List<Meter> bound = new ArrayList<>();

  private StreamsMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * The registry of {@value ZkvStreamsConfig#METRICS_REGISTRY}, or null if the setting is absent.
   *
   * @throws ConfigException if the value is not a Micrometer {@code MeterRegistry}
   */
  static Object registry(Map<String, ?> configs) {
    Object r = configs.get(ZkvStreamsConfig.METRICS_REGISTRY);
    if (r == null) {
      return null;
    }
    if (!(r instanceof MeterRegistry)) {
      throw new ConfigException(
          ZkvStreamsConfig.METRICS_REGISTRY,
          r,
          "must be a Micrometer MeterRegistry instance (put the object itself in the Streams"
              + " properties, not its name)");
    }
    return r;
  }

  /** Binds the device meters of {@code env} to {@code registry} (as returned by registry()). */
  static StreamsMeters bind(Object registry, ZonedEnv env) {
    StreamsMeters m = new StreamsMeters((MeterRegistry) registry);
    List<Meter> before = m.registry.getMeters();
    new ZkvMetrics(env).bindTo(m.registry);
    for (Meter meter : m.registry.getMeters()) {
      if (!before.contains(meter)) {
        m.bound.add(meter);
      }
    }
    return m;
  }

  boolean isFor(Object registry) {
    return this.registry == registry;
  }

  /**
   * Removes the meters this binding registered: they read a closed env, and a device opened again
   * later binds new ones.
   */
  void unbind() {
    for (Meter meter : bound) {
      registry.remove(meter);
    }
    bound.clear();
  }
}
