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

  // Boundary layout 5, version 2 (jni/boundary.h): zkv_geometry as the record; its flags and
  // meta_class_zones (at 36 and 40) are the zone file system's, not read here.
  static final int LAYOUT = 5, VERSION = 2, RECORD = 48, LBA = 0, ZONES = 4, ZONE_SIZE = 8;
  static final int ZONE_CAP = 16, MAX_OPEN = 24, MAX_ACTIVE = 28, ZASL = 32, FLAGS = 36;
  static final int META_CLASS_ZONES = 40;

  /**
   * This geometry as a buffer of the typed native boundary (layout 5; flags and class zones 0: an
   * emulated device's own geometry), for {@code EmulatedDevice.format}.
   */
  java.nio.ByteBuffer write() {
    io.zkv.nativelib.BoundaryBuffer b =
        io.zkv.nativelib.BoundaryBuffer.single(LAYOUT, VERSION, RECORD);
    b.putInt(0, 0, LBA, lbaSize);
    b.putInt(0, 0, ZONES, zoneCount);
    b.putLong(0, 0, ZONE_SIZE, zoneSize);
    b.putLong(0, 0, ZONE_CAP, zoneCapacity);
    b.putInt(0, 0, MAX_OPEN, maxOpen);
    b.putInt(0, 0, MAX_ACTIVE, maxActive);
    b.putInt(0, 0, ZASL, zasl);
    return b.buffer();
  }

  /** Reads a geometry buffer of the typed native boundary (docs/formats/native-boundary.md). */
  static DeviceGeometry read(java.nio.ByteBuffer buffer) {
    io.zkv.nativelib.BoundaryBuffer b =
        io.zkv.nativelib.BoundaryBuffer.wrap(buffer, LAYOUT, VERSION, RECORD);
    return new DeviceGeometry(
        b.getInt(0, 0, LBA),
        b.getInt(0, 0, ZONES),
        b.getLong(0, 0, ZONE_SIZE),
        b.getLong(0, 0, ZONE_CAP),
        b.getInt(0, 0, MAX_OPEN),
        b.getInt(0, 0, MAX_ACTIVE),
        b.getInt(0, 0, ZASL));
  }

  @Override
  public String toString() {
    return String.format(
        "%d zones x %d MiB (capacity %d MiB), %d B blocks, max open %d, max active %d, ZASL %d KiB",
        zoneCount, zoneSize / MIB, zoneCapacity / MIB, lbaSize, maxOpen, maxActive, zasl / 1024);
  }
}
