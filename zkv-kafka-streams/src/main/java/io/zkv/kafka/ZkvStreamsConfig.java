package io.zkv.kafka;

import io.zkv.ZonedEnv;
import io.zkv.ZonedEnvOptions;
import io.zkv.device.DeviceGeometry;
import io.zkv.placement.GcTrigger;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * The {@code zkv.*} settings of a Kafka Streams application, read from the Streams config map that
 * {@link ZkvRocksDBConfigSetter} receives. Every bad value fails with a {@link ConfigException}
 * that names the setting and says what to do. Reference: {@code docs/kafka-streams.md}.
 *
 * @param deviceUri the zoned device, {@value #DEVICE}
 * @param mode what to do with an unformatted device, {@value #FORMAT}
 * @param envOptions placement and garbage collection of the device's zone file system
 * @param emulatorGeometry the geometry of an emulated device file to create when it is missing,
 *     null to never create one
 */
public record ZkvStreamsConfig(
    String deviceUri,
    ZonedEnv.Mode mode,
    ZonedEnvOptions envOptions,
    DeviceGeometry emulatorGeometry) {

  /**
   * Required: the device URI ({@code emu:/path/file}, {@code nvme:/dev/ngXnY}, {@code zbd:...}).
   */
  public static final String DEVICE = "zkv.device";

  /** The emulator's timing profile, added to an {@code emu:} URI that names none. */
  public static final String EMULATOR_PROFILE = "zkv.emulator.profile";

  /**
   * Creates a missing emulated device file with this many zones (with {@value #EMULATOR_ZONE_SIZE}
   * and {@value #EMULATOR_ZONE_CAPACITY}); unset: a missing file is an error.
   */
  public static final String EMULATOR_ZONES = "zkv.emulator.create.zones";

  /** Zone size of a created emulated device, bytes or with a K/M/G suffix (default 64M). */
  public static final String EMULATOR_ZONE_SIZE = "zkv.emulator.create.zone.size";

  /** Zone capacity of a created emulated device (default: the zone size). */
  public static final String EMULATOR_ZONE_CAPACITY = "zkv.emulator.create.zone.capacity";

  /**
   * {@code if-unformatted} (default: format a device without a zkv file system) or {@code mount}.
   */
  public static final String FORMAT = "zkv.format";

  /**
   * Zone placement: {@code liza} (default), {@code caza}, {@code zonekv} or a policy of your own,
   * {@code class:com.example.MyPolicy} (on the application's class path).
   */
  public static final String PLACEMENT = "zkv.placement";

  /**
   * Garbage collection victim policy: {@code greedy} (default) or {@code
   * class:com.example.MyVictims}.
   */
  public static final String GC_VICTIM_POLICY = "zkv.gc.victim.policy";

  /** Background GC starts when free space falls to this percentage, 0..100 (default 20). */
  public static final String GC_START_PERCENT = "zkv.gc.start.percent";

  /**
   * Optional: a Micrometer {@code MeterRegistry} instance (the object, in the Streams properties);
   * zkv's device meters ({@code io.zkv.micrometer.ZkvMetrics}, tag {@code device}) are bound to it
   * while a store uses the device. Needs {@code zkv-micrometer} on the class path. Not part of this
   * record: applications sharing a device may use different registries.
   */
  public static final String METRICS_REGISTRY = "zkv.metrics.registry";

  /**
   * Reads the {@code zkv.*} settings.
   *
   * @throws ConfigException naming the setting, for a missing device or a bad value
   */
  public static ZkvStreamsConfig from(Map<String, ?> configs) {
    String uri = string(configs, DEVICE);
    if (uri == null || uri.isBlank()) {
      throw new ConfigException(
          DEVICE
              + " is not set: ZkvRocksDBConfigSetter puts the application's state stores on a zoned"
              + " device and needs its URI. Add "
              + DEVICE
              + "=emu:/path/to/file.zkvemu (an emulated device) or nvme:/dev/ngXnY (a ZNS namespace)"
              + " to the Streams configuration, or remove rocksdb.config.setter to keep the stores"
              + " on the host file system");
    }
    uri = withProfile(uri.trim(), string(configs, EMULATOR_PROFILE));
    return new ZkvStreamsConfig(uri, mode(configs), envOptions(configs), geometry(configs, uri));
  }

  private static String withProfile(String uri, String profile) {
    if (profile == null || profile.isBlank()) {
      return uri;
    }
    if (!uri.startsWith("emu:")) {
      throw new ConfigException(
          EMULATOR_PROFILE,
          profile,
          "a timing profile applies to emulated devices only, but "
              + DEVICE
              + " is "
              + uri
              + "; remove "
              + EMULATOR_PROFILE);
    }
    if (uri.contains("profile=")) {
      throw new ConfigException(
          EMULATOR_PROFILE,
          profile,
          DEVICE + " " + uri + " names a profile already; set it in one place only");
    }
    return uri + (uri.contains("?") ? "&" : "?") + "profile=" + profile.trim();
  }

  private static ZonedEnv.Mode mode(Map<String, ?> configs) {
    String v = string(configs, FORMAT);
    if (v == null || v.equalsIgnoreCase("if-unformatted")) {
      return ZonedEnv.Mode.FORMAT_IF_UNFORMATTED;
    }
    if (v.equalsIgnoreCase("mount")) {
      return ZonedEnv.Mode.MOUNT;
    }
    throw new ConfigException(FORMAT, v, "use if-unformatted (the default) or mount");
  }

  private static ZonedEnvOptions envOptions(Map<String, ?> configs) {
    ZonedEnvOptions.Builder b = ZonedEnvOptions.builder();
    String placement = string(configs, PLACEMENT);
    if (placement != null) {
      try {
        b.placement(placement);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(PLACEMENT, placement, e.getMessage());
      }
    }
    String victims = string(configs, GC_VICTIM_POLICY);
    if (victims != null) {
      try {
        b.victimPolicy(victims);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(GC_VICTIM_POLICY, victims, e.getMessage());
      }
    }
    String gc = string(configs, GC_START_PERCENT);
    if (gc != null) {
      int percent;
      try {
        percent = Integer.parseInt(gc.trim());
        GcTrigger.zenFs(percent); // validates the range
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            GC_START_PERCENT, gc, "use a whole number 0..100 (0: no background GC)");
      }
      b.gcStartPercent(percent);
    }
    return b.build();
  }

  private static DeviceGeometry geometry(Map<String, ?> configs, String uri) {
    String zones = string(configs, EMULATOR_ZONES);
    if (zones == null) {
      return null;
    }
    if (!uri.startsWith("emu:")) {
      throw new ConfigException(
          EMULATOR_ZONES,
          zones,
          "only an emulated device (emu:) can be created; " + DEVICE + " is " + uri);
    }
    int count;
    try {
      count = Integer.parseInt(zones.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(EMULATOR_ZONES, zones, "use a number of zones, e.g. 64");
    }
    long size = bytes(configs, EMULATOR_ZONE_SIZE, 64L << 20);
    long cap = bytes(configs, EMULATOR_ZONE_CAPACITY, size);
    return DeviceGeometry.of(count, size, cap, 14, 14, 1 << 20);
  }

  private static long bytes(Map<String, ?> configs, String key, long dflt) {
    String v = string(configs, key);
    if (v == null) {
      return dflt;
    }
    String t = v.trim().toUpperCase(Locale.ROOT);
    int shift =
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
          case 'K' -> 10;
          case 'M' -> 20;
          case 'G' -> 30;
          default -> 0;
        };
    try {
      long n = Long.parseLong(shift == 0 ? t : t.substring(0, t.length() - 1));
      return n << shift;
    } catch (NumberFormatException e) {
      throw new ConfigException(key, v, "use bytes, optionally with a K, M or G suffix, e.g. 64M");
    }
  }

  private static String string(Map<String, ?> configs, String key) {
    Object v = configs.get(key);
    return v == null ? null : v.toString();
  }
}
