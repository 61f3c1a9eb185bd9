package io.zkv.kafka;

import io.zkv.ZkvOptions;
import io.zkv.nativelib.ZkvNative;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * Puts every persistent state store of a Kafka Streams application on a zoned device through zkv:
 *
 * <pre>{@code
 * props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, ZkvRocksDBConfigSetter.class);
 * props.put("zkv.device", "emu:/var/lib/app/state.zkvemu?profile=zn540");
 * }</pre>
 *
 * <p>The settings ({@code zkv.*}) are in {@link ZkvStreamsConfig}. Streams creates one setter per
 * store (and per window or session segment). All stores on one device share one {@link
 * io.zkv.ZonedEnv} per process: the first store opens it, and it closes when the last store's
 * database has closed (Streams calls {@link #close} before closing the database, so the lease ends
 * later, see {@code StoreWatcher}).
 *
 * <p>Wipes: Streams wipes a store by deleting its host directory; before a store opens, zkv
 * destroys the zone files of every store path of the application whose host directory is gone, so a
 * restore from the changelog never lands on stale data (see {@code docs/kafka-streams.md}).
 *
 * <p>A subclass may tune the options further: override {@link #setConfig}, call {@code super}
 * first, and do not replace the Env.
 */
public class ZkvRocksDBConfigSetter implements RocksDBConfigSetter {
  private StreamsDevice.Lease lease;

  /**
   * Puts the store on the device named by {@value ZkvStreamsConfig#DEVICE}.
   *
   * @throws ConfigException for a missing or bad {@code zkv.*} setting, or a state directory zkv
   *     cannot map to the zone file system
   * @throws org.apache.kafka.streams.errors.StreamsException if the device cannot be opened (in use
   *     by another process, missing, damaged), or RocksJava's release is not one zkv supports
   */
  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    if (lease != null) {
      throw new IllegalStateException("setConfig called twice for store " + storeName);
    }
    ZkvStreamsConfig config = ZkvStreamsConfig.from(configs);
    File appDir = StorePaths.appDir(configs);
    List<String> candidates = StorePaths.candidates(appDir, storeName);
    requireSupportedRocksJava();
    Object registry =
        configs.get(ZkvStreamsConfig.METRICS_REGISTRY) == null
            ? null
            : StreamsMeters.registry(configs);
    StreamsDevice.Lease l = StreamsDevice.acquire(config, storeName, registry);
    try {
      l.forgetExpectedOpen();
      l.prepare(candidates);
      OptionsEnv.set(options, l.rocksEnv());
      // The store's SSTs reach zone placement with their level, job and key range (zone-fs.md).
      AbstractEventListener hints = l.rocksEnv().newLsmHintListener();
      l.closeOnRelease(hints);
      List<AbstractEventListener> listeners = new ArrayList<>(options.listeners());
      listeners.add(hints);
      options.setListeners(listeners);
      // RocksDB starts a new info LOG at every open and keeps 1,000 old ones by default: on zones
      // each is a file in the zone file system's index; keep as few as zkv's own databases do.
      options.setKeepLogFileNum(ZkvOptions.INFO_LOG_FILES_KEPT);
      options.setMaxLogFileSize(ZkvOptions.INFO_LOG_FILE_MAX_BYTES);
      StoreWatcher.releaseWhenUnreachable(options, l);
      l.meterWhenOpened(appDir, options);
    } catch (RuntimeException e) {
      l.release();
      throw e;
    }
    lease = l;
  }

  /** The database is still open here: the device lease ends once it has closed. */
  @Override
  public void close(String storeName, Options options) {
    if (lease != null) {
      StoreWatcher.releaseWhenClosed(options, lease);
      lease = null;
    }
  }

  /**
   * Whether a store of this process holds the device at {@code uri} (exactly as configured in
   * {@value ZkvStreamsConfig#DEVICE}, with any profile added): the device is closed once this turns
   * false, a moment after the last store has closed.
   */
  public static boolean isDeviceOpen(String uri) {
    return StreamsDevice.isOpen(uri);
  }

  /**
   * Refuses a RocksJava release zkv has no native build for, naming the one found and those
   * supported.
   */
  static void requireSupportedRocksJava() {
    RocksDB.loadLibrary();
    requireSupported(RocksDB.rocksdbVersion().toString());
  }

  static void requireSupported(String found) {
    if (!ZkvNative.SUPPORTED_ROCKSDB.contains(found)) {
      throw new ConfigException(
          StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
          ZkvRocksDBConfigSetter.class.getName(),
          "zkv supports RocksJava (org.rocksdb:rocksdbjni) "
              + String.join(" and ", ZkvNative.SUPPORTED_ROCKSDB)
              + ", but this Kafka Streams application runs RocksDB "
              + found
              + ". Use Kafka Streams 4.0.x-4.1.x (rocksdbjni 9.7.3) or 4.2.x-4.3.x (10.1.3), or"
              + " declare one of the supported rocksdbjni versions in your build; otherwise remove"
              + " the zkv config setter to keep the stores on the host file system");
    }
  }
}
