package io.zkv.fs;

import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.nativelib.BoundaryBuffer;
import io.zkv.nativelib.NativeHandle;
import io.zkv.nativelib.ZkvNative;
import java.nio.ByteBuffer;
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
      throw NotFormattedException.ofMount(device.uri() + ": " + nLastError(), h);
    }
    return new ZoneFsInspector(h, lease);
  }

  /** The superblock the mount used. */
  public FsSuperblock superblock() {
    ByteBuffer buf = ByteBuffer.allocateDirect(128);
    long h = acquire();
    try {
      check(nSuperblock(h, buf), "superblock");
    } finally {
      release();
    }
    BoundaryBuffer b = BoundaryBuffer.wrap(buf, SUPERBLOCK_LAYOUT, 1, SB_SIZE);
    StringBuilder uuid = new StringBuilder();
    for (int i = 0; i < 16; i++) {
      uuid.append(String.format("%02x", b.getByte(0, 0, SB_UUID + i) & 0xff));
    }
    return new FsSuperblock(
        uuid.toString(),
        b.getInt(0, 0, SB_VERSION),
        b.getInt(0, 0, SB_FLAGS),
        b.getLong(0, 0, SB_SEQUENCE),
        b.getInt(0, 0, SB_BLOCK_SIZE),
        b.getInt(0, 0, SB_ZONES),
        b.getLong(0, 0, SB_ZONE_SIZE),
        b.getLong(0, 0, SB_ZONE_CAPACITY),
        b.getInt(0, 0, SB_META_ZONES),
        b.getInt(0, 0, SB_FINISH_THRESHOLD));
  }

  /**
   * The file system's counters as the mounted log has them: above all the placement decisions and
   * overrides since format ({@code ZoneStats.policyDecisionsTotal} and the two override totals); an
   * inspection mount itself decides nothing.
   */
  public io.zkv.fs.ZoneStats stats() {
    ByteBuffer buf = ByteBuffer.allocateDirect(io.zkv.fs.ZoneStats.BUFFER_BYTES);
    long h = acquire();
    try {
      check(nStats(h, buf), "counters");
    } finally {
      release();
    }
    return io.zkv.fs.ZoneStats.read(buf);
  }

  // Boundary layout 3 (jni/boundary.h, zkv_bnd_superblock; docs/formats/native-boundary.md).
  static final int SUPERBLOCK_LAYOUT = 3, SB_VERSION = 0, SB_FLAGS = 4, SB_SEQUENCE = 8;
  static final int SB_BLOCK_SIZE = 16, SB_ZONES = 20, SB_ZONE_SIZE = 24, SB_ZONE_CAPACITY = 32;
  static final int SB_META_ZONES = 40, SB_FINISH_THRESHOLD = 44, SB_UUID = 48, SB_SIZE = 64;

  /** Boundary layout 4: every zone, in the zone view's zone record. */
  static final int ZONE_USAGE_LAYOUT = 4, ZONE_USAGE_VERSION = 4;

  private static void check(int rc, String what) {
    if (rc < 0) {
      throw new IllegalStateException("cannot read the " + what + ": error " + rc);
    }
  }

  /** What each meta zone holds: empty, a valid superblock (with its sequence), or damage. */
  public List<MetaZone> metaZones() {
    int n = superblock().metaZones();
    List<MetaZone> out = new ArrayList<>();
    long h = acquire();
    try {
      for (int z = 0; z < n; z++) {
        ByteBuffer buf = ByteBuffer.allocateDirect(512);
        check(nMetaStatus(h, z, buf), "state of meta zone " + z);
        BoundaryBuffer b = BoundaryBuffer.wrap(buf, META_STATUS_LAYOUT, 1, MS_SIZE);
        byte[] message = new byte[MS_MESSAGE_SIZE];
        int len = 0;
        while (len < MS_MESSAGE_SIZE && (message[len] = b.getByte(0, 0, MS_MESSAGE + len)) != 0) {
          len++;
        }
        MetaZone.State state = MetaZone.State.values()[b.getInt(0, 0, MS_STATE)];
        out.add(
            new MetaZone(
                z,
                state,
                b.getLong(0, 0, MS_SEQUENCE),
                new String(message, 0, len, java.nio.charset.StandardCharsets.UTF_8)));
      }
    } finally {
      release();
    }
    return out;
  }

  public List<ZoneUsage> zones() {
    ByteBuffer buf = ByteBuffer.allocateDirect(64 + superblock().zoneCount() * ZoneView.ZONE_SIZE);
    long h = acquire();
    try {
      check(nZones(h, buf), "zones");
    } finally {
      release();
    }
    BoundaryBuffer b =
        BoundaryBuffer.wrap(buf, ZONE_USAGE_LAYOUT, ZONE_USAGE_VERSION, ZoneView.ZONE_SIZE);
    List<ZoneUsage> out = new ArrayList<>(b.count(0));
    for (int i = 0; i < b.count(0); i++) {
      out.add(
          new ZoneUsage(
              i,
              b.getLong(0, i, ZoneView.Z_START),
              b.getLong(0, i, ZoneView.Z_CAPACITY),
              b.getLong(0, i, ZoneView.Z_WRITE_POINTER),
              b.getLong(0, i, ZoneView.Z_LIVE),
              b.getInt(0, i, ZoneView.Z_LIFETIME),
              (b.getInt(0, i, ZoneView.Z_FLAGS) & ZoneView.FLAG_META) != 0,
              (b.getInt(0, i, ZoneView.Z_FLAGS) & ZoneView.FLAG_LEASED) != 0));
    }
    return out;
  }

  public List<FsFile> files() {
    ByteBuffer buf;
    long h = acquire();
    try {
      int size = nFileListSize(h);
      check(size, "file list");
      buf = ByteBuffer.allocateDirect(size);
      check(nFiles(h, buf), "file list");
    } finally {
      release();
    }
    BoundaryBuffer b =
        BoundaryBuffer.wrap(
            buf, FILE_LIST_LAYOUT, 1, FL_FILE_SIZE, FL_NAME_SIZE, FL_EXTENT_SIZE, 1);
    List<FsFile> out = new ArrayList<>(b.count(FL_FILES));
    for (int i = 0; i < b.count(FL_FILES); i++) {
      int firstName = b.getInt(FL_FILES, i, FL_FIRST_NAME);
      List<String> names = new ArrayList<>();
      for (int k = 0; k < b.getInt(FL_FILES, i, FL_N_NAMES); k++) {
        byte[] name =
            b.bytes(
                FL_BYTES,
                b.getInt(FL_NAMES, firstName + k, 0),
                b.getInt(FL_NAMES, firstName + k, Integer.BYTES));
        names.add(new String(name, java.nio.charset.StandardCharsets.UTF_8));
      }
      int firstExtent = (int) b.getLong(FL_FILES, i, FL_FIRST_EXTENT);
      List<FsFile.Extent> extents = new ArrayList<>();
      for (int k = 0; k < b.getInt(FL_FILES, i, FL_N_EXTENTS); k++) {
        extents.add(
            new FsFile.Extent(
                b.getLong(FL_EXTENTS, firstExtent + k, FL_EXTENT_START),
                b.getLong(FL_EXTENTS, firstExtent + k, FL_EXTENT_LENGTH)));
      }
      out.add(
          new FsFile(
              b.getLong(FL_FILES, i, FL_ID),
              List.copyOf(names),
              b.getLong(FL_FILES, i, FL_SIZE),
              b.getInt(FL_FILES, i, FL_LIFETIME),
              b.getLong(FL_FILES, i, FL_MTIME),
              extents));
    }
    out.sort(java.util.Comparator.comparing(f -> f.names().get(0)));
    return out;
  }

  // Boundary layout 12, version 1 (jni/boundary.h, zkv_bnd_meta_status): one record.
  static final int META_STATUS_LAYOUT = 12, MS_STATE = 0, MS_SEQUENCE = 8, MS_MESSAGE = 16;
  static final int MS_MESSAGE_SIZE = 256, MS_SIZE = 272;

  // Boundary layout 13, version 1 (zkv_bnd_fs_file, zkv_bnd_bytes, zkv_bnd_extent): sections of
  // files, their names (offset and length into the bytes), their extents, and the names' bytes.
  static final int FILE_LIST_LAYOUT = 13, FL_FILES = 0, FL_NAMES = 1, FL_EXTENTS = 2;
  static final int FL_BYTES = 3, FL_FILE_SIZE = 48, FL_NAME_SIZE = 8, FL_EXTENT_SIZE = 16;
  static final int FL_ID = 0, FL_SIZE = 8, FL_MTIME = 16, FL_LIFETIME = 24, FL_N_NAMES = 28;
  static final int FL_FIRST_NAME = 32, FL_N_EXTENTS = 36, FL_FIRST_EXTENT = 40;
  static final int FL_EXTENT_START = 0, FL_EXTENT_LENGTH = 8;

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

  private static native int nSuperblock(long fs, ByteBuffer out);

  private static native int nMetaStatus(long fs, int zone, ByteBuffer out);

  private static native int nZones(long fs, ByteBuffer out);

  private static native int nStats(long fs, ByteBuffer out);

  private static native int nFileListSize(long fs);

  private static native int nFiles(long fs, ByteBuffer out);

  private static native int nCheck(long fs, List<String> out);

  private static native String nLogEnd(long fs);
}
