package io.zkv.device;

/**
 * Geometry and limits of a zoned device. Sizes are bytes.
 *
 * @param lbaSize bytes per logical block (512 or 4096)
 * @param zoneCount number of zones
 * @param zoneSize bytes between zone starts
 * @param zoneCapacity writable bytes per zone, at most {@code zoneSize}
 * @param maxOpen open-zone limit, 0 for none
 * @param maxActive active-zone limit, 0 for none
 * @param zasl largest zone append in bytes (Zone Append Size Limit)
 */
public record DeviceGeometry(
    int lbaSize,
    int zoneCount,
    long zoneSize,
    long zoneCapacity,
    int maxOpen,
    int maxActive,
    int zasl) {

  private static final long MIB = 1L << 20;

  /** A geometry with 4 KiB blocks; validated when a device is formatted with it. */
  public static DeviceGeometry of(
      int zoneCount, long zoneSize, long zoneCapacity, int maxOpen, int maxActive, int zasl) {
    return new DeviceGeometry(4096, zoneCount, zoneSize, zoneCapacity, maxOpen, maxActive, zasl);
  }

  /** A small ZN540-like geometry for tests and demos: 32 zones of 64 MiB (48 MiB capacity). */
  public static DeviceGeometry small() {
    return of(32, 64 * MIB, 48 * MIB, 14, 14, (int) MIB);
  }

  public long zoneStart(int zone) {
    return zone * zoneSize;
  }

  public int zoneOf(long offset) {
    return (int) (offset / zoneSize);
  }

  /** Writable bytes over all zones. */
  public long capacityBytes() {
    return zoneCount * zoneCapacity;
  }

  long[] toArray() {
    return new long[] {lbaSize, zoneCount, zoneSize, zoneCapacity, maxOpen, maxActive, zasl};
  }

  static DeviceGeometry fromArray(long[] v) {
    return new DeviceGeometry(
        (int) v[0], (int) v[1], v[2], v[3], (int) v[4], (int) v[5], (int) v[6]);
  }

  @Override
  public String toString() {
    return String.format(
        "%d zones x %d MiB (capacity %d MiB), %d B blocks, max open %d, max active %d, ZASL %d KiB",
        zoneCount, zoneSize / MIB, zoneCapacity / MIB, lbaSize, maxOpen, maxActive, zasl / 1024);
  }
}
