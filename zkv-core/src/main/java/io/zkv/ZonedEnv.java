package io.zkv;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.DeviceInUseException;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.Zone;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.device.plm.WindowSchedulerProvider;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.rocksdb.ZkvEnv;

/**
 * zkv's zone file system mounted on a zoned device, as a RocksDB {@link org.rocksdb.Env}.
 *
 * <p>One {@code ZonedEnv} per device; many databases (paths) share it, as Kafka Streams' stores do.
 * {@link ZkvDb} registers itself while open; RocksJava users hand {@link #rocksEnv()} to {@code
 * Options.setEnv(...)} and register their databases with {@link #attach} so that the env is not
 * closed under them:
 *
 * <pre>{@code
 * try (ZonedEnv zoned = ZonedEnv.open("emu:/data/dev.zkvemu", ZonedEnv.Mode.FORMAT_IF_UNFORMATTED);
 *     ZonedEnv.Attachment a = zoned.attach("/stores/orders");
 *     Options o = new Options().setCreateIfMissing(true).setEnv(zoned.rocksEnv());
 *     RocksDB db = RocksDB.open(o, "/stores/orders")) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Database paths are names in the zone file system's own namespace (nothing is created on the
 * host); they are absolute, like {@code /stores/orders}.
 *
 * <p>Closing order: databases first, then the env, then the device. {@link #close()} refuses, with
 * an {@link IllegalStateException} naming them, while databases are attached. Thread-safe.
 */
public final class ZonedEnv implements AutoCloseable {
  /** What to do with the device's contents when opening. */
  public enum Mode {
    /** Create a new, empty file system: erases every database on the device. */
    FORMAT,
    /** Mount the existing file system; fails if the device holds none. */
    MOUNT,
    /**
     * Mount the existing file system, or format the device if it holds none. "Holds none" means the
     * mount failed with the zone file system's "not formatted" status ({@link
     * io.zkv.fs.NotFormattedException}, {@code -ENODATA}); a damaged file system ({@link
     * ZkvCorruptionException}) or any other mount failure is reported, never formatted over.
     */
    FORMAT_IF_UNFORMATTED
  }

  private static final Map<String, ZonedEnv> SHARED = new HashMap<>();

  private final ZonedDevice device;
  private final ZonedEnvOptions options;
  private final boolean ownsDevice;
  private final ZkvEnv env;
  private final boolean formatted;
  private final boolean shared;
  private final List<Attachment> attachments = new ArrayList<>();
  private final Map<String, String> uncleanlyClosed = new HashMap<>();
  private boolean closed;
  private WindowSchedulerProvider.Running windowDriver; // plmarray: with a window scheduler

  private ZonedEnv(
      ZonedDevice device,
      ZonedEnvOptions options,
      boolean ownsDevice,
      ZkvEnv env,
      boolean formatted,
      boolean shared) {
    this.device = device;
    this.options = options;
    this.ownsDevice = ownsDevice;
    this.env = env;
    this.formatted = formatted;
    this.shared = shared;
  }

  /**
   * Opens the device at {@code uri} exclusively (e.g. {@code emu:/path/dev.zkvemu?profile=instant})
   * and mounts or formats it as {@code mode} says. The env owns the device and closes it.
   *
   * @throws ZkvException if the device cannot be opened (missing, in use, not a zoned device) or
   *     the file system cannot be mounted ({@link ZkvCorruptionException} if it is damaged)
   */
  public static ZonedEnv open(String uri, Mode mode) {
    return open(uri, mode, ZonedEnvOptions.defaults(), false);
  }

  /**
   * Like {@link #open(String, Mode)}, with the placement and garbage collection settings of {@code
   * options}.
   */
  public static ZonedEnv open(String uri, Mode mode, ZonedEnvOptions options) {
    return open(uri, mode, options, false);
  }

  /**
   * Creates an emulated zoned device in a new file, formats it with the zone file system and opens
   * it: from nothing to a mounted env in one call. The env owns the device; the file stays after
   * {@link #close()} and is reopened with {@link #open(String, Mode)} on {@link
   * EmulatedDevice#uri(Path, String, String...)}.
   *
   * <pre>{@code
   * try (ZonedEnv zoned = ZonedEnv.createEmulated(Path.of("/tmp/dev.zkvemu"), "instant",
   *         DeviceGeometry.small());
   *     ZkvDb db = ZkvDb.open(zoned, "/orders")) {
   *   db.put(key, value);
   * }
   * }</pre>
   *
   * @param file the backing file to create; it must not exist
   * @param profile the timing profile, one of {@link EmulatedDevice#PROFILES} ({@code instant}: no
   *     added latency)
   * @param geometry zones, zone size and capacity, open/active limits
   * @throws ZkvException if the file exists or cannot be created, the geometry is unusable, or the
   *     device cannot be opened or formatted; a file this call created is deleted again
   */
  public static ZonedEnv createEmulated(Path file, String profile, DeviceGeometry geometry) {
    return createEmulated(file, profile, geometry, ZonedEnvOptions.defaults());
  }

  /**
   * Like {@link #createEmulated(Path, String, DeviceGeometry)}, with the placement and garbage
   * collection settings of {@code options}.
   */
  public static ZonedEnv createEmulated(
      Path file, String profile, DeviceGeometry geometry, ZonedEnvOptions options) {
    requireEmulatedArguments(file, profile, geometry, options);
    try {
      EmulatedDevice.format(file, geometry);
    } catch (ZonedDeviceException e) {
      throw new ZkvException("cannot create emulated device " + file + ": " + e.getMessage(), e);
    }
    try {
      return open(EmulatedDevice.uri(file, profile), Mode.FORMAT, options, false);
    } catch (RuntimeException e) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * The emulated device in {@code file}: created, formatted and opened on the first call ({@link
   * #createEmulated(Path, String, DeviceGeometry)}, missing parent directories included), mounted
   * on every later one. A program that starts this way can be run again and finds its data.
   *
   * <pre>{@code
   * try (ZonedEnv zoned = ZonedEnv.openOrCreateEmulated(Path.of("/tmp/dev.zkvemu"), "zn540",
   *         DeviceGeometry.small());
   *     ZkvDb db = ZkvDb.open(zoned, "/orders")) { ... }
   * }</pre>
   *
   * <p>An existing file whose device was created but never formatted with the file system (a
   * process that died inside the first call) is formatted; a damaged file system is reported, never
   * formatted over ({@link Mode#FORMAT_IF_UNFORMATTED}). Callers may race: the file appears whole
   * or not at all (it is made in a temporary directory beside it, then linked), one caller creates
   * it, and the others mount it or are told it is in use (zkv opens devices exclusively).
   *
   * @param geometry the geometry to create the device with; an existing device must have exactly
   *     this geometry (a different one is refused, naming both: the file is someone else's device,
   *     or the program changed its geometry and the old file must be deleted)
   * @throws ZkvException if the device cannot be created, opened, formatted or mounted
   * @throws IllegalArgumentException if the existing device's geometry is not {@code geometry}
   */
  public static ZonedEnv openOrCreateEmulated(Path file, String profile, DeviceGeometry geometry) {
    return openOrCreateEmulated(file, profile, geometry, ZonedEnvOptions.defaults());
  }

  /**
   * Like {@link #openOrCreateEmulated(Path, String, DeviceGeometry)}, with the settings of {@code
   * options}.
   */
  public static ZonedEnv openOrCreateEmulated(
      Path file, String profile, DeviceGeometry geometry, ZonedEnvOptions options) {
    requireEmulatedArguments(file, profile, geometry, options);
    boolean created = !Files.exists(file) && publishNewDevice(file, geometry);
    String uri = EmulatedDevice.uri(file, profile);
    ZonedDevice device = openDevice(uri);
    if (!device.geometry().equals(geometry)) { // refused before anything is written to it
      DeviceGeometry found = device.geometry();
      device.close();
      throw new IllegalArgumentException(
          "the emulated device "
              + file
              + " has the geometry "
              + found
              + ", not "
              + geometry
              + ": delete the file to create it anew, or pass its geometry");
    }
    try {
      return mountOwned(device, Mode.FORMAT_IF_UNFORMATTED, options, false);
    } catch (RuntimeException e) {
      if (created) { // ours, and unusable (we held it exclusively until mountOwned closed it)
        try {
          Files.deleteIfExists(file);
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /**
   * Creates the emulated device {@code file} whole or not at all, so that a concurrent caller sees
   * no file or a complete device: formatted in a temporary directory beside it, then linked to its
   * name, which fails if the name exists. Returns false if another caller's file got there first.
   */
  private static boolean publishNewDevice(Path file, DeviceGeometry geometry) {
    Path parent = file.toAbsolutePath().getParent();
    Path tmpDir = null;
    Path tmp = null;
    try {
      Files.createDirectories(parent);
      // A directory of its own per call: callers racing in one process share pid and clock.
      tmpDir = Files.createTempDirectory(parent, "." + file.getFileName() + ".creating-");
      tmp = tmpDir.resolve(file.getFileName());
      EmulatedDevice.format(tmp, geometry);
      try {
        Files.createLink(file, tmp);
      } catch (UnsupportedOperationException | IOException noLinks) {
        if (noLinks instanceof FileAlreadyExistsException) {
          return false;
        }
        Files.move(tmp, file); // no hard links here: refuses an existing name, not atomically
      }
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) { // ZonedDeviceException among them
      throw new ZkvException("cannot create emulated device " + file + ": " + e.getMessage(), e);
    } finally {
      try {
        if (tmp != null) {
          Files.deleteIfExists(tmp);
        }
        if (tmpDir != null) {
          Files.deleteIfExists(tmpDir);
        }
      } catch (IOException ignored) {
        // a leftover temporary directory names itself; the device is not affected
      }
    }
  }

  private static void requireEmulatedArguments(
      Path file, String profile, DeviceGeometry geometry, ZonedEnvOptions options) {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(profile, "profile");
    Objects.requireNonNull(geometry, "geometry");
    Objects.requireNonNull(options, "options");
  }

  /**
   * Mounts or formats an already open device. The env does not own the device: close the env before
   * the device (the device refuses to close while the env is open).
   *
   * @throws ZkvException if the file system cannot be mounted or formatted
   */
  public static ZonedEnv open(ZonedDevice device, Mode mode) {
    return open(device, mode, ZonedEnvOptions.defaults());
  }

  /**
   * Like {@link #open(ZonedDevice, Mode)}, with the placement and garbage collection settings of
   * {@code options}.
   */
  public static ZonedEnv open(ZonedDevice device, Mode mode, ZonedEnvOptions options) {
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(options, "options");
    if (device.isClosed()) {
      throw new ZkvClosedException("zoned device " + device.uri() + " is closed");
    }
    refuseUnsupportedScheduler(device, options);
    ZonedEnv zoned = mount(device, options, false, mode, false);
    zoned.startWindowDriver();
    return zoned;
  }

  /**
   * The process-wide env of the device at {@code uri}: opened with {@code mode} on the first call,
   * the same instance afterwards until it is closed (for Kafka Streams' {@code
   * RocksDBConfigSetter}, which configures each store separately). Instances are keyed by the exact
   * URI string.
   *
   * @throws IllegalStateException if the env is already open and {@code mode} is {@link
   *     Mode#FORMAT}, which would erase its users' databases
   * @throws ZkvException if the device cannot be opened or mounted
   */
  public static ZonedEnv shared(String uri, Mode mode) {
    return shared(uri, mode, ZonedEnvOptions.defaults());
  }

  /**
   * Like {@link #shared(String, Mode)}; {@code options} apply when this call opens the env.
   *
   * @throws IllegalStateException if the env is already open with other options, or {@code mode} is
   *     {@link Mode#FORMAT} (see {@link #shared(String, Mode)})
   */
  public static ZonedEnv shared(String uri, Mode mode, ZonedEnvOptions options) {
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(mode, "mode");
    synchronized (SHARED) {
      ZonedEnv existing = SHARED.get(uri);
      if (existing != null && !existing.isClosed()) {
        if (mode == Mode.FORMAT) {
          throw new IllegalStateException(
              "the shared env of "
                  + uri
                  + " is already mounted in this process; Mode.FORMAT would erase the databases"
                  + " of its users "
                  + existing.openDatabases());
        }
        if (!existing.options.equals(options)) {
          throw new IllegalStateException(
              "the shared env of "
                  + uri
                  + " is already mounted with "
                  + existing.options
                  + ", not "
                  + options);
        }
        return existing;
      }
      ZonedEnv e = open(uri, mode, options, true);
      SHARED.put(uri, e);
      return e;
    }
  }

  private static ZonedEnv open(String uri, Mode mode, ZonedEnvOptions options, boolean shared) {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(options, "options");
    return mountOwned(openDevice(uri), mode, options, shared);
  }

  /** Opens the device at {@code uri} exclusively, failures as {@link ZkvException}s. */
  private static ZonedDevice openDevice(String uri) {
    try {
      return ZonedDevice.open(uri);
    } catch (DeviceInUseException e) {
      throw new ZkvException(
          "cannot open zoned device "
              + uri
              + ": it is in use (zkv opens devices exclusively; in one process, share one"
              + " ZonedEnv, e.g. ZonedEnv.shared): "
              + e.getMessage(),
          e);
    } catch (ZonedDeviceException e) {
      throw new ZkvException("cannot open zoned device " + uri + ": " + e.getMessage(), e);
    }
  }

  /** Mounts {@code device} with {@code mode}, the env owning it; closes it if that fails. */
  private static ZonedEnv mountOwned(
      ZonedDevice device, Mode mode, ZonedEnvOptions options, boolean shared) {
    try {
      refuseUnsupportedScheduler(device, options);
      ZonedEnv zoned = mount(device, options, true, mode, shared);
      zoned.startWindowDriver();
      return zoned;
    } catch (RuntimeException e) {
      device.close();
      throw e;
    }
  }

  /**
   * Refuses the options' window scheduler, before anything is mounted or formatted, on a device
   * that cannot run it, saying why ({@link WindowSchedulerProvider#checkDevice}; the schedulers are
   * zkv-plm's, found on the class path).
   */
  private static void refuseUnsupportedScheduler(ZonedDevice device, ZonedEnvOptions options) {
    String name = options.windowScheduler();
    if (name == null) {
      return;
    }
    try {
      WindowSchedulerProvider.forName(name).checkDevice(device, name);
    } catch (ZonedDeviceException | IllegalArgumentException e) {
      throw new ZkvException(
          "cannot start window scheduler " + name + " on " + device.uri() + ": " + e.getMessage(),
          e);
    }
  }

  /** Starts the options' window scheduler on a plmarray: device (refused on any other). */
  private void startWindowDriver() {
    String name = options.windowScheduler();
    if (name == null) {
      return;
    }
    try {
      windowDriver = WindowSchedulerProvider.forName(name).start(device, name).orElse(null);
    } catch (ZonedDeviceException | IllegalArgumentException e) {
      env.close();
      throw new ZkvException(
          "cannot start window scheduler " + name + " on " + device.uri() + ": " + e.getMessage(),
          e);
    } catch (RuntimeException e) {
      env.close();
      throw e;
    }
  }

  private static ZonedEnv mount(
      ZonedDevice device, ZonedEnvOptions options, boolean owns, Mode mode, boolean shared) {
    if (mode == Mode.FORMAT) {
      return new ZonedEnv(device, options, owns, onZones(device, options, true), true, shared);
    }
    try {
      return new ZonedEnv(device, options, owns, placed(device, options, false), false, shared);
    } catch (ZonedDeviceException e) {
      if (isNotFormatted(e)) {
        if (mode == Mode.FORMAT_IF_UNFORMATTED) {
          return new ZonedEnv(device, options, owns, onZones(device, options, true), true, shared);
        }
        throw new ZkvException(
            "cannot mount "
                + device.uri()
                + ": the device holds no zkv file system ("
                + e.getMessage()
                + "); open it with Mode.FORMAT or Mode.FORMAT_IF_UNFORMATTED to create one",
            e);
      }
      throw mountFailure(device, e);
    }
  }

  private static ZkvEnv onZones(ZonedDevice device, ZonedEnvOptions options, boolean format) {
    try {
      return placed(device, options, format);
    } catch (ZonedDeviceException e) {
      throw mountFailure(device, e);
    }
  }

  /**
   * Mounts with the options' Java policies deciding every zone allocation and every GC victim, and
   * their background GC level.
   */
  private static ZkvEnv placed(ZonedDevice device, ZonedEnvOptions options, boolean format)
      throws ZonedDeviceException {
    return ZkvEnv.onZones(device, options.toZoneFsSettings(format));
  }

  private static boolean isNotFormatted(ZonedDeviceException e) {
    return e instanceof io.zkv.fs.NotFormattedException;
  }

  /** EUCLEAN (117, "structure needs cleaning") and EPROTO (71): a damaged file system. */
  private static ZkvException mountFailure(ZonedDevice device, ZonedDeviceException e) {
    long code = -e.code();
    if (e instanceof DeviceInUseException) { // the message names the device and the first mount
      return new ZkvException("cannot mount: " + e.getMessage(), e);
    }
    String message = "cannot mount zkv file system on " + device.uri() + ": " + e.getMessage();
    if (code == 117 || code == 71) {
      return new ZkvCorruptionException(message, e);
    }
    return new ZkvException(message, e);
  }

  /**
   * The RocksDB Env for {@code Options.setEnv(...)}. Stays valid until this env is closed; register
   * databases that use it with {@link #attach}.
   *
   * @throws ZkvClosedException if this env is closed
   */
  public synchronized ZkvEnv rocksEnv() {
    checkOpen();
    return env;
  }

  /**
   * The zone file system the databases' files live in: its counters, views and settings, without
   * RocksDB's Env ({@link #rocksEnv}). Stays valid until this env is closed.
   *
   * @throws ZkvClosedException if this env is closed
   */
  public synchronized io.zkv.fs.ZoneFs zoneFs() {
    checkOpen();
    return env.zoneFs();
  }

  /** The device URI. */
  public String uri() {
    return device.uri();
  }

  public DeviceGeometry geometry() {
    return device.geometry();
  }

  /** The placement and garbage collection settings this env was opened with. */
  public ZonedEnvOptions options() {
    return options;
  }

  /** Whether opening this env formatted the device (a new, empty file system). */
  public boolean formatted() {
    return formatted;
  }

  /** Whether this is a {@link #shared} instance. */
  public boolean isShared() {
    return shared;
  }

  /**
   * Counters of the zone file system: bytes written, GC copies, resets, zones by state.
   *
   * @throws ZkvClosedException if this env is closed
   */
  public synchronized io.zkv.fs.ZoneStats stats() {
    checkOpen();
    return env.zoneFs().stats();
  }

  /**
   * How many zones held each compaction's input SSTs since the file system was mounted (CAZA's Fig.
   * 6(a): the zones one compaction turns into garbage), as the placement policy's call-out saw
   * them.
   */
  public synchronized io.zkv.fs.CompactionZones compactionZones() {
    checkOpen();
    return env.zoneFs().compactionZones();
  }

  /**
   * The zone view placement policies decide on, taken now: every zone with its condition, tag and
   * live bytes, every live file with its level and key range, and which file has how much in which
   * zone. For inspection (e.g. which levels' data the zones hold); it copies the file system's
   * tables under its lock, so poll it sparingly.
   *
   * @throws ZkvClosedException if this env is closed
   */
  public synchronized io.zkv.placement.ZoneTable zoneTable() {
    checkOpen();
    return env.zoneFs().zoneTable();
  }

  /**
   * How well compaction outputs' key-range hints (their compactions' inputs' unions, from their own
   * first keys where readable: what the placement policy gets) stand for the outputs' own ranges,
   * in next-level SSTs overlapped since mount (the overlaps CAZA ranks zones by).
   *
   * @throws ZkvClosedException if this env is closed
   */
  public synchronized io.zkv.fs.HintOverlapCounts hintOverlaps() {
    checkOpen();
    return env.zoneFs().hintOverlaps();
  }

  /**
   * The files of the database (or any directory) at {@code dir} in the zone file system, everything
   * under it included: how many, their bytes, and those of SST files.
   *
   * @throws ZkvClosedException if this env is closed
   */
  public synchronized io.zkv.fs.PathUsage usage(String dir) {
    checkOpen();
    return env.zoneFs().pathUsage(dir.endsWith("/") ? dir : dir + "/");
  }

  /**
   * The device's zone report: every zone's condition, write pointer and capacity, metadata zones
   * included. It reads the device (a zone management receive command on a real device, which can
   * take milliseconds), so poll it sparingly.
   *
   * @throws ZkvClosedException if this env is closed
   * @throws ZkvException if the device fails the report
   */
  public synchronized List<Zone> zoneReport() {
    checkOpen();
    try {
      return device.report();
    } catch (ZonedDeviceException e) {
      throw new ZkvException("zone report of " + uri() + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Registers a database (or any user of {@link #rocksEnv()}) so that this env is not closed under
   * it; close the returned attachment (or call {@link #detach}) after closing the database. Names
   * are for messages and may repeat (Kafka Streams reuses a store name across tasks).
   *
   * @throws ZkvClosedException if this env is closed
   */
  public synchronized Attachment attach(String name) {
    Objects.requireNonNull(name, "name");
    checkOpen();
    Attachment a = new Attachment(name);
    attachments.add(a);
    return a;
  }

  /**
   * Registers {@code path} for a {@link ZkvDb}: refused while it is open already, and (unless
   * {@code destroying}) after an unclean close in this mount.
   */
  synchronized Attachment attachDatabase(String path, boolean destroying) {
    checkOpen();
    String unclean = uncleanlyClosed.get(path);
    if (unclean != null && !destroying) {
      throw new IllegalStateException(
          "database "
              + path
              + " was not closed cleanly in this mount ("
              + unclean
              + "): the zone file system may have lost the tail of its WAL, and reading it in this"
              + " mount is unsafe; close and reopen the ZonedEnv of "
              + uri()
              + " first");
    }
    for (Attachment a : attachments) {
      if (a.name.equals(path)) {
        throw new IllegalStateException(
            "database " + path + " is already open on " + uri() + "; close it first");
      }
    }
    return attach(path);
  }

  /**
   * Records that RocksDB failed to close {@code path}: a file it was writing could not be
   * completed, and the zone file system keeps no consistent view of such a file until it is mounted
   * again (reading it crashed the JVM in zkv-native of 2026-11-22). Cleared by remounting.
   */
  synchronized void markUncleanClose(String path, String why) {
    uncleanlyClosed.put(path, why);
  }

  /** After {@link ZkvDb#destroy}: the path holds nothing unsafe any more. */
  synchronized void forgetUncleanClose(String path) {
    uncleanlyClosed.remove(path);
  }

  /**
   * Ends one attachment named {@code name} (for callbacks that only know the name, like Kafka
   * Streams' {@code RocksDBConfigSetter.close(storeName, options)}).
   *
   * @return false if no attachment has that name
   */
  public synchronized boolean detach(String name) {
    for (Attachment a : attachments) {
      if (a.name.equals(name)) {
        a.close();
        return true;
      }
    }
    return false;
  }

  private synchronized void release(Attachment a) {
    attachments.remove(a);
  }

  /** Names of the attached databases, in attachment order. */
  public synchronized List<String> openDatabases() {
    List<String> names = new ArrayList<>(attachments.size());
    for (Attachment a : attachments) {
      names.add(a.name);
    }
    return names;
  }

  public synchronized boolean isClosed() {
    return closed;
  }

  private void checkOpen() {
    if (closed) {
      throw new ZkvClosedException("ZonedEnv of " + uri() + " is closed");
    }
  }

  /**
   * Unmounts the file system and, if this env opened the device, closes the device. Idempotent. A
   * shared instance leaves the process-wide registry ({@link #shared} opens a new one).
   *
   * @throws IllegalStateException if databases are still attached; the message names them and the
   *     env stays open
   */
  @Override
  public void close() {
    if (shared) {
      synchronized (SHARED) {
        closeInstance();
        SHARED.remove(uri(), this);
      }
    } else {
      closeInstance();
    }
  }

  private synchronized void closeInstance() {
    if (closed) {
      return;
    }
    if (!attachments.isEmpty()) {
      throw new IllegalStateException(
          "cannot close the ZonedEnv of "
              + uri()
              + ": "
              + attachments.size()
              + " database(s) still open: "
              + String.join(", ", openDatabases())
              + "; close those first");
    }
    List<String> raw = env.openDatabases(); // RocksDB instances opened with rocksEnv()
    if (!raw.isEmpty()) {
      throw new IllegalStateException(
          "cannot close the ZonedEnv of "
              + uri()
              + ": database(s) opened with its rocksEnv() still open: "
              + String.join(", ", raw)
              + "; close those first (the env stays open: they use it)");
    }
    closed = true;
    if (windowDriver != null) {
      windowDriver.close();
    }
    env.close();
    if (ownsDevice) {
      device.close();
    }
  }

  @Override
  public String toString() {
    return "ZonedEnv[" + uri() + (isClosed() ? ", closed" : "") + "]";
  }

  /** A database's registration with a {@link ZonedEnv}; closing it ends it. Idempotent. */
  public final class Attachment implements AutoCloseable {
    private final String name;

    private Attachment(String name) {
      this.name = name;
    }

    public String name() {
      return name;
    }

    @Override
    public void close() {
      release(this);
    }
  }
}
