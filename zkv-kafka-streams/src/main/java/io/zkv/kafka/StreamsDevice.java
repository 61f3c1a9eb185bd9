package io.zkv.kafka;

import io.zkv.ZkvException;
import io.zkv.ZonedEnv;
import io.zkv.device.DeviceInUseException;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDeviceException;
import java.io.File;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.errors.StreamsException;
import org.rocksdb.Options;
import org.rocksdb.ZkvEnv;

/**
 * One zoned device as Kafka Streams' stores use it in this process: its {@link ZonedEnv}, the
 * {@link StoreCatalog} of store paths on it, and a count of the stores using it. Opened by the
 * first store, closed when the last store's database has closed ({@link Lease#release}). Before a
 * store opens, {@link Lease#prepare} wipes stale stores ({@link StaleStores}) under the device's
 * lock.
 */
final class StreamsDevice {
  private static final Map<String, StreamsDevice> OPEN = new HashMap<>(); // guarded by itself
  private static final AtomicLong OPEN_TOKENS = new AtomicLong();

  private final String uri;
  private final ZkvStreamsConfig config;
  private final ZonedEnv env;
  private final StoreCatalog catalog;
  private final Map<String, Integer> liveCandidates = new HashMap<>(); // guarded by this
  private final List<StreamsMeters> meters = new ArrayList<>(); // guarded by OPEN
  // Tags of segmented stores by store directory, from segments opened where the scope was known.
  private final Map<String, StoreTags> segmentedTags = new HashMap<>(); // guarded by OPEN
  private int leases; // guarded by OPEN

  private StreamsDevice(ZkvStreamsConfig config, ZonedEnv env, StoreCatalog catalog) {
    this.uri = config.deviceUri();
    this.config = config;
    this.env = env;
    this.catalog = catalog;
  }

  /**
   * A lease on the device of {@code config} for one store, opening the device if no store of this
   * process uses it yet.
   *
   * <p>If {@code registry} (a Micrometer registry, see {@link StreamsMeters}) is not null, the
   * device's meters are bound to it unless they already are; they leave it when the device closes.
   * The store's meters join them once its database has opened ({@link Lease#meterWhenOpened}).
   *
   * @throws ConfigException if the device is open in this process with other settings
   * @throws StreamsException if the device cannot be opened (in use by another process, missing,
   *     damaged), naming {@value ZkvStreamsConfig#DEVICE}
   */
  static Lease acquire(ZkvStreamsConfig config, String storeName, Object registry) {
    synchronized (OPEN) {
      StreamsDevice d = OPEN.get(config.deviceUri());
      if (d == null) {
        d = open(config);
        OPEN.put(config.deviceUri(), d);
      } else if (!d.config.equals(config)) {
        throw new ConfigException(
            "the zkv.* settings of store "
                + storeName
                + " ("
                + config
                + ") differ from those "
                + config.deviceUri()
                + " was opened with in this process ("
                + d.config
                + "): every application sharing a device in one process must use the same zkv.*"
                + " settings");
      }
      StreamsMeters m = null;
      if (registry != null) {
        m = d.meters.stream().filter(x -> x.isFor(registry)).findFirst().orElse(null);
        if (m == null) {
          m = StreamsMeters.bind(registry, d.env);
          d.meters.add(m);
        }
      }
      d.leases++;
      return d.new Lease(storeName, m);
    }
  }

  /** Whether a store of this process has the device at {@code uri} open. */
  static boolean isOpen(String uri) {
    synchronized (OPEN) {
      return OPEN.containsKey(uri);
    }
  }

  private static StreamsDevice open(ZkvStreamsConfig config) {
    String uri = config.deviceUri();
    createEmulatorIfMissing(config);
    ZonedEnv env;
    try {
      env = ZonedEnv.shared(uri, config.mode(), config.envOptions());
    } catch (ZkvException e) {
      throw deviceFailure(uri, e);
    }
    try {
      return new StreamsDevice(config, env, new StoreCatalog(env));
    } catch (RuntimeException e) {
      closeQuietly(env);
      throw new StreamsException(
          "cannot open zkv's store catalog "
              + StoreCatalog.PATH
              + " on "
              + ZkvStreamsConfig.DEVICE
              + "="
              + uri
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static StreamsException deviceFailure(String uri, ZkvException e) {
    if (causedBy(e, DeviceInUseException.class)) {
      return new StreamsException(
          ZkvStreamsConfig.DEVICE
              + "="
              + uri
              + ": the device is in use by another process or user ("
              + e.getMessage()
              + "). zkv opens a device exclusively: give each Kafka Streams instance a device of"
              + " its own (set "
              + ZkvStreamsConfig.DEVICE
              + " to another device), or stop the other user first",
          e);
    }
    return new StreamsException(
        ZkvStreamsConfig.DEVICE
            + "="
            + uri
            + ": cannot open the device for the state stores: "
            + e.getMessage()
            + " (check the URI; for an emulated device that does not exist yet set "
            + ZkvStreamsConfig.EMULATOR_ZONES
            + " to create it)",
        e);
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  private static void createEmulatorIfMissing(ZkvStreamsConfig config) {
    if (config.emulatorGeometry() == null) {
      return;
    }
    String rest = config.deviceUri().substring("emu:".length());
    int q = rest.indexOf('?');
    Path file = Path.of(q < 0 ? rest : rest.substring(0, q));
    if (Files.exists(file)) {
      return;
    }
    try {
      EmulatedDevice.format(file, config.emulatorGeometry());
    } catch (ZonedDeviceException | IllegalArgumentException e) {
      throw new ConfigException(
          ZkvStreamsConfig.EMULATOR_ZONES,
          config.emulatorGeometry().toString(),
          "cannot create the emulated device " + file + ": " + e.getMessage());
    }
  }

  private static void closeQuietly(ZonedEnv env) {
    try {
      env.close();
    } catch (IllegalStateException stillUsed) {
      // another user of the shared env in this process keeps it open
    }
  }

  private void close() {
    for (StreamsMeters m : meters) {
      m.unbind();
    }
    meters.clear();
    try {
      catalog.close();
    } finally {
      closeQuietly(env);
    }
  }

  /** One store's use of the device, from its config setter's setConfig to its database's close. */
  final class Lease {
    private final String storeName;
    private final ZonedEnv.Attachment attachment;
    private final AtomicBoolean released = new AtomicBoolean();
    private final StreamsMeters meters; // of the application's registry, null without one
    private List<String> candidates = List.of(); // guarded by StreamsDevice.this
    private volatile AutoCloseable hintListener; // the store's LSM hint listener, closed on release
    // Set by meterWhenOpened (before the watcher sees the lease), then guarded by OPEN:
    private long openToken;
    private File appDir;
    private String threadId;
    private String stackScope;
    private String meteredStore; // the store directory whose meters count this lease's database
    private String meteredDatabase;
    // The options Streams gave the store: it closes them right after the database, on the thread
    // that closed it, so a closed handle means the database is closed. Weak: an unreachable lease
    // must not keep them from their Cleaner (a failed open, StoreWatcher).
    private volatile WeakReference<Options> options = new WeakReference<>(null);

    private Lease(String storeName, StreamsMeters meters) {
      this.storeName = storeName;
      this.meters = meters;
      this.attachment = env.attach("kafka-streams store " + storeName);
    }

    /** The RocksDB Env for the store's options. */
    ZkvEnv rocksEnv() {
      return env.rocksEnv();
    }

    String deviceUri() {
      return uri;
    }

    /**
     * Before the store opens: wipes every recorded store path and every {@code candidate} of this
     * store whose host directory is gone, and records the candidates (synced) so that their zone
     * files can be found whatever happens to the host directory later.
     */
    void prepare(List<String> storeCandidates) {
      synchronized (StreamsDevice.this) {
        for (String p : storeCandidates) {
          StaleStores.refuseHostDatabase(p);
        }
        List<String> recorded = new ArrayList<>(catalog.paths());
        StaleStores.wipe(env.rocksEnv(), uri, recorded);
        StaleStores.wipe(env.rocksEnv(), uri, storeCandidates);
        List<String> gone = new ArrayList<>();
        for (String p : recorded) {
          if (!StaleStores.hostDirExists(p)
              && !liveCandidates.containsKey(p)
              && !storeCandidates.contains(p)) {
            gone.add(p);
          }
        }
        catalog.removeAll(gone);
        catalog.addAll(storeCandidates);
        candidates = List.copyOf(storeCandidates);
        for (String p : candidates) {
          liveCandidates.merge(p, 1, Integer::sum);
        }
      }
    }

    /** Forgets a database the calling thread was to open (before {@link #prepare} destroys any). */
    void forgetExpectedOpen() {
      if (meters != null) {
        env.rocksEnv().expectOpen(0);
      }
    }

    /**
     * Called on the thread that opens the store, just before Streams opens it: once its database
     * has opened, the store's meters (with Streams' tags, {@link StoreTags}) join the registry. No
     * effect without a registry.
     */
    void meterWhenOpened(File appDir, Options options) {
      if (meters == null) {
        return;
      }
      this.options = new WeakReference<>(options);
      this.appDir = appDir;
      this.threadId = Thread.currentThread().getName();
      this.stackScope = StoreTags.scopeOnStack();
      this.openToken = OPEN_TOKENS.incrementAndGet();
      env.rocksEnv().expectOpen(openToken);
      StoreWatcher.meterWhenOpened(this);
    }

    /**
     * Binds the store's meters if its database has opened; true when nothing is left to do (bound,
     * a store without meters, or the lease ended).
     */
    boolean meterIfOpened() {
      synchronized (OPEN) {
        if (released.get()) {
          return true;
        }
        String dir = env.rocksEnv().openedDir(openToken);
        if (dir == null) {
          return false;
        }
        StoreTags tags = StoreTags.of(appDir, dir, threadId, stackScope);
        String segmented = StoreTags.segmentedStoreDir(dir);
        if (segmented != null && tags != null) {
          segmentedTags.put(segmented, tags);
        } else if (segmented != null) {
          tags = segmentedTags.get(segmented);
        }
        if (tags != null) {
          meters.bindStore(tags, dir, this);
          meteredStore = tags.dir();
          meteredDatabase = dir;
        }
        return true;
      }
    }

    /**
     * Whether the store's database is still open by what the calling thread can see: Streams closes
     * its options right after it, so a store closed by a thread that then reads a meter is already
     * left out, whatever the watcher has yet to do.
     */
    boolean databaseOpen() {
      Options o = options.get();
      return !released.get() && o != null && o.isOwningHandle();
    }

    /** Closes {@code listener} when the lease ends (after the store's database has closed). */
    void closeOnRelease(AutoCloseable listener) {
      hintListener = listener;
    }

    /** Ends the lease once; the last lease closes the device. */
    void release() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      AutoCloseable hints = hintListener;
      if (hints != null) {
        try {
          hints.close();
        } catch (Exception e) {
          throw new IllegalStateException("closing the LSM hint listener of " + storeName, e);
        }
      }
      synchronized (StreamsDevice.this) {
        for (String p : candidates) {
          liveCandidates.computeIfPresent(p, (k, n) -> n == 1 ? null : n - 1);
        }
      }
      attachment.close();
      synchronized (OPEN) {
        if (meteredStore != null) {
          meters.unbindStore(meteredStore, meteredDatabase, this);
        }
        if (--leases == 0) {
          OPEN.remove(uri, StreamsDevice.this);
          close();
        }
      }
    }

    @Override
    public String toString() {
      return "lease of " + uri + " for store " + storeName;
    }
  }
}
