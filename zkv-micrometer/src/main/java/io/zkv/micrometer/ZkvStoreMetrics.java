package io.zkv.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zkv.ZkvException;
import io.zkv.ZonedEnv;
import io.zkv.fs.PathUsage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Micrometer meters of one store in the zone file system: the files of its RocksDB database (its
 * directory and everything under it), or the sum over several databases (such as a Kafka Streams
 * window store's open segments), read from the file system's index at each scrape, without the
 * databases' handles.
 *
 * <pre>{@code
 * new ZkvStoreMetrics(zoned, "/var/lib/app/db", Tags.of("store", "orders")).bindTo(registry);
 * }</pre>
 *
 * <p>Meters, tagged {@code device} (the env's URI) and the given tags: {@code zkv.store.files}
 * (files, counted by name), {@code zkv.store.size} (their bytes: the store's live data in zones),
 * {@code zkv.store.sst.files} and {@code zkv.store.sst.size} (those of its SST files). A meter of a
 * closed env reads NaN. {@link #meters} lists what {@link #bindTo} registered, for removal.
 */
public final class ZkvStoreMetrics implements MeterBinder {
  private final ZonedEnv env;
  private final Supplier<? extends Collection<String>> dirs;
  private final Tags tags;
  private final List<Meter> meters = new ArrayList<>();

  /** Meters of the files under {@code dir} on {@code env}, with {@code tags} added. */
  public ZkvStoreMetrics(ZonedEnv env, String dir, Iterable<Tag> tags) {
    this(env, () -> List.of(dir), tags);
    Objects.requireNonNull(dir, "dir");
  }

  /**
   * Meters of the files under the directories {@code dirs} returns at each reading (the store's
   * databases open at that moment; it must be safe to call from any thread), summed.
   */
  public ZkvStoreMetrics(
      ZonedEnv env, Supplier<? extends Collection<String>> dirs, Iterable<Tag> tags) {
    this.env = Objects.requireNonNull(env, "env");
    this.dirs = Objects.requireNonNull(dirs, "dirs");
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags")).and("device", env.uri());
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    gauge(registry, "zkv.store.files", null, "files of the store", PathUsage::files);
    gauge(
        registry,
        "zkv.store.size",
        BaseUnits.BYTES,
        "bytes of the store's files (its live data in zones)",
        PathUsage::bytes);
    gauge(registry, "zkv.store.sst.files", null, "SST files of the store", PathUsage::sstFiles);
    gauge(
        registry,
        "zkv.store.sst.size",
        BaseUnits.BYTES,
        "bytes of the store's SST files",
        PathUsage::sstBytes);
  }

  /** The meters the last {@link #bindTo} registered. */
  public List<Meter> meters() {
    return List.copyOf(meters);
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String unit,
      String description,
      ToLongFunction<PathUsage> value) {
    Supplier<? extends Collection<String>> d = dirs;
    meters.add(
        Gauge.builder(name, env, e -> usage(e, d, value))
            .tags(tags)
            .baseUnit(unit)
            .description(description)
            .register(registry));
  }

  /** One figure of the store's usage, summed over its directories; NaN once the env is closed. */
  private static double usage(
      ZonedEnv env, Supplier<? extends Collection<String>> dirs, ToLongFunction<PathUsage> value) {
    try {
      long sum = 0;
      for (String dir : dirs.get()) {
        sum += value.applyAsLong(env.usage(dir));
      }
      return sum;
    } catch (ZkvException e) {
      return Double.NaN;
    }
  }
}
