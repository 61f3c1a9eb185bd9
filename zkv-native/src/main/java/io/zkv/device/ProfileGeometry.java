package io.zkv.device;

import java.util.Locale;
import java.util.Map;

/**
 * Default geometry of an emulated device per timing profile: the zone size, capacity/size ratio,
 * open/active limits and ZASL of the device the profile models, with sizes scaled by one factor,
 * {@link #SCALE} (docs/timing-model.md, "Geometry"). {@code zkv bench}, {@code zkv calibrate} and
 * {@code zkv mkfs} use these unless told otherwise. The zone count is the caller's (it sets how
 * much the device holds); {@code caza} is a geometry only: CAZA's null_blk device (capacity = size,
 * no open or active limit), to use with any profile.
 */
public final class ProfileGeometry {
  /** Zone sizes and capacities are the papers' divided by this. */
  public static final int SCALE = 32;

  private static final long MIB = 1L << 20;
  private static final long BLOCK = 4096;

  /** The papers' device, before scaling. */
  private record Device(long zoneSize, long zoneCapacity, int maxOpen, int maxActive, int zasl) {}

  private static final Map<String, Device> DEVICES =
      Map.of(
          // zkv's own test geometry (no paper), scaled already: kept as it was
          "instant", new Device(64 * MIB * SCALE, 48 * MIB * SCALE, 14, 14, (int) MIB),
          // WD ZN540: 2,048 MiB zones of 1,077 MiB capacity (ZoneKV Table I; ZWAL artifact);
          // limits 14 (not in the papers; the figure commonly reported); ZASL assumed 1 MiB
          "zn540", new Device(2048 * MIB, 1077 * MIB, 14, 14, (int) MIB),
          // ConfZNS as ZWAL configured it: 2 GiB zones, capacity = size, appends up to 4 MiB
          // (artifact NVME_DEFAULT_MAX_AZ_SIZE); limits not given, assumed 14
          "confzns", new Device(2048 * MIB, 2048 * MIB, 14, 14, (int) (4 * MIB)),
          // Samsung PM1731a: 96 MB zones (WALTZ §5), capacity assumed = size; limits not given,
          // assumed 14; ZASL assumed 1 MiB
          "pm1731a", new Device(96 * MIB, 96 * MIB, 14, 14, (int) MIB),
          // PLM: as the instant geometry (Vigil-KV's device is not zoned)
          "plm", new Device(64 * MIB * SCALE, 48 * MIB * SCALE, 14, 14, (int) MIB),
          // CAZA's null_blk: 100 zones of 1 GB, capacity = size, no open or active limit
          "caza", new Device(1024 * MIB, 1024 * MIB, 0, 0, (int) MIB));

  private ProfileGeometry() {}

  /** Whether {@code name} (a profile, or {@code caza}) has a default geometry. */
  public static boolean known(String name) {
    return DEVICES.containsKey(name);
  }

  /**
   * The default geometry of {@code name} with {@code zones} zones: zone size / {@link #SCALE},
   * capacity the same fraction of it as the paper's (rounded down to 4 KiB blocks), the device's
   * limits (at most the zone count) and ZASL (at most the capacity).
   */
  public static DeviceGeometry of(String name, int zones) {
    return of(name, zones, 0, 0);
  }

  /**
   * As {@link #of(String, int)}, with a zone size and capacity given (0: the default; a size given
   * without a capacity keeps the device's capacity/size ratio).
   */
  public static DeviceGeometry of(String name, int zones, long zoneSize, long zoneCapacity) {
    Device d = DEVICES.get(name);
    if (d == null) {
      throw new IllegalArgumentException(
          "no default geometry for '" + name + "' (known: " + String.join(", ", names()) + ")");
    }
    long size = zoneSize > 0 ? zoneSize : d.zoneSize / SCALE;
    long cap = zoneCapacity > 0 ? zoneCapacity : capacityFor(d, size);
    int maxActive = Math.min(d.maxActive, zones);
    int maxOpen = Math.min(d.maxOpen, zones);
    int zasl = (int) Math.min(d.zasl, cap);
    return DeviceGeometry.of(zones, size, cap, maxOpen, maxActive, zasl);
  }

  private static long capacityFor(Device d, long size) {
    if (d.zoneCapacity == d.zoneSize) {
      return size;
    }
    long cap = (long) ((double) size * d.zoneCapacity / d.zoneSize) / BLOCK * BLOCK;
    return Math.max(BLOCK, cap);
  }

  /** The names with a default geometry, sorted. */
  public static java.util.List<String> names() {
    return DEVICES.keySet().stream().sorted().toList();
  }

  /** One line per name: what its default geometry is, for help texts and docs. */
  public static String describe(String name, int zones) {
    DeviceGeometry g = of(name, zones);
    return String.format(
        Locale.ROOT,
        "%s: %d MiB zones, capacity %d MiB, max open %d, max active %d, ZASL %d KiB",
        name,
        g.zoneSize() / MIB,
        g.zoneCapacity() / MIB,
        g.maxOpen(),
        g.maxActive(),
        g.zasl() / 1024);
  }
}
