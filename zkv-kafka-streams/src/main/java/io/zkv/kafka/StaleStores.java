package io.zkv.kafka;

import java.io.File;
import java.util.List;
import org.apache.kafka.streams.errors.StreamsException;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Wipe detection. Streams wipes a store by deleting its host directory, so a store path whose zone
 * files exist while its host directory does not is stale, and is destroyed (RocksDB's {@code
 * DestroyDB} through the zone Env, which frees its zones) before any store opens.
 *
 * <p>The order of the checks matters: Streams creates a store's host directory before RocksDB
 * writes its first file and deletes it only after closing the database, so zone files seen before a
 * missing host directory (host, zone, host again) never belong to an open store. Callers hold the
 * device's lock, so no other store of the process passes its own check meanwhile.
 */
final class StaleStores {
  private StaleStores() {}

  /** Destroys the zone files of every path in {@code paths} whose host directory is gone. */
  static void wipe(Env zoneEnv, String uri, List<String> paths) {
    try (Options probe = new Options().setEnv(zoneEnv)) {
      for (String p : paths) {
        if (hostDirExists(p) || !holdsDatabase(probe, p) || hostDirExists(p)) {
          continue;
        }
        try {
          RocksDB.destroyDB(p, probe);
        } catch (RocksDBException e) {
          throw new StreamsException(
              "cannot wipe store "
                  + p
                  + " on "
                  + uri
                  + " (its host directory was deleted, so Kafka Streams will restore it from the"
                  + " changelog): "
                  + e.getMessage(),
              e);
        }
      }
    }
  }

  static boolean hostDirExists(String path) {
    return new File(path).isDirectory();
  }

  /**
   * Refuses a host store directory written by RocksDB without zkv: its data is not on the device.
   */
  static void refuseHostDatabase(String path) {
    if (new File(path, "CURRENT").exists()) {
      throw new StreamsException(
          "store directory "
              + path
              + " holds a RocksDB database on the host file system, written without zkv; its data"
              + " is not on "
              + ZkvStreamsConfig.DEVICE
              + ". Delete the application's local state first (KafkaStreams#cleanUp() before"
              + " start, or delete "
              + path
              + ") so that Kafka Streams restores the store onto zkv from its changelog");
    }
  }

  private static boolean holdsDatabase(Options probe, String path) {
    try {
      return !RocksDB.listColumnFamilies(probe, path).isEmpty();
    } catch (RocksDBException e) {
      return false; // RocksJava reports a missing database as an empty list; older ones throw
    }
  }
}
