package io.zkv.micrometer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zkv.ZkvDb;
import io.zkv.ZkvException;
import io.zkv.ZonedEnv;
import io.zkv.device.ZoneCondition;
import io.zkv.fs.PolicyOverride;
import io.zkv.fs.ZoneStats;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters for a {@link ZonedEnv} (one zoned device and its zone file system) and the
 * {@link ZkvDb}s on it.
 *
 * <pre>{@code
 * new ZkvMetrics(zoned, db).bindTo(registry);
 * }</pre>
 *
 * <p>Every meter has the tag {@code device} (the env's URI); database meters also {@code database}
 * (the database's path). Sizes are in bytes. Device meters:
 *
 * <ul>
 *   <li>{@code zkv.zones} (tag {@code condition}: {@code empty}, {@code implicitly_open}, {@code
 *       explicitly_open}, {@code closed}, {@code full}, {@code read_only}, {@code offline}): zones
 *       of the device in each ZNS condition, metadata zones included, from one zone report per
 *       second at most; {@code zkv.zones.data}: the zones that hold data (not metadata).
 *   <li>{@code zkv.space.capacity}, {@code .used}, {@code .live}, {@code .free}, {@code
 *       .reclaimable} and {@code zkv.space.amplification}: the data zones' space as {@code zkv df}
 *       reports it (used = below the write pointers, reclaimable = used but not live, amplification
 *       = used / live).
 *   <li>{@code zkv.written} (tag {@code source}: {@code host} = file data RocksDB wrote, {@code gc}
 *       = data garbage collection copied, {@code padding} = block padding of syncs, {@code
 *       metadata} = the metadata log) and {@code zkv.write.amplification}: all four over {@code
 *       host}, the file system's share of write amplification (as {@code zkv bench} reports it).
 *   <li>{@code zkv.zone.resets} (tag {@code copy}: {@code none} = the zone held no live data any
 *       more, {@code gc} = garbage collection copied its live data first; each such reset ends one
 *       zone's garbage collection), {@code zkv.metadata.rolls}, {@code zkv.files}, {@code
 *       zkv.zones.owned} (zones held by files being written: the open tokens in use).
 *   <li>{@code zkv.placement.decisions}: zone allocations the placement policy decided; {@code
 *       zkv.placement.overrides} (tag {@code reason}: {@code fallback} = the file system allocated
 *       by its own safety rules, {@code zone_steal} = it took a zone from an idle writer): every
 *       time the file system overrode the policy.
 *   <li>{@code zkv.device.errors}: failures the device returned to any of its users (the zone file
 *       system's reads, writes, appends, flushes, zone management and reports, and direct calls),
 *       since it was opened; counted in the native device layer, read with the other counters.
 * </ul>
 *
 * <p>Database meters, from RocksDB's properties: {@code zkv.db.sst.size}, {@code
 * zkv.db.memtable.size}, {@code zkv.db.keys} (RocksDB's estimate), {@code
 * zkv.db.compaction.pending} (bytes compaction still has to rewrite), {@code
 * zkv.db.background.errors} (failed flushes and compactions, a full device included).
 *
 * <p>Counters count since the file system was mounted. A meter of a closed env or database reads
 * NaN. Not here yet, because the file system does not count them yet: GC runs that did not end in a
 * reset. They join the device meters (the place is marked in the code) when {@link ZoneStats}
 * carries them, as the WAL and PLM meters will when those land.
 */
public final class ZkvMetrics implements MeterBinder {
  private final ZonedEnv env;
  private final List<ZkvDb> databases;
  private final Tags tags;

  /** Meters for {@code env} and {@code databases} (which must be on {@code env}). */
  public ZkvMetrics(ZonedEnv env, ZkvDb... databases) {
    this(env, List.of(databases), Tags.empty());
  }

  /**
   * Meters for {@code env} and {@code databases}, with {@code tags} added to every meter. Binding
   * another {@code ZkvMetrics} of the same env to the same registry later (for a database opened
   * later) adds that database's meters and reuses the device's.
   *
   * @throws IllegalArgumentException if a database is not on {@code env}
   */
  public ZkvMetrics(ZonedEnv env, Collection<ZkvDb> databases, Iterable<Tag> tags) {
    this.env = Objects.requireNonNull(env, "env");
    this.databases = List.copyOf(databases);
    this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    for (ZkvDb db : this.databases) {
      if (db.env() != env) {
        throw new IllegalArgumentException(
            "database " + db.path() + " is on " + db.env().uri() + ", not on " + env.uri());
      }
    }
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Tags device = tags.and("device", env.uri());
    bindDevice(registry, device);
    for (ZkvDb db : databases) {
      bindDatabase(registry, db, device.and("database", db.path()));
    }
  }

  private void bindDevice(MeterRegistry registry, Tags device) {
    // The gauges hold env weakly (Micrometer's default) and the shared report strongly; the
    // report holds no reference to env.
    ZoneConditionCounts conditions = new ZoneConditionCounts();
    for (ZoneCondition c : ZoneCondition.values()) {
      Gauge.builder("zkv.zones", env, e -> conditions.count(e, c))
          .tags(device)
          .tag("condition", c.name().toLowerCase(Locale.ROOT))
          .description("zones of the device in this condition (metadata zones included)")
          .register(registry);
    }
    gauge(registry, device, "zkv.zones.data", null, "zones that hold data", ZoneStats::dataZones);

    long zoneCapacity = env.geometry().zoneCapacity();
    bytes(
        registry,
        device,
        "zkv.space.capacity",
        "writable bytes of the data zones",
        s -> (double) s.dataZones() * zoneCapacity);
    bytes(
        registry,
        device,
        "zkv.space.used",
        "bytes below the data zones' write pointers",
        ZoneStats::usedZoneBytes);
    bytes(registry, device, "zkv.space.live", "bytes of live file data", ZoneStats::liveBytes);
    bytes(
        registry,
        device,
        "zkv.space.free",
        "writable bytes above the data zones' write pointers",
        s -> (double) s.dataZones() * zoneCapacity - s.usedZoneBytes());
    bytes(
        registry,
        device,
        "zkv.space.reclaimable",
        "used bytes no live file holds: a zone reset or garbage collection gets them back",
        s -> s.usedZoneBytes() - s.liveBytes());
    gauge(
        registry,
        device,
        "zkv.space.amplification",
        null,
        "used bytes over live bytes (1 = none)",
        ZoneStats::spaceAmplification);

    written(registry, device, "host", "file data RocksDB wrote", ZoneStats::hostBytes);
    written(registry, device, "gc", "live data garbage collection copied", ZoneStats::gcBytes);
    written(
        registry,
        device,
        "padding",
        "block padding of syncs of partial blocks",
        ZoneStats::paddingBytes);
    written(registry, device, "metadata", "metadata log records", ZoneStats::metaBytes);
    gauge(
        registry,
        device,
        "zkv.write.amplification",
        null,
        "bytes written to the device (host + gc + padding + metadata) over host bytes",
        s -> s.hostBytes() == 0 ? Double.NaN : (double) deviceBytes(s) / s.hostBytes());

    counter(
        registry,
        device.and("copy", "none"),
        "zkv.zone.resets",
        "zone resets of zones without live data",
        ZoneStats::resetsWithoutCopy);
    counter(
        registry,
        device.and("copy", "gc"),
        "zkv.zone.resets",
        "zone resets after garbage collection copied the zone's live data",
        s -> s.resets() - s.resetsWithoutCopy());
    counter(registry, device, "zkv.metadata.rolls", "metadata log rolls", ZoneStats::metaRolls);
    gauge(registry, device, "zkv.files", null, "files in the zone file system", ZoneStats::files);
    gauge(
        registry,
        device,
        "zkv.zones.owned",
        null,
        "zones held by a file being written (open tokens in use)",
        ZoneStats::ownedZones);
    counter(
        registry,
        device,
        "zkv.placement.decisions",
        "zone allocations the placement policy decided",
        ZoneStats::policyDecisions);
    for (PolicyOverride reason : PolicyOverride.values()) {
      counter(
          registry,
          device.and("reason", reason.name().toLowerCase(java.util.Locale.ROOT)),
          "zkv.placement.overrides",
          "decisions the file system's safety rule made in place of a policy: "
              + reason.description(),
          s -> s.overrides().get(reason));
    }
    counter(
        registry,
        device.and("reason", "zone_steal"),
        "zkv.placement.overrides",
        "zones the file system took from an idle writer instead of the policy's wait for a token",
        ZoneStats::zoneSteals);
    counter(
        registry,
        device,
        "zkv.device.errors",
        "failures the device returned (reads, writes, appends, flushes, zone management, reports),"
            + " counted by the native device layer since the device was opened",
        ZoneStats::deviceErrors);
    // GC runs that did not end in a reset join here once ZoneStats counts them.
  }

  private static long deviceBytes(ZoneStats s) {
    return s.hostBytes() + s.gcBytes() + s.paddingBytes() + s.metaBytes();
  }

  private static void bindDatabase(MeterRegistry registry, ZkvDb db, Tags tags) {
    dbGauge(registry, db, tags, "zkv.db.sst.size", BaseUnits.BYTES, "rocksdb.live-sst-files-size");
    dbGauge(
        registry,
        db,
        tags,
        "zkv.db.memtable.size",
        BaseUnits.BYTES,
        "rocksdb.cur-size-all-mem-tables");
    dbGauge(registry, db, tags, "zkv.db.keys", null, "rocksdb.estimate-num-keys");
    dbGauge(
        registry,
        db,
        tags,
        "zkv.db.compaction.pending",
        BaseUnits.BYTES,
        "rocksdb.estimate-pending-compaction-bytes");
    FunctionCounter.builder(
            "zkv.db.background.errors", db, d -> property(d, "rocksdb.background-errors"))
        .tags(tags)
        .description("failed flushes and compactions (rocksdb.background-errors)")
        .register(registry);
  }

  private static void dbGauge(
      MeterRegistry registry, ZkvDb db, Tags tags, String name, String unit, String property) {
    Gauge.builder(name, db, d -> property(d, property))
        .tags(tags)
        .baseUnit(unit)
        .description("RocksDB's " + property)
        .register(registry);
  }

  /** A numeric RocksDB property, NaN if the database is closed or RocksDB does not know it. */
  static double property(ZkvDb db, String name) {
    try {
      return db.property(name).map(Double::parseDouble).orElse(Double.NaN);
    } catch (ZkvException | NumberFormatException e) {
      return Double.NaN;
    }
  }

  private void bytes(
      MeterRegistry registry,
      Tags tags,
      String name,
      String description,
      ToDoubleFunction<ZoneStats> value) {
    gauge(registry, tags, name, BaseUnits.BYTES, description, value);
  }

  private void gauge(
      MeterRegistry registry,
      Tags tags,
      String name,
      String unit,
      String description,
      ToDoubleFunction<ZoneStats> value) {
    Gauge.builder(name, env, e -> stat(e, value))
        .tags(tags)
        .baseUnit(unit)
        .description(description)
        .register(registry);
  }

  private void written(
      MeterRegistry registry,
      Tags device,
      String source,
      String description,
      ToDoubleFunction<ZoneStats> value) {
    FunctionCounter.builder("zkv.written", env, e -> stat(e, value))
        .tags(device)
        .tag("source", source)
        .baseUnit(BaseUnits.BYTES)
        .description("bytes written to the device: " + description)
        .register(registry);
  }

  private void counter(
      MeterRegistry registry,
      Tags tags,
      String name,
      String description,
      ToDoubleFunction<ZoneStats> value) {
    FunctionCounter.builder(name, env, e -> stat(e, value))
        .tags(tags)
        .description(description)
        .register(registry);
  }

  /** One figure of the file system's counters, NaN once the env is closed. */
  private static double stat(ZonedEnv env, ToDoubleFunction<ZoneStats> value) {
    try {
      return value.applyAsDouble(env.stats());
    } catch (ZkvException e) {
      return Double.NaN;
    }
  }
}
