package io.zkv.fs;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.ZnsStatus;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.nativelib.NativeHandle;
import io.zkv.nativelib.ZkvNative;
import io.zkv.placement.GcTrigger;
import io.zkv.placement.ZoneTable;
import io.zkv.wal.WalMode;
import io.zkv.wal.WalOptions;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntSupplier;
import java.util.function.LongUnaryOperator;

/**
 * zkv's zone file system mounted on a zoned device: its settings, the Java policies that decide
 * every zone allocation, GC victim and background GC round, its counters and views, and the zones
 * it leases to WALTZ's log. RocksDB reaches it through an Env built over it ({@code
 * org.rocksdb.ZkvEnv}); nothing here needs RocksDB.
 *
 * <p>Closing it uninstalls its policies (the file system's safety rule decides from then on) and
 * lets go of the device; it refuses while an Env over it is open. An Env that RocksDB still holds
 * keeps the file system mounted until RocksDB lets go of it.
 *
 * <p>The JVM may exit ({@code System.exit}, SIGTERM) while it is busy: a shutdown hook ({@link
 * ZoneFsExitGuard}) first hands zone placement and GC back to the safety rule, so that no RocksDB
 * thread attaches to the exiting JVM.
 */
public final class ZoneFs extends NativeHandle {
  private static final int EOPNOTSUPP = 95;

  private final ZonedDevice device;
  private final ZonedDevice.Lease lease;
  private final ByteBuffer statsBuffer = ByteBuffer.allocateDirect(ZoneStats.BUFFER_BYTES);
  private volatile ZoneAllocator allocator; // the installed placement call-out

  private ZoneFs(long handle, ZonedDevice device, ZonedDevice.Lease lease) {
    super("zone file system on " + device.uri(), handle);
    this.device = device;
    this.lease = lease;
  }

  /**
   * The file system on {@code device}: formatted first when the settings say so (erasing the
   * device), else mounted, with the settings' policies deciding every zone allocation, every GC
   * victim and when background GC runs (the file system chooses nothing itself: its safety rule
   * steps in only where a policy cannot decide, counted in {@link ZoneStats#overrides()}).
   * Background GC starts once every policy is installed, so it never runs under rules about to be
   * replaced. The device cannot be closed while the file system is mounted.
   *
   * @throws io.zkv.device.DeviceInUseException if the device's file system is mounted (or
   *     inspected) already in this process
   * @throws NotFormattedException if the device holds no zkv file system and the settings do not
   *     format it
   */
  public static ZoneFs mount(ZonedDevice device, ZoneFsSettings settings)
      throws ZonedDeviceException {
    Objects.requireNonNull(settings, "settings");
    DeviceGeometry g = device.geometry();
    if (settings.allocator() == null) { // ZenFS's two reserved tokens, as the zone view shows them
      settings
          .placement()
          .checkDevice(g.maxActive() == 0 ? g.zoneCount() : Math.max(0, g.maxActive() - 2));
    }
    ZoneFs fs = open(device, "mounted by a ZoneFs", settings.formatFirst(), false);
    try {
      fs.install(settings);
      fs.startBackgroundGc();
    } catch (RuntimeException e) {
      fs.close();
      throw e;
    }
    return fs;
  }

  /**
   * A read-only mount of {@code device}'s file system, for inspecting databases: nothing on the
   * device changes, every write fails (EROFS), no policy is installed.
   *
   * @throws io.zkv.device.DeviceInUseException if the file system is mounted already in this
   *     process
   */
  public static ZoneFs mountReadOnly(ZonedDevice device) throws ZonedDeviceException {
    return open(device, "mounted read-only by a ZoneFs", false, true);
  }

  private static ZoneFs open(ZonedDevice device, String holder, boolean format, boolean readOnly)
      throws ZonedDeviceException {
    ZkvNative.ensureLoaded();
    ZonedDevice.Lease lease = device.fileSystemLease(holder);
    long h = nMount(lease.handle(), format, readOnly);
    if (h < 0) {
      lease.close();
      throw NotFormattedException.ofMount(device.uri() + ": " + nLastError(), h);
    }
    return new ZoneFs(h, device, lease);
  }

  /** The settings' policies and write settings, before background GC starts. */
  private void install(ZoneFsSettings settings) {
    long h = acquire();
    try {
      DeviceGeometry g = geometry();
      ZoneAllocator a =
          settings.allocator() != null
              ? settings.allocator()
              : new PlacementAllocator(settings.placement(), g);
      if (installCallout(() -> nSetAllocator(h, a)) < 0) {
        throw new IllegalArgumentException("cannot install the zone allocator " + a);
      }
      allocator = a;
      GcVictimChooser victims = new VictimPolicyChooser(settings.victims(), g);
      if (installCallout(() -> nSetVictimChooser(h, victims)) < 0) {
        throw new IllegalStateException("cannot install the victim chooser " + victims);
      }
      if (settings.gcTrigger() != GcTrigger.off()) {
        GcRoundPlanner trigger = new GcTriggerPlanner(settings.gcTrigger().perFileSystem(), g);
        if (installCallout(() -> nSetGcTrigger(h, trigger)) < 0) {
          throw new IllegalStateException("cannot install the GC trigger " + trigger);
        }
      }
      new MountSettings(h, device).apply(settings);
    } finally {
      release();
    }
  }

  /**
   * Installs a Java policy unless the JVM is exiting (then the safety rule stays: see {@link
   * ZoneFsExitGuard}); returns the native result.
   */
  private int installCallout(IntSupplier install) {
    ZoneFsExitGuard.watch(this);
    synchronized (ZoneFsExitGuard.class) {
      return ZoneFsExitGuard.exiting() ? 0 : install.getAsInt();
    }
  }

  /** The write settings a mount applies before any write, each refused with its reason. */
  private record MountSettings(long handle, ZonedDevice device) {
    void apply(ZoneFsSettings s) {
      WalOptions wal = s.wal();
      if (nSetWalBuffer(handle, wal.bufferBytes()) < 0) {
        throw new IllegalArgumentException(
            "WAL buffer "
                + wal.bufferBytes()
                + " bytes on "
                + device.uri()
                + ": must be a multiple of its "
                + device.geometry().lbaSize()
                + "-byte block, at most 1 MiB");
      }
      walMode(wal);
      if (nSetWalReserve(handle, wal.reservedZones(), wal.switchRoom()) < 0) {
        throw new IllegalArgumentException(
            wal
                + " on "
                + device.uri()
                + ": the WAL switch room must be at most the zone capacity, "
                + device.geometry().zoneCapacity()
                + " bytes");
      }
      int rc = nSetWriteBehind(handle, s.writeBehind());
      if (rc < 0 && !(rc == -EOPNOTSUPP && s.writeBehind())) { // unsupported: synchronous writes
        throw new IllegalStateException("cannot set SST write-behind: error " + rc);
      }
      if (s.opZones() != 0 && nSetOpZones(handle, s.opZones()) < 0) {
        throw new IllegalArgumentException(
            "op-zones "
                + s.opZones()
                + " on "
                + device.uri()
                + ": over-provisioning leaves data writers fewer than 4 of the device's "
                + device.geometry().zoneCount()
                + " zones beyond the file system's metadata zones and its two reserved empty"
                + " zones");
      }
      if (!s.noSpaceFallback() && (rc = nSetStrictNoSpace(handle, true)) < 0) {
        throw new IllegalStateException("cannot turn the NoSpace fallback off: error " + rc);
      }
    }

    /** ZWAL or the FILE mode, with ZWAL's queue depth and barrier. */
    private void walMode(WalOptions wal) {
      boolean zwal = wal.mode() == WalMode.ZWAL;
      int rc = nSetWalMode(handle, zwal ? 1 : 0, zwal ? wal.queueDepth() : 0, wal.barrierBytes());
      if (rc == -EOPNOTSUPP) {
        throw new IllegalArgumentException(
            "WAL mode ZWAL on "
                + device.uri()
                + ": ZWAL keeps zone appends in flight, and this device's queues carry out each"
                + " request when it is submitted (plmarray:); use the FILE mode there");
      }
      if (rc < 0) {
        throw new IllegalArgumentException(
            wal
                + " on "
                + device.uri()
                + ": the barrier must be a multiple of the device's "
                + device.geometry().lbaSize()
                + "-byte block, at most the zone capacity "
                + device.geometry().zoneCapacity());
      }
    }
  }

  private void startBackgroundGc() {
    try {
      check(nStartGc(acquire()), "cannot start background GC");
    } finally {
      release();
    }
  }

  private void check(int rc, String what) {
    if (rc < 0) {
      throw new IllegalStateException(what + " on " + device.uri() + ": error " + rc);
    }
  }

  /** One native call on the live handle (a call in progress until it returns). */
  private int call(java.util.function.LongToIntFunction nativeCall) {
    try {
      return nativeCall.applyAsInt(acquire());
    } finally {
      release();
    }
  }

  private long callLong(java.util.function.LongUnaryOperator nativeCall) {
    try {
      return nativeCall.applyAsLong(acquire());
    } finally {
      release();
    }
  }

  /** The device's geometry. */
  public DeviceGeometry geometry() {
    return device.geometry();
  }

  /**
   * Builds a native object that shares this file system and holds it mounted ({@code
   * org.rocksdb.ZkvEnv}'s Env): {@code build} gets the native handle and returns the new object's
   * handle, or a negative errno. This file system refuses to close until {@link #unbind}.
   */
  public long bind(LongUnaryOperator build) {
    long h = takeLease();
    long built = build.applyAsLong(h);
    if (built < 0) {
      endLease();
    }
    return built;
  }

  /** The object {@link #bind} built is gone. */
  public void unbind() {
    endLease();
  }

  /**
   * Runs garbage collection until {@code bytes} are free for data or nothing more can be reclaimed;
   * returns the bytes free for data. For resuming after NoSpace.
   */
  public long reclaim(long bytes) {
    try {
      long free = nReclaim(acquire(), bytes);
      if (free < 0) {
        throw new IllegalArgumentException("cannot reclaim " + bytes + " bytes: error " + free);
      }
      return free;
    } finally {
      release();
    }
  }

  /** The file system's counters. */
  public ZoneStats stats() {
    try {
      synchronized (statsBuffer) {
        check(nZoneStats(acquire(), statsBuffer), "cannot read the counters");
        return ZoneStats.read(statsBuffer);
      }
    } finally {
      release();
    }
  }

  /**
   * The zone view placement policies decide on, taken now: every zone with its condition, tag and
   * live bytes, every live file with its LSM hints (level, key range) and where its data is. For
   * inspection: it copies the file system's tables under its lock (no device command), so take it
   * sparingly.
   *
   * @throws IllegalStateException if the view could not be taken
   */
  public ZoneTable zoneTable() {
    byte[] view;
    try {
      view = nZoneView(acquire());
    } finally {
      release();
    }
    if (view == null) {
      throw new IllegalStateException("no zone view of " + device.uri() + " (no memory)");
    }
    return ZoneView.wrap(ByteBuffer.wrap(view)).table(geometry());
  }

  /**
   * The files under {@code prefix} (a database's directory, with a trailing {@code /}): how many,
   * their bytes, and those of SST files.
   */
  public PathUsage pathUsage(String prefix) {
    try {
      synchronized (statsBuffer) {
        check(nPathUsage(acquire(), prefix, statsBuffer), "cannot read the usage of " + prefix);
        return PathUsage.read(statsBuffer);
      }
    } finally {
      release();
    }
  }

  /** The compactions' input zones since mount; none where a raw allocator is installed. */
  public CompactionZones compactionZones() {
    return allocator instanceof PlacementAllocator p
        ? new CompactionZones(p.compactionsCounted(), p.compactionInputZones())
        : new CompactionZones(0, 0);
  }

  /**
   * Compaction outputs' key-range hints against their own ranges, in next-level SSTs overlapped,
   * since mount; none where a raw allocator is installed.
   */
  public HintOverlapCounts hintOverlaps() {
    return allocator instanceof PlacementAllocator p ? p.hintOverlaps() : HintOverlapCounts.NONE;
  }

  // WALTZ's leased zones (zonefs/lease.c; docs/zone-fs.md, "Leased zones"). Thin: each returns
  // what the file system says, -errno included; zkv-core's WALTZ log says what failed and why.

  /**
   * Leases an empty zone to {@code owner} (nonzero), recorded before it returns: the zone or
   * -errno.
   */
  public int leaseZone(long owner) {
    return call(h -> nLeaseZone(h, owner));
  }

  /** Returns (and resets) a zone leased to {@code owner}: 0 or -errno (-ENOENT: not owner's). */
  public int returnLease(long owner, int zone) {
    return call(h -> nReturnLease(h, owner, zone));
  }

  /**
   * Returns every zone leased to {@code owner} with one metadata record (after a crash all are
   * leased or none): 0 or -errno.
   */
  public int returnAllLeases(long owner) {
    return call(h -> nReturnAllLeases(h, owner));
  }

  /**
   * Returns the given zones, all leased to {@code owner}, with one metadata record: 0 or -errno
   * (-ENOENT if one is not owner's: none returned).
   */
  public int returnLeaseSet(long owner, int[] zones) {
    return call(h -> nReturnLeaseSet(h, owner, zones.clone()));
  }

  /**
   * Returns with one metadata record every zone leased to {@code owner} that has been written, and
   * every empty one beyond the first {@code keep}, which stay leased: how many empty zones stay
   * leased, or -errno (nothing returned).
   */
  public int returnLeasesKeepEmpty(long owner, int keep) {
    return call(h -> nReturnLeasesKeepEmpty(h, owner, keep));
  }

  /** The zones leased to {@code owner}, ascending. */
  public int[] leasedZones(long owner) {
    try {
      long h = acquire();
      for (int cap = 16; ; cap *= 4) {
        int[] out = new int[cap];
        int n = nLeasedZones(h, owner, out);
        check(n, "cannot list the zones leased to " + owner);
        if (n <= cap) {
          return Arrays.copyOf(out, n);
        }
      }
    } finally {
      release();
    }
  }

  /**
   * Zone-appends the first {@code len} bytes (whole blocks) of the direct buffer {@code buf} to a
   * zone leased to {@code owner}, with FUA if asked, and waits for it: the byte offset in the zone
   * where they landed, or -errno (a full zone: the device's Zone Is Full or Zone Boundary Error,
   * {@link #isZoneFull}).
   */
  public long leaseAppend(long owner, int zone, ByteBuffer buf, int len, boolean fua) {
    try {
      return nLeaseAppend(acquire(), owner, zone, buf, len, fua);
    } finally {
      release();
    }
  }

  /** Whether an append's result says its zone had no room for it. */
  public static boolean isZoneFull(long result) {
    return result == ZnsStatus.ZONE_IS_FULL.nativeCode()
        || result == ZnsStatus.ZONE_BOUNDARY_ERROR.nativeCode();
  }

  /**
   * Reads {@code len} bytes at {@code offset} of a leased zone into the direct buffer: 0 or -errno.
   */
  public int leaseRead(long owner, int zone, long offset, ByteBuffer buf, int len) {
    return call(h -> nLeaseRead(h, owner, zone, offset, buf, len));
  }

  /** A leased zone's written bytes (the device's write pointer), or -errno. */
  public long leaseWritten(long owner, int zone) {
    return callLong(h -> nLeaseWritten(h, owner, zone));
  }

  /**
   * A leased zone's key, the lease's 128-bit secret (docs/formats/zone-fs.md, "Zone leases
   * payload"): two longs, both 0 for a lease a version 7 file system recorded without one; or null
   * if the zone is not {@code owner}'s or cannot be read.
   */
  public long[] leaseKey(long owner, int zone) {
    long[] key = new long[2];
    try {
      return nLeaseKey(acquire(), owner, zone, key) == 0 ? key : null;
    } finally {
      release();
    }
  }

  /**
   * Gives a zone leased to {@code owner} that nothing was appended to a new key, recorded before it
   * returns: 0 or -errno (-ENOTEMPTY if it has been written).
   */
  public int renewLease(long owner, int zone) {
    return call(h -> nRenewLease(h, owner, zone));
  }

  /**
   * Empty zones a lease may still take without collecting garbage (beyond the file system's
   * reserves), or -errno: WALTZ's log asks RocksDB for a flush early, so that it can give its
   * flushed zones back, when this runs low.
   */
  public int leaseRoom() {
    return call(h -> nLeaseRoom(h));
  }

  /** Finishes a leased zone (frees its active token; appends in flight then fail as full). */
  public int finishLease(long owner, int zone) {
    return call(h -> nFinishLease(h, owner, zone));
  }

  /**
   * The native library's account of boundary layout {@code layout} (0 for the header and section
   * table): its version, then per record its size and field offsets (jni/boundary.h). For the
   * layout agreement tests.
   */
  public static int[] nativeBoundaryLayout(int layout) {
    ZkvNative.ensureLoaded();
    return nBoundaryLayout(layout);
  }

  /** The JVM is exiting: threads attached for call-outs stay attached as they exit. */
  static void jvmExiting() {
    nJvmExiting();
  }

  /** Back to the file system's safety rule; waits for call-outs under way (JVM exit). */
  void disableCallouts() {
    long h;
    try {
      h = acquire();
    } catch (IllegalStateException closed) {
      return; // closing: its close uninstalls them
    }
    try {
      nDisableCallouts(h);
    } finally {
      release();
    }
  }

  @Override
  protected void dispose(long handle) {
    ZoneFsExitGuard.forget(this);
    nClose(handle);
    lease.close();
  }

  private static native long nMount(long device, boolean format, boolean readOnly);

  private static native String nLastError();

  private static native void nClose(long handle);

  private static native long nReclaim(long handle, long bytes);

  private static native int nSetWalBuffer(long handle, int bytes);

  private static native int nSetWriteBehind(long handle, boolean on);

  private static native int nSetOpZones(long handle, int zones);

  private static native int nSetStrictNoSpace(long handle, boolean on);

  private static native int nSetWalMode(long handle, int mode, int queueDepth, long barrier);

  private static native int nSetWalReserve(long handle, int zones, long switchRoom);

  private static native int nLeaseZone(long handle, long owner);

  private static native int nReturnLease(long handle, long owner, int zone);

  private static native int nLeasedZones(long handle, long owner, int[] out);

  private static native int nReturnAllLeases(long handle, long owner);

  private static native int nReturnLeasesKeepEmpty(long handle, long owner, int keep);

  private static native int nReturnLeaseSet(long handle, long owner, int[] zones);

  private static native long nLeaseAppend(
      long handle, long owner, int zone, ByteBuffer buf, int len, boolean fua);

  private static native int nLeaseRead(
      long handle, long owner, int zone, long offset, ByteBuffer buf, int len);

  private static native long nLeaseWritten(long handle, long owner, int zone);

  private static native int nFinishLease(long handle, long owner, int zone);

  private static native int nLeaseKey(long handle, long owner, int zone, long[] out);

  private static native int nRenewLease(long handle, long owner, int zone);

  private static native int nLeaseRoom(long handle);

  private static native int nSetAllocator(long handle, ZoneAllocator allocator);

  private static native int nSetVictimChooser(long handle, GcVictimChooser chooser);

  private static native int nSetGcTrigger(long handle, GcRoundPlanner trigger);

  private static native void nDisableCallouts(long handle);

  private static native void nJvmExiting();

  private static native int nPathUsage(long handle, String prefix, ByteBuffer out);

  private static native int nStartGc(long handle);

  private static native int nZoneStats(long handle, ByteBuffer out);

  private static native byte[] nZoneView(long handle);

  private static native int[] nBoundaryLayout(int layout);
}
