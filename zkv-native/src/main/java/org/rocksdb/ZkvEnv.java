package org.rocksdb;

import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.fs.CompactionZones;
import io.zkv.fs.HintOverlapCounts;
import io.zkv.fs.PathUsage;
import io.zkv.fs.ZoneAllocator;
import io.zkv.fs.ZoneFs;
import io.zkv.fs.ZoneFsSettings;
import io.zkv.fs.ZoneStats;
import io.zkv.placement.GcTrigger;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.VictimPolicy;
import io.zkv.placement.ZoneTable;
import java.util.List;

/**
 * A RocksDB {@link Env} over zkv's zone file system ({@link #zoneFs()}: settings, policies,
 * counters, leases), for {@code Options.setEnv(...)}; it adds what RocksDB needs: the Env, the LSM
 * hint listener, which databases are open. In package {@code org.rocksdb} because {@code Env(long)}
 * is package-private in RocksJava 9.7.3 and 10.1.3 (and {@code RocksEnv.close()} is broken in
 * both). RocksJava sees the raw {@code rocksdb::Env*}; close every database and {@code Options}
 * using it first.
 */
public final class ZkvEnv extends Env {
  private final ZoneFs fs;
  private final boolean ownsFs; // closes the file system when it closes
  private final long envHandle;

  private ZkvEnv(ZoneFs fs, boolean ownsFs, long envHandle) {
    super(nEnvPointer(envHandle));
    this.fs = fs;
    this.ownsFs = ownsFs;
    this.envHandle = envHandle;
  }

  /**
   * An Env over the zone file system {@link ZoneFs#mount} mounts on {@code device} with {@code
   * settings}; closing the Env unmounts it. Several databases (paths) may share it.
   *
   * @throws io.zkv.device.DeviceInUseException if the device is mounted already in this process
   */
  public static ZkvEnv onZones(ZonedDevice device, ZoneFsSettings settings)
      throws ZonedDeviceException {
    return owning(ZoneFs.mount(device, settings));
  }

  /**
   * An Env over a read-only mount of {@code device}'s zone file system, for inspecting databases
   * with {@code RocksDB.openReadOnly}: nothing on the device changes, every write fails (EROFS).
   */
  public static ZkvEnv readOnlyOnZones(ZonedDevice device) throws ZonedDeviceException {
    return owning(ZoneFs.mountReadOnly(device));
  }

  /**
   * An Env over a mounted file system the caller keeps and closes after the Env (it refuses to
   * close before). One Env per file system: its policies read this Env's LSM hints.
   *
   * @throws IllegalStateException if an Env was built over {@code fs} already
   */
  public static ZkvEnv over(ZoneFs fs) {
    return new ZkvEnv(fs, false, newEnv(fs));
  }

  private static ZkvEnv owning(ZoneFs fs) {
    try {
      return new ZkvEnv(fs, true, newEnv(fs));
    } catch (RuntimeException e) {
      fs.close();
      throw e;
    }
  }

  private static long newEnv(ZoneFs fs) {
    long h = fs.bind(ZkvEnv::nNewEnv);
    if (h < 0) {
      throw new IllegalStateException(fs + " has an Env already (error " + h + ")");
    }
    return h;
  }

  /**
   * @deprecated use {@link #onZones(ZonedDevice, ZoneFsSettings)}, {@code ZoneFsSettings.format()}
   */
  @Deprecated
  public static ZkvEnv onZones(ZonedDevice device, boolean format) throws ZonedDeviceException {
    return onZones(device, format ? ZoneFsSettings.format() : ZoneFsSettings.mount());
  }

  /**
   * @deprecated use {@link #onZones(ZonedDevice, ZoneFsSettings)}, the settings' allocator
   */
  @Deprecated
  public static ZkvEnv onZones(ZonedDevice device, boolean format, ZoneAllocator allocator)
      throws ZonedDeviceException {
    return onZones(device, ZoneFsSettings.builder().format(format).allocator(allocator).build());
  }

  /**
   * @deprecated use {@link #onZones(ZonedDevice, ZoneFsSettings)}: placement, victims, trigger
   */
  @Deprecated
  public static ZkvEnv onZones(
      ZonedDevice device,
      boolean format,
      PlacementPolicy placement,
      VictimPolicy victims,
      int gcStartPercent)
      throws ZonedDeviceException {
    GcTrigger trigger = gcStartPercent == 0 ? GcTrigger.off() : GcTrigger.zenFs(gcStartPercent);
    return onZones(
        device,
        ZoneFsSettings.builder()
            .format(format)
            .placement(placement)
            .victims(victims)
            .gcTrigger(trigger)
            .build());
  }

  /** The zone file system this Env stores RocksDB's files in. */
  public ZoneFs zoneFs() {
    return fs;
  }

  /**
   * A RocksDB event listener that tells the file system's placement call-outs the LSM hints of
   * every SST a database writes (level, job, compaction inputs, key range); add it to the
   * database's options ({@code Options.setListeners}) before opening, call {@link #refreshLsmHints}
   * after, close it after the database. Native: RocksDB's events never call into Java.
   */
  public AbstractEventListener newLsmHintListener() {
    checkOpen();
    return new ZkvLsmListener(envHandle);
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

  /**
   * Learns the level and key range of every live SST of {@code db} (once after open: the listener
   * keeps them current afterwards); returns how many SSTs this Env knows of now.
   */
  public int refreshLsmHints(RocksDB db) {
    checkOpen();
    int n = nRefreshLsmHints(envHandle, db.getNativeHandle());
    if (n < 0) {
      throw new IllegalStateException("cannot read the live files of " + db + ": error " + n);
    }
    return n;
  }

  /**
   * Records the next database the calling thread opens on this Env (RocksDB takes the database's
   * lock on the thread that opens it) under {@code token}, until that database closes: {@link
   * #openedDir} then names its directory. For code that runs just before a database is opened
   * somewhere it cannot see, such as a Kafka Streams config setter. Token 0 forgets.
   */
  public void expectOpen(long token) {
    checkOpen();
    nExpectOpen(envHandle, token);
  }

  /**
   * The directory of the open database recorded under {@code token} by {@link #expectOpen}, or null
   * if it has not opened yet or has closed.
   */
  public String openedDir(long token) {
    checkOpen();
    return nOpenedDir(envHandle, token);
  }

  /**
   * The directories of the databases open on this Env's file system now (those holding their {@code
   * LOCK}), whoever opened them: {@code ZkvDb}s and RocksDB instances opened with this Env.
   */
  public List<String> openDatabases() {
    checkOpen();
    String all = nOpenDatabases(envHandle);
    return all.isEmpty() ? List.of() : List.of(all.split("\n"));
  }

  /**
   * @deprecated use {@link ZoneFs#reclaim} on {@link #zoneFs()}
   */
  @Deprecated
  public long reclaim(long bytes) {
    return fs.reclaim(bytes);
  }

  /**
   * @deprecated use {@link ZoneFs#stats} on {@link #zoneFs()}
   */
  @Deprecated
  public ZoneStats zoneStats() {
    return fs.stats();
  }

  /**
   * @deprecated use {@link ZoneFs#zoneTable} on {@link #zoneFs()}
   */
  @Deprecated
  public ZoneTable zoneTable() {
    return fs.zoneTable();
  }

  /**
   * @deprecated use {@link ZoneFs#pathUsage} on {@link #zoneFs()}
   */
  @Deprecated
  public PathUsage pathUsage(String prefix) {
    return fs.pathUsage(prefix);
  }

  /**
   * @deprecated use {@link ZoneFs#compactionZones} on {@link #zoneFs()}
   */
  @Deprecated
  public CompactionZones compactionZones() {
    return fs.compactionZones();
  }

  /**
   * @deprecated use {@link ZoneFs#hintOverlaps} on {@link #zoneFs()}
   */
  @Deprecated
  public HintOverlapCounts hintOverlaps() {
    return fs.hintOverlaps();
  }

  private void checkOpen() {
    if (!isOwningHandle()) {
      throw new IllegalStateException("ZkvEnv is closed");
    }
  }

  /**
   * Frees the Env and, if it mounted its file system ({@link #onZones}), unmounts it. Idempotent.
   *
   * @throws IllegalStateException if a database is still open on it (the message names them); the
   *     Env stays open, so that the database, which uses it, goes on working
   */
  @Override
  public void close() {
    if (isOwningHandle()) {
      List<String> open = openDatabases();
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
    // -EBUSY: a database was opened after close() looked; the Env and the file system stay
    // (RocksDB keeps using them) rather than being freed under it.
    if (nDispose(envHandle) == 0) {
      fs.unbind();
      if (ownsFs) {
        fs.close();
      }
    }
  }

  private static native long nNewEnv(long zoneFs);

  private static native long nEnvPointer(long handle);

  private static native int nDispose(long handle);

  private static native String nOpenDatabases(long handle);

  private static native int nRefreshLsmHints(long handle, long db);

  private static native int nExpectOpen(long handle, long token);

  private static native String nOpenedDir(long handle, long token);
}
