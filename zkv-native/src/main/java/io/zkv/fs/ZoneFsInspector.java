package io.zkv.fs;

import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.nativelib.NativeHandle;
import io.zkv.nativelib.ZkvNative;
import java.util.ArrayList;
import java.util.List;

/**
 * A read-only view of the zone file system on a device, for the {@code zkv} command line: the
 * superblock in use, the meta zones, every zone's usage, the files and a consistency check. Opening
 * it changes nothing on the device. Close it before the device.
 */
public final class ZoneFsInspector extends NativeHandle {
  private final ZonedDevice.Lease lease;

  private ZoneFsInspector(long handle, ZonedDevice.Lease lease) {
    super("zone file system inspector", handle);
    this.lease = lease;
  }

  /** Formats the device with an empty zone file system (erasing every zone). */
  public static void mkfs(ZonedDevice device, int metaZones) throws ZonedDeviceException {
    ZkvNative.ensureLoaded();
    try (ZonedDevice.Lease l = device.fileSystemLease("being formatted")) {
      int rc = nMkfs(l.handle(), metaZones);
      if (rc < 0) {
        throw new ZonedDeviceException("mkfs " + device.uri() + ": " + nLastError(), rc);
      }
    }
  }

  /** Mounts read-only; fails with the reason when the file system is missing or damaged. */
  public static ZoneFsInspector open(ZonedDevice device) throws ZonedDeviceException {
    ZkvNative.ensureLoaded();
    ZonedDevice.Lease lease = device.fileSystemLease("mounted read-only by an inspector");
    long h = nOpen(lease.handle());
    if (h < 0) {
      lease.close();
      throw new ZonedDeviceException(device.uri() + ": " + nLastError(), h);
    }
    return new ZoneFsInspector(h, lease);
  }

  /** The superblock the mount used. */
  public FsSuperblock superblock() {
    long[] v = new long[9];
    long h = acquire();
    try {
      String uuid = nSuperblock(h, v);
      return new FsSuperblock(
          uuid,
          (int) v[0],
          (int) v[1],
          v[2],
          (int) v[3],
          (int) v[4],
          v[5],
          v[6],
          (int) v[7],
          (int) v[8]);
    } finally {
      release();
    }
  }

  /** What each meta zone holds: empty, a valid superblock (with its sequence), or damage. */
  public List<MetaZone> metaZones() {
    int n = superblock().metaZones();
    List<MetaZone> out = new ArrayList<>();
    long h = acquire();
    try {
      for (int z = 0; z < n; z++) {
        long[] v = new long[2];
        String msg = nMetaStatus(h, z, v);
        MetaZone.State state = MetaZone.State.values()[(int) v[0]];
        out.add(new MetaZone(z, state, v[1], msg == null ? "" : msg));
      }
    } finally {
      release();
    }
    return out;
  }

  public List<ZoneUsage> zones() {
    long[] v = new long[superblock().zoneCount() * 6];
    long h = acquire();
    int n;
    try {
      n = nZones(h, v);
    } finally {
      release();
    }
    List<ZoneUsage> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int b = i * 6;
      out.add(new ZoneUsage(i, v[b], v[b + 1], v[b + 2], v[b + 3], (int) v[b + 4], v[b + 5] != 0));
    }
    return out;
  }

  public List<FsFile> files() {
    List<Object[]> raw = new ArrayList<>();
    long h = acquire();
    try {
      if (nFiles(h, raw) < 0) {
        throw new IllegalStateException("listing files failed");
      }
    } finally {
      release();
    }
    List<FsFile> out = new ArrayList<>(raw.size());
    for (Object[] f : raw) {
      String[] names = (String[]) f[0];
      long[] info = (long[]) f[1];
      long[] ext = (long[]) f[2];
      List<FsFile.Extent> extents = new ArrayList<>(ext.length / 2);
      for (int i = 0; i < ext.length; i += 2) {
        extents.add(new FsFile.Extent(ext[i], ext[i + 1]));
      }
      out.add(new FsFile(info[0], List.of(names), info[1], (int) info[2], info[3], extents));
    }
    out.sort(java.util.Comparator.comparing(f -> f.names().get(0)));
    return out;
  }

  /**
   * How the metadata log ended: empty when cleanly, else the torn last record the mount accepted (a
   * write cut by a crash; the operation it described was never acknowledged). Damage fails the
   * mount instead.
   */
  public String logEnd() {
    long h = acquire();
    try {
      return nLogEnd(h);
    } finally {
      release();
    }
  }

  /** Inconsistencies found (empty when the file system is healthy). */
  public List<String> check() {
    List<String> problems = new ArrayList<>();
    long h = acquire();
    try {
      if (nCheck(h, problems) < 0) {
        throw new IllegalStateException("check failed");
      }
    } finally {
      release();
    }
    return problems;
  }

  @Override
  protected void dispose(long handle) {
    nClose(handle);
    lease.close();
  }

  private static native String nLastError();

  private static native int nMkfs(long device, int metaZones);

  private static native long nOpen(long device);

  private static native void nClose(long fs);

  private static native String nSuperblock(long fs, long[] out);

  private static native String nMetaStatus(long fs, int zone, long[] out);

  private static native int nZones(long fs, long[] out);

  private static native int nFiles(long fs, List<Object[]> out);

  private static native int nCheck(long fs, List<String> out);

  private static native String nLogEnd(long fs);
}
