package org.rocksdb;

import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.fs.GcVictimChooser;
import io.zkv.fs.PolicyOverride;
import io.zkv.fs.ZoneAllocator;
import io.zkv.fs.ZoneFsSettings;
import io.zkv.nativelib.BoundaryBuffer;
import io.zkv.nativelib.ZkvNative;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A RocksDB {@link Env} whose file system is zkv's, for {@code Options.setEnv(...)}.
 *
 * <p>It lives in package {@code org.rocksdb} because {@code Env(long)} is package-private in
 * RocksJava 9.7.3 and 10.1.3 (and {@code RocksEnv.close()} is broken in both). The native handle
 * RocksJava sees is the raw {@code rocksdb::Env*}; closing this object frees the Env and its file
 * system, so close every database and {@code Options} using it first.
 *
 * <p>The JVM may exit ({@code System.exit}, SIGTERM) while databases on a zoned Env are busy: a
 * shutdown hook ({@link ZkvEnvExitGuard}) first hands zone placement and GC back to the file
 * system's safety rule, so that no RocksDB thread attaches to the exiting JVM.
 */
public final class ZkvEnv extends Env {
  private final long zkvHandle;
  private final ZonedDevice.Lease lease;
  private final Object callouts = new Object(); // orders call-out changes with dispose
  private boolean disposed; // guarded by callouts
  private final ByteBuffer statsBuffer = ByteBuffer.allocateDirect(ZoneStats.BUFFER_BYTES);
  private volatile ZoneAllocator allocator; // the installed placement call-out
  private final io.zkv.device.DeviceGeometry geometry;

  private ZkvEnv(long zkvHandle, ZonedDevice.Lease lease, io.zkv.device.DeviceGeometry geometry) {
    super(nEnvPointer(zkvHandle));
    this.zkvHandle = zkvHandle;
    this.lease = lease;
    this.geometry = geometry;
  }

  /**
   * An Env whose files live in zones of {@code device}, through zkv's zone file system: formatted
   * first when the settings say so (erasing the device), else mounted, with the settings' policies
   * deciding every zone allocation, every GC victim and when background GC runs (the file system
   * chooses nothing itself: its safety rule steps in only where a policy cannot decide, counted in
   * {@link ZoneStats#overrides()}). Background GC starts once every policy is installed, so it
   * never runs under rules about to be replaced. The device cannot be closed while the Env is open.
   * One Env per device; several databases (paths) may share it.
   *
   * @throws io.zkv.device.DeviceInUseException if the device's file system is mounted (or
   *     inspected) already in this process
   */
  public static ZkvEnv onZones(ZonedDevice device, ZoneFsSettings settings)
      throws ZonedDeviceException {
    Objects.requireNonNull(settings, "settings");
    io.zkv.device.DeviceGeometry g = device.geometry();
    if (settings.allocator() == null) { // ZenFS's two reserved tokens, as the zone view shows them
      settings
          .placement()
          .checkDevice(g.maxActive() == 0 ? g.zoneCount() : Math.max(0, g.maxActive() - 2));
    }
    ZkvEnv env = mount(device, "mounted by a ZkvEnv", settings.formatFirst(), false);
    try {
      env.installAllocator(
          settings.allocator() != null
              ? settings.allocator()
              : new io.zkv.fs.PlacementAllocator(settings.placement(), g));
      env.setVictimChooser(new io.zkv.fs.VictimPolicyChooser(settings.victims(), g));
      if (settings.gcTrigger() != io.zkv.placement.GcTrigger.off()) {
        env.setGcTrigger(new io.zkv.fs.GcTriggerPlanner(settings.gcTrigger().perFileSystem(), g));
      }
      env.setWalBuffer(settings.wal().bufferBytes(), device);
      env.setWalMode(settings.wal(), device);
      env.setWalReserve(settings.wal(), device);
      env.setWriteBehind(settings.writeBehind());
      env.setOpZones(settings.opZones(), device);
      if (!settings.noSpaceFallback()) {
        env.setStrictNoSpace();
      }
    } catch (RuntimeException e) {
      env.close();
      throw e;
    }
    env.startBackgroundGc();
    return env;
  }

  private static ZkvEnv mount(ZonedDevice device, String holder, boolean format, boolean readOnly)
      throws ZonedDeviceException {
    ZkvNative.ensureLoaded();
    ZonedDevice.Lease lease = device.fileSystemLease(holder);
    long h = nNewZoned(lease.handle(), format, readOnly);
    if (h < 0) {
      lease.close();
      throw io.zkv.fs.NotFormattedException.ofMount(device.uri() + ": " + nLastError(), h);
    }
    return new ZkvEnv(h, lease, device.geometry());
  }

  /**
   * An Env over a read-only mount of {@code device}'s zone file system, for inspecting databases
   * with {@code RocksDB.openReadOnly}: nothing on the device changes, every write fails (EROFS).
   *
   * @throws io.zkv.device.DeviceInUseException if the file system is mounted already in this
   *     process
   */
  public static ZkvEnv readOnlyOnZones(ZonedDevice device) throws ZonedDeviceException {
    return mount(device, "mounted read-only by a ZkvEnv", false, true);
  }

  private void installAllocator(ZoneAllocator allocator) {
    if (installCallout(() -> nSetAllocator(zkvHandle, allocator)) < 0) {
      close();
      throw new IllegalArgumentException("cannot install the zone allocator " + allocator);
    }
    this.allocator = allocator;
  }

  /**
   * Garbage collection's counters since the file system was formatted ({@link ZoneStats#gcTotals}).
   *
   * @param runs GC runs that emptied a zone
   * @param zones zones GC emptied
   * @param bytes bytes GC copied
   * @param resets zone resets
   * @param resetsWithoutCopy of those, the ones that copied nothing
   * @param finishes zones the file system finished
   */
  public record GcTotals(
      long runs, long zones, long bytes, long resets, long resetsWithoutCopy, long finishes) {
    static final int FIELDS = 6;

    static GcTotals of(long[] v, int from) {
      return new GcTotals(v[from], v[from + 1], v[from + 2], v[from + 3], v[from + 4], v[from + 5]);
    }
  }

  /**
   * How many zones held each compaction's input SSTs (CAZA's Fig. 6(a)), as the placement call-out
   * saw them since mount: counted at each compaction's first output allocation.
   *
   * @param compactions compactions counted
   * @param zones the zones holding their inputs, summed
   */
  public record CompactionZones(long compactions, long zones) {
    /** Zones per compaction, NaN if none was counted. */
    public double perCompaction() {
      return compactions == 0 ? Double.NaN : (double) zones / compactions;
    }
  }

  /** The compactions' input zones since mount; none where a raw allocator is installed. */
  public CompactionZones compactionZones() {
    return allocator instanceof io.zkv.fs.PlacementAllocator p
        ? new CompactionZones(p.compactionsCounted(), p.compactionInputZones())
        : new CompactionZones(0, 0);
  }

  /**
   * Compaction outputs' key-range hints against their own ranges, in next-level SSTs overlapped,
   * since mount; none where a raw allocator is installed.
   */
  public io.zkv.fs.HintOverlapCounts hintOverlaps() {
    return allocator instanceof io.zkv.fs.PlacementAllocator p
        ? p.hintOverlaps()
        : io.zkv.fs.HintOverlapCounts.NONE;
  }

  /** Starts background garbage collection (mounts do not start it before their policies). */
  private void startBackgroundGc() {
    int rc = nStartGc(zkvHandle);
    if (rc < 0) {
      close();
      throw new IllegalStateException("cannot start background GC: error " + rc);
    }
  }

  /**
   * Installs a Java policy unless the JVM is exiting (then the safety rule stays: see {@link
   * ZkvEnvExitGuard}); returns the native result.
   */
  private int installCallout(java.util.function.IntSupplier install) {
    ZkvEnvExitGuard.watch(this);
    synchronized (callouts) {
      return ZkvEnvExitGuard.exiting() ? 0 : install.getAsInt();
    }
  }

  /** The JVM is exiting: threads attached for call-outs stay attached as they exit. */
  static void jvmExiting() {
    nJvmExiting();
  }

  /** Back to the file system's safety rule; waits for call-outs under way (JVM exit). */
  void disableCallouts() {
    synchronized (callouts) {
      if (!disposed) {
        nDisableCallouts(zkvHandle);
      }
    }
  }

  /** The device bytes of one WAL write-out (at mount, {@link #onZones}). */
  private void setWalBuffer(int bytes, ZonedDevice device) {
    if (nSetWalBuffer(zkvHandle, bytes) < 0) {
      throw new IllegalArgumentException(
          "WAL buffer "
              + bytes
              + " bytes on "
              + device.uri()
              + ": must be a multiple of its "
              + device.geometry().lbaSize()
              + "-byte block, at most 1 MiB");
    }
  }

  /** SST write-behind where the device's queues keep requests in flight (at mount). */
  private void setWriteBehind(boolean on) {
    int rc = nSetWriteBehind(zkvHandle, on);
    if (rc < 0 && !(rc == -EOPNOTSUPP && on)) { // not supported: synchronous writes, as documented
      throw new IllegalStateException("cannot set SST write-behind: error " + rc);
    }
  }

  /** The over-provisioning reserve (at mount, {@link #onZones}). */
  private void setOpZones(int zones, ZonedDevice device) {
    if (zones == 0) {
      return;
    }
    if (nSetOpZones(zkvHandle, zones) < 0) {
      throw new IllegalArgumentException(
          "op-zones "
              + zones
              + " on "
              + device.uri()
              + ": over-provisioning leaves data writers fewer than 4 of the device's "
              + device.geometry().zoneCount()
              + " zones beyond the file system's metadata zones and its two reserved empty zones");
    }
  }

  /** Data files' NoSpace from the policy stands (at mount, {@link #onZones}). */
  private void setStrictNoSpace() {
    int rc = nSetStrictNoSpace(zkvHandle, true);
    if (rc < 0) {
      throw new IllegalStateException("cannot turn the NoSpace fallback off: error " + rc);
    }
  }

  /** WALTZ's reserved WAL zones (at mount, {@link #onZones}; the thread starts with GC's). */
  private void setWalReserve(io.zkv.wal.WalOptions wal, ZonedDevice device) {
    int rc = nSetWalReserve(zkvHandle, wal.reservedZones(), wal.switchRoom());
    if (rc < 0) {
      throw new IllegalArgumentException(
          wal
              + " on "
              + device.uri()
              + ": the WAL switch room must be at most the zone capacity, "
              + device.geometry().zoneCapacity()
              + " bytes");
    }
  }

  /** ZWAL or the FILE mode, with ZWAL's queue depth and barrier (at mount, {@link #onZones}). */
  private void setWalMode(io.zkv.wal.WalOptions wal, ZonedDevice device) {
    boolean zwal = wal.mode() == io.zkv.wal.WalMode.ZWAL;
    int rc = nSetWalMode(zkvHandle, zwal ? 1 : 0, zwal ? wal.queueDepth() : 0, wal.barrierBytes());
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

  private static final int EOPNOTSUPP = 95;

  /** Installs the GC victim call-out (at mount, {@link #onZones}). */
  private void setVictimChooser(GcVictimChooser chooser) {
    if (installCallout(() -> nSetVictimChooser(zkvHandle, chooser)) < 0) {
      throw new IllegalStateException("cannot install the victim chooser " + chooser);
    }
  }

  /** Installs the background GC's trigger call-out (at mount, {@link #onZones}). */
  private void setGcTrigger(io.zkv.fs.GcRoundPlanner trigger) {
    if (installCallout(() -> nSetGcTrigger(zkvHandle, trigger)) < 0) {
      throw new IllegalStateException("cannot install the GC trigger " + trigger);
    }
  }

  /**
   * Runs garbage collection until {@code bytes} are free for data or nothing more can be reclaimed;
   * returns the bytes free for data (zoned Envs only). For resuming after NoSpace.
   */
  public long reclaim(long bytes) {
    checkOpen();
    long free = nReclaim(zkvHandle, bytes);
    if (free < 0) {
      throw new IllegalStateException("not a zoned Env");
    }
    return free;
  }

  /** Counters of the zone file system (zoned Envs only). */
  public ZoneStats zoneStats() {
    checkOpen();
    synchronized (statsBuffer) {
      int n = nZoneStats(zkvHandle, statsBuffer);
      if (n < 0) {
        throw new IllegalStateException("not a zoned Env (error " + n + ")");
      }
      return ZoneStats.read(statsBuffer);
    }
  }

  /**
   * The zone view placement policies decide on, taken now (zoned Envs only): every zone with its
   * condition, tag and live bytes, every live file with its LSM hints (level, key range) and where
   * its data is. For inspection: it copies the file system's tables under its lock (no device
   * command), so take it sparingly.
   *
   * @throws IllegalStateException if this is not a zoned Env or the view could not be taken
   */
  public io.zkv.placement.ZoneTable zoneTable() {
    checkOpen();
    byte[] view = nZoneView(zkvHandle);
    if (view == null) {
      throw new IllegalStateException("no zone view of this Env (not a zoned Env, or no memory)");
    }
    return io.zkv.fs.ZoneView.wrap(ByteBuffer.wrap(view)).table(geometry);
  }

  /**
   * The files under {@code prefix} in the zone file system (a database's directory, with a trailing
   * {@code /}): how many, their bytes, and those of SST files (zoned Envs only).
   */
  public PathUsage pathUsage(String prefix) {
    checkOpen();
    synchronized (statsBuffer) {
      int n = nPathUsage(zkvHandle, prefix, statsBuffer);
      if (n < 0) {
        throw new IllegalStateException("not a zoned Env (error " + n + ")");
      }
      return PathUsage.read(statsBuffer);
    }
  }

  /**
   * Records the next database the calling thread opens on this Env (RocksDB takes the database's
   * lock on the thread that opens it) under {@code token}, until that database closes: {@link
   * #openedDir} then names its directory. For code that runs just before a database is opened
   * somewhere it cannot see, such as a Kafka Streams config setter. Token 0 forgets.
   */
  public void expectOpen(long token) {
    checkOpen();
    if (nExpectOpen(zkvHandle, token) < 0) {
      throw new IllegalStateException("not a zoned Env");
    }
  }

  /**
   * The directory of the open database recorded under {@code token} by {@link #expectOpen}, or null
   * if it has not opened yet or has closed.
   */
  public String openedDir(long token) {
    checkOpen();
    return nOpenedDir(zkvHandle, token);
  }

  /**
   * The files under a path (a database's directory) in the zone file system.
   *
   * @param files names under the path (a file with two names there counts twice)
   * @param bytes their bytes (the files' sizes: live data in zones)
   * @param sstFiles those of SST files ({@code .sst})
   * @param sstBytes their bytes
   */
  public record PathUsage(long files, long bytes, long sstFiles, long sstBytes) {
    static final int FIELDS = 4;
    static final int LAYOUT = 8;
    static final int VERSION = 1;

    /**
     * Reads a path-usage buffer of the typed native boundary (docs/formats/native-boundary.md).
     *
     * @throws IllegalStateException if it is not one of this version
     */
    public static PathUsage read(ByteBuffer buffer) {
      long[] v =
          BoundaryBuffer.wrap(buffer, LAYOUT, VERSION, FIELDS * Long.BYTES).getLongs(0, 0, FIELDS);
      return new PathUsage(v[0], v[1], v[2], v[3]);
    }
  }

  /**
   * A RocksDB event listener that tells this Env's placement call-outs the LSM hints of every SST a
   * database writes (level, job, compaction inputs, key range); add it to the database's options
   * ({@code Options.setListeners}) before opening, call {@link #refreshLsmHints} after, close it
   * after the database. Native: RocksDB's events never call into Java.
   */
  public AbstractEventListener newLsmHintListener() {
    checkOpen();
    return new ZkvLsmListener(zkvHandle);
  }

  /**
   * The largest RocksDB sequence number a completed flush of the database using {@code hints} (a
   * listener from {@link #newLsmHintListener}) persisted; 0 before its first flush. Every write up
   * to it is in an SST (WALTZ's log releases its zones by it).
   *
   * @throws IllegalArgumentException if {@code hints} is not one of zkv's listeners
   */
  public static long flushedSequence(AbstractEventListener hints) {
    if (!(hints instanceof ZkvLsmListener)) {
      throw new IllegalArgumentException("not a listener from ZkvEnv.newLsmHintListener: " + hints);
    }
    return ((ZkvLsmListener) hints).flushedSequence();
  }

  // WALTZ's leased zones (zonefs/lease.c; docs/zone-fs.md, "Leased zones"). Thin: each returns
  // what the file system says, -errno included; zkv-core's WALTZ log says what failed and why.

  /**
   * Leases an empty zone to {@code owner} (nonzero), recorded before it returns: the zone or
   * -errno.
   */
  public int leaseZone(long owner) {
    checkOpen();
    return nLeaseZone(zkvHandle, owner);
  }

  /** Returns (and resets) a zone leased to {@code owner}: 0 or -errno (-ENOENT: not owner's). */
  public int returnLease(long owner, int zone) {
    checkOpen();
    return nReturnLease(zkvHandle, owner, zone);
  }

  /**
   * Returns every zone leased to {@code owner} with one metadata record (after a crash all are
   * leased or none): 0 or -errno.
   */
  public int returnAllLeases(long owner) {
    checkOpen();
    return nReturnAllLeases(zkvHandle, owner);
  }

  /**
   * Returns the given zones, all leased to {@code owner}, with one metadata record: 0 or -errno
   * (-ENOENT if one is not owner's: none returned).
   */
  public int returnLeaseSet(long owner, int[] zones) {
    checkOpen();
    return nReturnLeaseSet(zkvHandle, owner, zones.clone());
  }

  /**
   * Returns with one metadata record every zone leased to {@code owner} that has been written, and
   * every empty one beyond the first {@code keep}, which stay leased: how many empty zones stay
   * leased, or -errno (nothing returned).
   */
  public int returnLeasesKeepEmpty(long owner, int keep) {
    checkOpen();
    return nReturnLeasesKeepEmpty(zkvHandle, owner, keep);
  }

  /** The zones leased to {@code owner}, ascending. */
  public int[] leasedZones(long owner) {
    checkOpen();
    for (int cap = 16; ; cap *= 4) {
      int[] out = new int[cap];
      int n = nLeasedZones(zkvHandle, owner, out);
      if (n < 0) {
        throw new IllegalStateException(
            "cannot list the zones leased to " + owner + ": error " + n);
      }
      if (n <= cap) {
        return java.util.Arrays.copyOf(out, n);
      }
    }
  }

  /**
   * Zone-appends the first {@code len} bytes (whole blocks) of the direct buffer {@code buf} to a
   * zone leased to {@code owner}, with FUA if asked, and waits for it: the byte offset in the zone
   * where they landed, or -errno (a full zone: the device's Zone Is Full or Zone Boundary Error,
   * {@link #isZoneFull}).
   */
  public long leaseAppend(long owner, int zone, ByteBuffer buf, int len, boolean fua) {
    checkOpen();
    return nLeaseAppend(zkvHandle, owner, zone, buf, len, fua);
  }

  /** Whether an append's result says its zone had no room for it. */
  public static boolean isZoneFull(long result) {
    return result == io.zkv.device.ZnsStatus.ZONE_IS_FULL.nativeCode()
        || result == io.zkv.device.ZnsStatus.ZONE_BOUNDARY_ERROR.nativeCode();
  }

  /**
   * Reads {@code len} bytes at {@code offset} of a leased zone into the direct buffer: 0 or -errno.
   */
  public int leaseRead(long owner, int zone, long offset, ByteBuffer buf, int len) {
    checkOpen();
    return nLeaseRead(zkvHandle, owner, zone, offset, buf, len);
  }

  /** A leased zone's written bytes (the device's write pointer), or -errno. */
  public long leaseWritten(long owner, int zone) {
    checkOpen();
    return nLeaseWritten(zkvHandle, owner, zone);
  }

  /**
   * A leased zone's key, the lease's 128-bit secret (docs/formats/zone-fs.md, "Zone leases
   * payload"): two longs, both 0 for a lease a version 7 file system recorded without one; or null
   * if the zone is not {@code owner}'s or cannot be read.
   */
  public long[] leaseKey(long owner, int zone) {
    checkOpen();
    long[] key = new long[2];
    int rc = nLeaseKey(zkvHandle, owner, zone, key);
    return rc == 0 ? key : null;
  }

  /**
   * Gives a zone leased to {@code owner} that nothing was appended to a new key, recorded before it
   * returns: 0 or -errno (-ENOTEMPTY if it has been written).
   */
  public int renewLease(long owner, int zone) {
    checkOpen();
    return nRenewLease(zkvHandle, owner, zone);
  }

  /**
   * Empty zones a lease may still take without collecting garbage (beyond the file system's
   * reserves), or -errno: WALTZ's log asks RocksDB for a flush early, so that it can give its
   * flushed zones back, when this runs low.
   */
  public int leaseRoom() {
    checkOpen();
    return nLeaseRoom(zkvHandle);
  }

  /** Finishes a leased zone (frees its active token; appends in flight then fail as full). */
  public int finishLease(long owner, int zone) {
    checkOpen();
    return nFinishLease(zkvHandle, owner, zone);
  }

  /**
   * Learns the level and key range of every live SST of {@code db} (once after open: the listener
   * keeps them current afterwards); returns how many SSTs this Env knows of now.
   */
  public int refreshLsmHints(RocksDB db) {
    checkOpen();
    int n = nRefreshLsmHints(zkvHandle, db.getNativeHandle());
    if (n < 0) {
      throw new IllegalStateException("not a zoned Env (error " + n + ")");
    }
    return n;
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

  /**
   * Zone file system counters.
   *
   * @param hostBytes file data written for RocksDB
   * @param paddingBytes block padding written when syncing partial blocks
   * @param gcBytes data copied by garbage collection
   * @param metaBytes metadata log bytes
   * @param resets zone resets
   * @param resetsWithoutCopy resets that needed no GC copy
   * @param metaRolls metadata log rolls
   * @param liveBytes bytes of live file data
   * @param usedZoneBytes bytes below the write pointers of data zones
   * @param files files
   * @param dataZones data zones
   * @param emptyZones empty data zones
   * @param fullZones full data zones
   * @param openZones partially written data zones
   * @param ownedZones zones held by a file being written (the open tokens in use)
   * @param policyDecisions zone allocations the placement policy decided since mount
   * @param fallbackAllocations allocations the file system decided itself since mount, overriding
   *     the policy: it found no zone (NeedGc, NoSpace) while a zone had room, or asked for an empty
   *     zone the reserves keep
   * @param zoneSteals zones the file system took from an idle writer since mount, overriding the
   *     policy's wait for a token that only idle writers held
   * @param policyDecisionsTotal {@code policyDecisions} since the file system was formatted, as the
   *     metadata log counts them (earlier mounts' counts are recorded at every log roll and clean
   *     unmount; a crash loses those since)
   * @param fallbackAllocationsTotal {@code fallbackAllocations} since format, likewise
   * @param zoneStealsTotal {@code zoneSteals} since format, likewise
   * @param deviceErrors failures the device returned to any of its users since it was opened
   *     (reads, writes, appends, flushes, zone management, reports; counted natively)
   * @param reserveRefusals zones refused to a writer since mount because its tier of the space
   *     reserve was reached: the NoSpace answers that keep room for flushes, manual compactions,
   *     metadata and GC, so that a full device can be recovered by deleting data (docs/zone-fs.md,
   *     "Reserves")
   * @param staleDecisions placement and victim decisions since mount made on a view of the zones
   *     that changed before they could be carried out (another writer took the zone meanwhile), so
   *     the policy was asked again: policies are called without the file system's lock
   *     (docs/zone-fs.md, "Locks and decisions")
   * @param overrides every override of a policy since mount, by reason (every reason present)
   * @param overridesTotal {@code overrides} since format, as the metadata log counts them (like
   *     {@code policyDecisionsTotal})
   * @param zwalIdleReaps ZWAL: times a writer waiting for a zone ended an idle WAL's appends in
   *     flight for it, so that the WAL's zone could be given up (docs/wal.md), since mount
   * @param walZoneFinishes WAL zones finished when their WAL gave them up partly written (ZWAL: no
   *     other file continues a WAL's zone; either mode: a WAL that moved to a reserved zone), since
   *     mount
   * @param mountChunkScanNanos this mount's scan for WAL chunks written after their files' last
   *     records: wall time
   * @param mountChunks chunks that scan decoded
   * @param mountChunkBytes bytes it added to WAL files
   * @param mountChunkReads device reads it made (it reads ahead up to 1 MiB at a time)
   * @param gcRuns garbage collection runs since mount that emptied a zone: a writer's collection
   *     when it found no room, a {@link #reclaim} call, or a spell of background rounds collecting
   *     one after another (CAZA's "zone cleaning" invocations)
   * @param gcZones zones garbage collection emptied since mount ({@code resetsWithoutCopy} counts
   *     every reset that copied nothing, GC's and the deletes')
   * @param zoneFinishes zones the file system finished since mount: a placement policy's finishes,
   *     WAL zones given up, metadata log zones left behind
   * @param gcTotals GC's counters since format, as of the metadata log's last policy counts record
   *     (a roll or a clean unmount) plus this mount's: runs, zones emptied, bytes copied, resets,
   *     resets without copy, finishes ({@link GcTotals})
   * @param walZoneSwitches zones WAL files took from the WAL reserve since mount: under the lock,
   *     no policy call ({@code WalOptions.reservedZones}, docs/wal.md "Reserved WAL zones")
   * @param walZoneWaits zones WAL files took any other way since mount: the policy's or the safety
   *     rule's answer on the put path (counted with no reserve too, the baseline)
   * @param walZoneWaitMaxNanos the longest of those takes, from the writer's entry into the
   *     allocation to its zone (lock waits, policy calls and GC included), since mount
   * @param walReserveReturns reserved zones given back to writers that found no other zone
   * @param walReserveDeclined fills of the reserve that found no zone (the policy kept none, or the
   *     reserves or the active limit left none)
   * @param walReservedZones zones kept for WAL files now
   * @param leaseCollections collections a zone lease (WALTZ's log) ran itself since mount, because
   *     no empty zone was free for it
   * @param gcRoundsForRoom background GC rounds since mount that collected for the leases' room
   *     although the GC trigger did not ask (it counts room in partly written zones as free, which
   *     a lease cannot use)
   * @param leaseWaits 10 ms waits of zone leases since mount for a writer to release an active
   *     token (room there was, a token not)
   */
  public record ZoneStats(
      long hostBytes,
      long paddingBytes,
      long gcBytes,
      long metaBytes,
      long resets,
      long resetsWithoutCopy,
      long metaRolls,
      long liveBytes,
      long usedZoneBytes,
      int files,
      int dataZones,
      int emptyZones,
      int fullZones,
      int openZones,
      int ownedZones,
      long policyDecisions,
      long fallbackAllocations,
      long zoneSteals,
      long policyDecisionsTotal,
      long fallbackAllocationsTotal,
      long zoneStealsTotal,
      long deviceErrors,
      long reserveRefusals,
      long staleDecisions,
      java.util.Map<PolicyOverride, Long> overrides,
      java.util.Map<PolicyOverride, Long> overridesTotal,
      long zwalIdleReaps,
      long walZoneFinishes,
      long mountChunkScanNanos,
      long mountChunks,
      long mountChunkBytes,
      long mountChunkReads,
      long gcRuns,
      long gcZones,
      long zoneFinishes,
      GcTotals gcTotals,
      long walZoneSwitches,
      long walZoneWaits,
      long walZoneWaitMaxNanos,
      long walReserveReturns,
      long walReserveDeclined,
      int walReservedZones,
      long leaseCollections,
      long gcRoundsForRoom,
      long leaseWaits) {
    /** Counters before the overrides (layout 2: one record of 64-bit fields). */
    static final int NAMED_FIELDS = 24;

    /**
     * Counters after the overrides: ZWAL's and the mount's WAL counters, then GC's, then the WAL
     * reserve's.
     */
    static final int WAL_FIELDS = 6,
        GC_FIELDS = 3 + GcTotals.FIELDS,
        WAL_RESERVE_FIELDS = 6,
        LEASE_FIELDS = 3;

    /**
     * How many counters cross the native boundary: the named ones, the overrides twice, the rest.
     */
    static final int FIELDS =
        NAMED_FIELDS
            + 2 * PolicyOverride.values().length
            + WAL_FIELDS
            + GC_FIELDS
            + WAL_RESERVE_FIELDS
            + LEASE_FIELDS;

    static final int LAYOUT = 2;
    static final int VERSION = 10;

    /** A buffer this large holds the crossing: header, section table and the record. */
    public static final int BUFFER_BYTES = 64 + FIELDS * Long.BYTES;

    public ZoneStats {
      overrides = everyReason(overrides);
      overridesTotal = everyReason(overridesTotal);
    }

    private static java.util.Map<PolicyOverride, Long> everyReason(
        java.util.Map<PolicyOverride, Long> counts) {
      java.util.EnumMap<PolicyOverride, Long> all = new java.util.EnumMap<>(PolicyOverride.class);
      for (PolicyOverride reason : PolicyOverride.values()) {
        all.put(reason, counts.getOrDefault(reason, 0L));
      }
      return java.util.Collections.unmodifiableMap(all);
    }

    private static java.util.Map<PolicyOverride, Long> reasons(long[] v, int from) {
      java.util.EnumMap<PolicyOverride, Long> counts =
          new java.util.EnumMap<>(PolicyOverride.class);
      for (PolicyOverride reason : PolicyOverride.values()) {
        counts.put(reason, v[from + reason.ordinal()]);
      }
      return counts;
    }

    /**
     * Reads a zone-stats buffer of the typed native boundary (docs/formats/native-boundary.md).
     *
     * @throws IllegalStateException if it is not one of this version
     */
    public static ZoneStats read(ByteBuffer buffer) {
      long[] v =
          BoundaryBuffer.wrap(buffer, LAYOUT, VERSION, FIELDS * Long.BYTES).getLongs(0, 0, FIELDS);
      int reasons = PolicyOverride.values().length;
      int walReserve = NAMED_FIELDS + 2 * reasons + WAL_FIELDS + GC_FIELDS;
      return new ZoneStats(
          v[0],
          v[1],
          v[2],
          v[3],
          v[4],
          v[5],
          v[6],
          v[7],
          v[8],
          (int) v[9],
          (int) v[10],
          (int) v[11],
          (int) v[12],
          (int) v[13],
          (int) v[14],
          v[15],
          v[16],
          v[17],
          v[18],
          v[19],
          v[20],
          v[21],
          v[22],
          v[23],
          reasons(v, NAMED_FIELDS),
          reasons(v, NAMED_FIELDS + reasons),
          v[NAMED_FIELDS + 2 * reasons],
          v[NAMED_FIELDS + 2 * reasons + 1],
          v[NAMED_FIELDS + 2 * reasons + 2],
          v[NAMED_FIELDS + 2 * reasons + 3],
          v[NAMED_FIELDS + 2 * reasons + 4],
          v[NAMED_FIELDS + 2 * reasons + 5],
          v[NAMED_FIELDS + 2 * reasons + 6],
          v[NAMED_FIELDS + 2 * reasons + 7],
          v[NAMED_FIELDS + 2 * reasons + 8],
          GcTotals.of(v, NAMED_FIELDS + 2 * reasons + 9),
          v[walReserve],
          v[walReserve + 1],
          v[walReserve + 2],
          v[walReserve + 3],
          v[walReserve + 4],
          (int) v[walReserve + 5],
          v[walReserve + WAL_RESERVE_FIELDS],
          v[walReserve + WAL_RESERVE_FIELDS + 1],
          v[walReserve + WAL_RESERVE_FIELDS + 2]);
    }

    /** Every time the file system overrode a policy since format (the log's count). */
    public long policyOverridesTotal() {
      long n = zoneStealsTotal;
      for (long count : overridesTotal.values()) {
        n += count;
      }
      return n;
    }

    /**
     * Every time the file system overrode a policy since mount: the overrides by reason (placement,
     * victims, trigger) and the zones taken from idle writers.
     */
    public long policyOverrides() {
      long n = zoneSteals;
      for (long count : overrides.values()) {
        n += count;
      }
      return n;
    }

    /** Space amplification: zone space in use over live data (1.0 = none). */
    public double spaceAmplification() {
      return liveBytes == 0 ? 1.0 : (double) usedZoneBytes / liveBytes;
    }
  }

  private void checkOpen() {
    if (!isOwningHandle()) {
      throw new IllegalStateException("ZkvEnv is closed");
    }
  }

  /**
   * The directories of the databases open on this Env's file system now (those holding their {@code
   * LOCK}), whoever opened them: {@code ZkvDb}s and RocksDB instances opened with this Env.
   */
  public java.util.List<String> openDatabases() {
    checkOpen();
    String all = nOpenDatabases(zkvHandle);
    return all.isEmpty() ? java.util.List.of() : java.util.List.of(all.split("\n"));
  }

  /**
   * Frees the Env and unmounts its file system. Idempotent.
   *
   * @throws IllegalStateException if a database is still open on it (the message names them); the
   *     Env stays open, so that the database, which uses it, goes on working
   */
  @Override
  public void close() {
    if (isOwningHandle()) {
      java.util.List<String> open = openDatabases();
      if (!open.isEmpty()) {
        throw new IllegalStateException(
            "cannot close the zoned Env: database(s) "
                + String.join(", ", open)
                + " still open on it; close them first");
      }
    }
    super.close();
  }

  @Override
  protected void disposeInternal(long envPointer) {
    ZkvEnvExitGuard.forget(this);
    int rc;
    synchronized (callouts) {
      disposed = true;
      rc = nDispose(zkvHandle);
    }
    // rc < 0 (-EBUSY): a database was opened after close() looked; the Env and the device lease
    // stay (RocksDB keeps using them) rather than being freed under it.
    if (rc == 0 && lease != null) {
      lease.close();
    }
  }

  private static native long nNewZoned(long device, boolean format, boolean readOnly);

  private static native String nLastError();

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

  private static native void nDisableCallouts(long handle);

  private static native void nJvmExiting();

  private static native int nPathUsage(long handle, String prefix, ByteBuffer out);

  private static native int nExpectOpen(long handle, long token);

  private static native String nOpenedDir(long handle, long token);

  private static native int nSetGcTrigger(long handle, io.zkv.fs.GcRoundPlanner trigger);

  private static native int nStartGc(long handle);

  private static native int nZoneStats(long handle, ByteBuffer out);

  private static native byte[] nZoneView(long handle);

  private static native int nRefreshLsmHints(long handle, long db);

  private static native int[] nBoundaryLayout(int layout);

  private static native long nEnvPointer(long handle);

  private static native int nDispose(long handle);

  private static native String nOpenDatabases(long handle);
}
