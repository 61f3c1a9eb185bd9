package io.zkv.device;

import io.zkv.nativelib.BoundaryBuffer;
import io.zkv.nativelib.NativeHandle;
import io.zkv.nativelib.ZkvNative;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongUnaryOperator;

/**
 * A zoned block device opened by URI: {@code
 * emu:/path/file[?profile=zn540&wcache=1&reorder=0&seed=N]} for the emulator ({@link
 * EmulatedDevice#format} creates one), {@code nvme:/dev/ngXnY} for an NVMe zoned namespace driven
 * by passthrough commands on io_uring, {@code zbd:/dev/nvmeXnY} for a zoned block device (see
 * {@code docs/device.md}).
 *
 * <p>Byte addressing throughout: offsets are multiples of the block size, and {@link #append}
 * returns the byte offset the device assigned (the ALBA times the block size). Data methods take
 * direct {@link ByteBuffer}s and read or write {@code remaining()} bytes from their position
 * without allocating. Methods are thread-safe; the device is opened exclusively.
 */
public final class ZonedDevice extends NativeHandle {
  /** Write flag: durable when it completes even with the volatile write cache on. */
  public static final int FUA = 0x1;

  // Boundary layouts 6 and 7 (jni/boundary.h): zkv_zone and zkv_dev_stats as the records.
  static final int REPORT_LAYOUT = 6, REPORT_RECORD = 32, Z_START = 0, Z_CAP = 8, Z_WP = 16;
  static final int Z_COND = 24, Z_INDEX = 28, STATS_LAYOUT = 7, STATS_FIELDS = 11;
  private final String uri;
  private final DeviceGeometry geometry;
  private final String profile;
  private final Set<AsyncQueue> queues = ConcurrentHashMap.newKeySet();

  /** What holds the device's zone file system (a mount, an inspection, a mkfs), or null. */
  private final AtomicReference<String> fileSystemHolder = new AtomicReference<>();

  private ZonedDevice(String uri, long handle) {
    super("zoned device " + uri, handle);
    this.uri = uri;
    ByteBuffer g = ByteBuffer.allocateDirect(128);
    int rc = nGeometry(handle, g);
    if (rc < 0) {
      throw new IllegalStateException("cannot read the geometry of " + uri + ": error " + rc);
    }
    this.geometry = DeviceGeometry.read(g);
    this.profile = nProfile(handle);
  }

  /** Opens a device; fails with a specific message for a missing, foreign, corrupt or busy one. */
  public static ZonedDevice open(String uri) throws ZonedDeviceException {
    ZkvNative.ensureLoaded();
    long h = nOpen(uri);
    if (h < 0) {
      String detail = nLastError();
      ZonedDeviceException e = ZonedDeviceException.of(h, "open " + uri);
      if (detail.isEmpty()) {
        throw e;
      }
      throw e instanceof DeviceInUseException
          ? new DeviceInUseException(detail, h)
          : new ZonedDeviceException(detail, h);
    }
    return new ZonedDevice(uri, h);
  }

  public String uri() {
    return uri;
  }

  public DeviceGeometry geometry() {
    return geometry;
  }

  /**
   * The timing profile an emulated device runs with ({@code instant} when none); {@code device} for
   * the kernel backends.
   */
  public String profile() {
    return profile;
  }

  /** Reports every zone. */
  public List<Zone> report() throws ZonedDeviceException {
    return report(0, geometry.zoneCount());
  }

  /** Reports up to {@code count} zones starting at zone {@code first}. */
  public List<Zone> report(int first, int count) throws ZonedDeviceException {
    if (first < 0 || count < 0 || first > geometry.zoneCount()) {
      throw new IllegalArgumentException("zones " + first + "+" + count + " out of range");
    }
    int n = Math.min(count, geometry.zoneCount() - first);
    ByteBuffer out = ByteBuffer.allocateDirect(64 + Math.max(1, n) * REPORT_RECORD);
    long h = acquire();
    try {
      ZonedDeviceException.check(nReport(h, first, n, out), "zone report");
    } finally {
      release();
    }
    BoundaryBuffer b = BoundaryBuffer.wrap(out, REPORT_LAYOUT, 1, REPORT_RECORD);
    List<Zone> zones = new ArrayList<>(b.count(0));
    for (int i = 0; i < b.count(0); i++) {
      zones.add(
          new Zone(
              b.getInt(0, i, Z_INDEX),
              b.getLong(0, i, Z_START),
              b.getLong(0, i, Z_CAP),
              b.getLong(0, i, Z_WP),
              ZoneCondition.of(b.getInt(0, i, Z_COND))));
    }
    return zones;
  }

  public Zone zone(int index) throws ZonedDeviceException {
    List<Zone> z = report(index, 1);
    if (z.isEmpty()) {
      throw new IllegalArgumentException("no zone " + index);
    }
    return z.get(0);
  }

  public void openZone(int zone) throws ZonedDeviceException {
    manage(zone, 0x3, "open");
  }

  public void closeZone(int zone) throws ZonedDeviceException {
    manage(zone, 0x1, "close");
  }

  public void finishZone(int zone) throws ZonedDeviceException {
    manage(zone, 0x2, "finish");
  }

  public void resetZone(int zone) throws ZonedDeviceException {
    manage(zone, 0x4, "reset");
  }

  private void manage(int zone, int action, String what) throws ZonedDeviceException {
    long h = acquire();
    try {
      ZonedDeviceException.check(nZoneMgmt(h, zone, action), what + " zone " + zone);
    } finally {
      release();
    }
  }

  /** Writes {@code src.remaining()} bytes at {@code offset}, which must be the write pointer. */
  public void write(long offset, ByteBuffer src, int flags) throws ZonedDeviceException {
    int len = checkDirect(src);
    long h = acquire();
    try {
      ZonedDeviceException.check(
          nWrite(h, offset, src, src.position(), len, flags), "write at " + offset);
    } finally {
      release();
    }
    src.position(src.position() + len);
  }

  public void write(long offset, ByteBuffer src) throws ZonedDeviceException {
    write(offset, src, 0);
  }

  /** Zone append: the device picks the place; returns the assigned byte offset. */
  public long append(int zone, ByteBuffer src, int flags) throws ZonedDeviceException {
    int len = checkDirect(src);
    long h = acquire();
    long at;
    try {
      at = ZonedDeviceException.check(nAppend(h, zone, src, src.position(), len, flags), "append");
    } finally {
      release();
    }
    src.position(src.position() + len);
    return at;
  }

  public long append(int zone, ByteBuffer src) throws ZonedDeviceException {
    return append(zone, src, 0);
  }

  /** Reads {@code dst.remaining()} bytes from {@code offset}; unwritten blocks read as zeros. */
  public void read(long offset, ByteBuffer dst) throws ZonedDeviceException {
    int len = checkDirect(dst);
    long h = acquire();
    try {
      ZonedDeviceException.check(nRead(h, offset, dst, dst.position(), len), "read at " + offset);
    } finally {
      release();
    }
    dst.position(dst.position() + len);
  }

  /** Makes every completed write durable (the volatile write cache is flushed). */
  public void flush() throws ZonedDeviceException {
    long h = acquire();
    try {
      ZonedDeviceException.check(nFlush(h), "flush");
    } finally {
      release();
    }
  }

  /** A submission/completion queue of the given depth; closed with the device at the latest. */
  public AsyncQueue newQueue(int depth) throws ZonedDeviceException {
    if (depth < 1 || depth > 4096) {
      throw new IllegalArgumentException("queue depth must be 1..4096, not " + depth);
    }
    long h = acquire();
    try {
      long q = ZonedDeviceException.check(AsyncQueue.nCreate(h, depth), "create queue");
      AsyncQueue queue = new AsyncQueue(this, q, depth);
      queues.add(queue);
      return queue;
    } finally {
      release();
    }
  }

  void forget(AsyncQueue q) {
    queues.remove(q);
  }

  public DeviceStats stats() {
    ByteBuffer out = ByteBuffer.allocateDirect(256);
    long h = acquire();
    try {
      int rc = nStats(h, out);
      if (rc < 0) {
        throw new IllegalStateException("cannot read the counters of " + uri + ": error " + rc);
      }
    } finally {
      release();
    }
    long[] v =
        BoundaryBuffer.wrap(out, STATS_LAYOUT, 1, STATS_FIELDS * Long.BYTES)
            .getLongs(0, 0, STATS_FIELDS);
    return new DeviceStats(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
  }

  /**
   * One NVMe admin command on an {@code nvme:} device, or answered by the model of an emulated
   * device with {@code profile=plm}, limited natively to what zkv issues: Identify, Get Log Page,
   * Get Features, and Set Features of the Predictable Latency Mode features (0x13, 0x14). {@code
   * data} (direct, may be null) is the command's data buffer, from position 0 to its limit. Returns
   * Dword 0 of the completion. {@link io.zkv.device.plm.PlmAdmin} decodes the PLM commands.
   *
   * @throws NvmeAdminException with the device's raw status when it refuses the command
   */
  public int nvmeAdmin(
      int opcode, int nsid, int cdw10, int cdw11, int cdw12, int cdw13, ByteBuffer data)
      throws ZonedDeviceException {
    int len = 0;
    if (data != null) {
      checkDirect(data);
      len = data.limit();
    }
    int[] out = new int[2];
    long h = acquire();
    int rc;
    try {
      rc = nAdmin(h, opcode, nsid, cdw10, cdw11, cdw12, cdw13, data, len, out);
    } finally {
      release();
    }
    if (rc < 0) {
      int raw = out[1] != 0 ? out[1] : rc;
      throw new NvmeAdminException(opcode, cdw10, raw, rc, nLastError());
    }
    return out[0];
  }

  /**
   * The model behind an emulated device with {@code profile=plm}: its NVM Sets' state and (with
   * {@code clock=manual}) its window clock. The standard PLM commands go through {@link
   * io.zkv.device.plm.PlmAdmin} as on {@code nvme:}.
   */
  public EmulatedPlm emulatedPlm() {
    if (!(uri.startsWith("emu:") || isPlmArray()) || !"plm".equals(profile())) {
      throw new UnsupportedOperationException("needs an emulated device with profile=plm: " + uri);
    }
    return new EmulatedPlm(this);
  }

  /**
   * Whether this is a {@code plmarray:} device (the NVM Sets of a PLM device composed into one).
   */
  public boolean isPlmArray() {
    return uri.startsWith("plmarray:");
  }

  /**
   * What a {@code plmarray:} device holds for each NVM Set (see {@code docs/plm.md}), for the
   * window driver.
   */
  public PlmArray plmArray() {
    if (!isPlmArray()) {
      throw new UnsupportedOperationException("needs a plmarray: device: " + uri);
    }
    return new PlmArray(this);
  }

  /** Fault injection; emulated devices only. */
  public FaultInjector faults() {
    if (!uri.startsWith("emu:")) {
      throw new UnsupportedOperationException("fault injection needs an emulated device: " + uri);
    }
    return new FaultInjector(this);
  }

  /**
   * For native objects built on this device (the zone file system): the device's native handle,
   * kept valid until the lease is closed; the device refuses to close meanwhile.
   */
  public Lease lease() {
    return new Lease(takeLease());
  }

  /**
   * Like {@link #lease()}, for the one user of the device's zone file system: a mount, a read-only
   * inspection or a mkfs. A second one is refused while the first holds its lease (two mounts of
   * one device would each write their own metadata log and break each other), as opening the device
   * from another process is.
   *
   * @param holder what takes the file system, for the refusal's message (e.g. "mounted by a
   *     ZkvEnv")
   * @throws DeviceInUseException if the file system is held already
   */
  public Lease fileSystemLease(String holder) throws DeviceInUseException {
    if (!fileSystemHolder.compareAndSet(null, holder)) {
      throw new DeviceInUseException(
          "the zone file system of "
              + uri
              + " is already "
              + fileSystemHolder.get()
              + " in this process; zkv mounts a device once (share that mount, e.g. one ZonedEnv"
              + " or ZonedEnv.shared, or close it first)",
          -16);
    }
    try {
      return new Lease(takeLease(), true);
    } catch (RuntimeException e) {
      fileSystemHolder.set(null);
      throw e;
    }
  }

  /** A hold on the device's native handle; see {@link #lease()}. */
  public final class Lease implements AutoCloseable {
    private final long handle;
    private final boolean fileSystem;
    private boolean closed;

    private Lease(long handle) {
      this(handle, false);
    }

    private Lease(long handle, boolean fileSystem) {
      this.handle = handle;
      this.fileSystem = fileSystem;
    }

    public long handle() {
      if (closed) {
        throw new IllegalStateException("lease on " + uri + " is closed");
      }
      return handle;
    }

    @Override
    public synchronized void close() {
      if (!closed) {
        closed = true;
        if (fileSystem) {
          fileSystemHolder.set(null);
        }
        endLease();
      }
    }
  }

  /** Runs one native call on the device's handle, kept valid during it; returns its result. */
  long onHandle(LongUnaryOperator call) {
    long h = acquire();
    try {
      return call.applyAsLong(h);
    } finally {
      release();
    }
  }

  @Override
  protected void beforeDispose() {
    for (AsyncQueue q : queues) {
      q.close();
    }
  }

  @Override
  protected void dispose(long handle) {
    // A queue created by a call that was in progress when close began (after beforeDispose ran)
    // is closed here, before the native device it points to is freed.
    for (AsyncQueue q : queues) {
      q.close();
    }
    nClose(handle);
  }

  static int checkDirect(ByteBuffer b) {
    if (!b.isDirect()) {
      throw new IllegalArgumentException("zkv device I/O needs a direct ByteBuffer");
    }
    return b.remaining();
  }

  private static native long nOpen(String uri);

  private static native void nClose(long h);

  private static native String nLastError();

  private static native String nProfile(long h);

  private static native int nGeometry(long h, ByteBuffer out);

  private static native int nReport(long h, int first, int n, ByteBuffer out);

  private static native int nZoneMgmt(long h, int zone, int action);

  private static native long nWrite(long h, long off, ByteBuffer b, int pos, int len, int flags);

  private static native long nAppend(long h, int zone, ByteBuffer b, int pos, int len, int flags);

  private static native long nRead(long h, long off, ByteBuffer b, int pos, int len);

  private static native int nFlush(long h);

  private static native int nStats(long h, ByteBuffer out);

  private static native int nAdmin(
      long h,
      int opcode,
      int nsid,
      int cdw10,
      int cdw11,
      int cdw12,
      int cdw13,
      ByteBuffer b,
      int len,
      int[] out);
}
