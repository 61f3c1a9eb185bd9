package io.zkv.device;

import io.zkv.nativelib.BoundaryBuffer;
import io.zkv.nativelib.ZkvNative;
import java.nio.file.Path;

/**
 * The emulated zoned device: a sparse backing file with NVMe ZNS semantics, a persistent zone table
 * and an optional timing profile. File format: {@code docs/formats/emulated-device.md}.
 */
public final class EmulatedDevice {
  /** Timing profiles, see {@code docs/calibration.md}. */
  public static final String[] PROFILES = {"instant", "zn540", "pm1731a", "confzns", "plm"};

  /** The native names of the {@link DeviceGeometry#toArray()} fields, for error messages. */
  private static final String[] GEOMETRY_FIELDS = {
    "lba_size", "nr_zones", "zone_size", "zone_cap", "max_open", "max_active", "zasl"
  };

  private EmulatedDevice() {}

  /** Creates the backing file; fails on an existing file or a geometry that makes no sense. */
  public static void format(Path file, DeviceGeometry geometry) throws ZonedDeviceException {
    ZkvNative.ensureLoaded();
    long[] g = geometry.toArray();
    for (int i = 0; i < g.length; i++) {
      if (g[i] < 0) { // the native side refuses these without a message of its own
        String why = GEOMETRY_FIELDS[i] + " " + g[i] + " is negative";
        throw new ZonedDeviceException(
            "cannot format " + file + " as " + geometry + ": " + why, -22);
      }
    }
    int rc = nFormat(file.toAbsolutePath().toString(), geometry.write());
    if (rc < 0) {
      throw new ZonedDeviceException(
          "cannot format " + file + " as " + geometry + ": " + ZonedDeviceLastError.get(), rc);
    }
  }

  /** The URI of an emulated device with a timing profile (and optional extra options). */
  public static String uri(Path file, String profile, String... options) {
    StringBuilder b = new StringBuilder("emu:").append(file.toAbsolutePath()).append("?profile=");
    b.append(profile);
    for (String o : options) {
      b.append('&').append(o);
    }
    return b.toString();
  }

  /**
   * The URI of the device a {@code plmarray:} URI composes ({@code plmarray:[OPTIONS@]INNER} gives
   * {@code INNER}, which may list devices, one per set, separated by commas); any other URI
   * unchanged. For tools that create the emulated file first.
   */
  public static String composedUri(String uri) {
    if (!uri.startsWith("plmarray:")) {
      return uri;
    }
    String rest = uri.substring("plmarray:".length());
    int at = rest.indexOf('@');
    int colon = rest.indexOf(':');
    return at >= 0 && (colon < 0 || at < colon) ? rest.substring(at + 1) : rest;
  }

  /**
   * Whether the host honoured the timing profiles so far, over every emulated device of this
   * process (see {@link HostLateness}).
   */
  public static HostLateness lateness() {
    ZkvNative.ensureLoaded();
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(128);
    int rc = nLateness(out);
    if (rc < 0) {
      throw new IllegalStateException("cannot read the emulator's lateness: error " + rc);
    }
    BoundaryBuffer b = BoundaryBuffer.wrap(out, LATENESS_LAYOUT, 1, LATENESS_RECORD);
    return new HostLateness(
        b.getLong(0, 0, 0), b.getLong(0, 0, LATE), b.getLong(0, 0, WORST_LATE_NS));
  }

  /**
   * The device's clock in nanoseconds: {@code CLOCK_MONOTONIC}, or, when its URI has {@code
   * clock=virtual}, the timing model's own time, which moves only when a request waits (so a
   * single-threaded run sees exactly the model's latencies, whatever the host does). 0 for a device
   * that is not emulated.
   */
  public static long clockNanos(ZonedDevice device) {
    return device.onHandle(EmulatedDevice::nClock);
  }

  // Boundary layout 11, version 1 (jni/boundary.h): zkv_emu_lateness as the record.
  static final int LATENESS_LAYOUT = 11, LATENESS_RECORD = 24, LATE = 8, WORST_LATE_NS = 16;

  static native int nFormat(String path, java.nio.ByteBuffer geometry);

  static native long nClock(long h);

  static native int nLateness(java.nio.ByteBuffer out);

  static native int nInjectError(long h, int opMask, long zone, int skip, int count, int error);

  static native int nSetZoneCondition(long h, int zone, int cond);

  static native long nPowerCut(long h, int mode, long seed);

  static native int nCutPowerDuring(long h, int opMask, long zone, int skip, int keepBlocks);

  static native int nPlmStats(long h, int set, java.nio.ByteBuffer out);

  static native int nPlmAdvance(long h, long ns);
}
