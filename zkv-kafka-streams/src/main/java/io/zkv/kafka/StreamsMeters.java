package io.zkv.kafka;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.zkv.ZonedEnv;
import io.zkv.micrometer.ZkvMetrics;
import io.zkv.micrometer.ZkvStoreMetrics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigException;

/**
 * zkv's Micrometer meters for a device Kafka Streams' stores use, bound to the registry the
 * application gives in {@value ZkvStreamsConfig#METRICS_REGISTRY}: the device's ({@link
 * ZkvMetrics}) and each open store's ({@link ZkvStoreMetrics}, with Streams' tags, {@link
 * StoreTags}). The only class of the module that touches Micrometer: it is loaded only when that
 * setting is present, so applications without Micrometer do not need it on their class path. Not
 * thread-safe: its device guards it.
 */
final class StreamsMeters {
  private final MeterRegistry registry;
  private final ZonedEnv env;
  private final List<Meter> bound = new ArrayList<>();
  private final Map<String, StoreBinding> stores = new HashMap<>(); // by store directory

  /**
   * A store's meters, bound while any of its databases (segments) is open; they read those whose
   * database is open at the moment of reading (by directory, with the lease that opened it).
   */
  private static final class StoreBinding {
    final Map<String, StreamsDevice.Lease> databases = new ConcurrentHashMap<>();
    List<Meter> meters;

    /**
     * The store's databases open now. The watcher binds and releases within a millisecond or so,
     * later on a loaded host; a reading must not wait for it: segments opened since are bound here
     * first, and a database whose options are closed (Streams closes them right after the database)
     * is left out.
     */
    Collection<String> openDatabases() {
      StoreWatcher.bindOpenedNow();
      List<String> open = new ArrayList<>();
      databases.forEach(
          (dir, lease) -> {
            if (lease.databaseOpen()) {
              open.add(dir);
            }
          });
      return open;
    }
  }

  private StreamsMeters(MeterRegistry registry, ZonedEnv env) {
    this.registry = registry;
    this.env = env;
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
    StreamsMeters m = new StreamsMeters((MeterRegistry) registry, env);
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
   * Counts the database at {@code database} in the meters of its store ({@code tags.dir()}),
   * binding them if it is the store's first open database.
   */
  void bindStore(StoreTags tags, String database, StreamsDevice.Lease lease) {
    StoreBinding b = stores.get(tags.dir());
    if (b == null) {
      b = new StoreBinding();
      List<Tag> t = new ArrayList<>();
      tags.asMap().forEach((k, v) -> t.add(Tag.of(k, v)));
      ZkvStoreMetrics m = new ZkvStoreMetrics(env, b::openDatabases, t);
      m.bindTo(registry);
      b.meters = m.meters();
      stores.put(tags.dir(), b);
    }
    b.databases.put(database, lease);
  }

  /**
   * The database at {@code database} of the store at {@code dir}, opened under {@code lease},
   * closed (a segment opened again since under another lease stays counted).
   */
  void unbindStore(String dir, String database, StreamsDevice.Lease lease) {
    StoreBinding b = stores.get(dir);
    if (b != null && b.databases.remove(database, lease) && b.databases.isEmpty()) {
      stores.remove(dir);
      b.meters.forEach(registry::remove);
    }
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
    for (StoreBinding b : stores.values()) {
      b.meters.forEach(registry::remove);
    }
    stores.clear();
  }
}
