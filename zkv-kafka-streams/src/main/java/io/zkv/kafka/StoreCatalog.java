package io.zkv.kafka;

import io.zkv.ZkvBatch;
import io.zkv.ZkvDb;
import io.zkv.ZkvIterator;
import io.zkv.ZkvOptions;
import io.zkv.ZonedEnv;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The zone paths that may hold a Kafka Streams store on one device: a small database on the device
 * itself ({@value #PATH}), so that it survives whatever happens to the host's state directory. A
 * path is recorded (synced) before its store is opened and forgotten once its store is wiped, so
 * every store's bytes on the device stay reachable for the wipe detection even after a crash. Not
 * thread-safe: {@link StreamsDevice} serializes its use.
 */
final class StoreCatalog implements AutoCloseable {
  /** The catalog's own path in the zone file system (never a store path: not under a state.dir). */
  static final String PATH = "/zkv-kafka-streams/catalog";

  /** The key of the format record; store paths start with '/', so it is never a path. */
  static final String FORMAT_KEY = "#format";

  /** The catalog format this code reads and writes. */
  static final String FORMAT = "1";

  private static final byte[] PRESENT = new byte[0];

  private final ZkvDb db;
  private final Set<String> paths = new LinkedHashSet<>();

  StoreCatalog(ZonedEnv env) {
    this.db =
        ZkvDb.open(
            env,
            PATH,
            ZkvOptions.builder()
                .writeBufferSize(ZkvOptions.MIN_WRITE_BUFFER_SIZE)
                .syncWrites(true)
                .build());
    try {
      byte[] format = db.get(FORMAT_KEY.getBytes(StandardCharsets.UTF_8));
      if (format == null) {
        db.put(
            FORMAT_KEY.getBytes(StandardCharsets.UTF_8), FORMAT.getBytes(StandardCharsets.UTF_8));
      } else if (!FORMAT.equals(new String(format, StandardCharsets.UTF_8))) {
        throw new IllegalStateException(
            "zkv's Kafka Streams store catalog "
                + PATH
                + " on "
                + env.uri()
                + " has format "
                + new String(format, StandardCharsets.UTF_8)
                + "; this zkv-kafka-streams reads format "
                + FORMAT
                + ": use the zkv release that wrote it");
      }
      try (ZkvIterator it = db.iterator()) {
        while (it.hasNext()) {
          String key = new String(it.next().key(), StandardCharsets.UTF_8);
          if (!key.equals(FORMAT_KEY)) {
            paths.add(key);
          }
        }
      }
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /** The recorded paths, a copy. */
  Set<String> paths() {
    return new LinkedHashSet<>(paths);
  }

  /** Records {@code add} (one synced write for the new ones). */
  void addAll(Collection<String> add) {
    ZkvBatch b = new ZkvBatch();
    for (String p : add) {
      if (!paths.contains(p)) {
        b.put(p.getBytes(StandardCharsets.UTF_8), PRESENT);
      }
    }
    if (!b.isEmpty()) {
      db.write(b);
      paths.addAll(add);
    }
  }

  /** Forgets {@code remove} (one synced write). */
  void removeAll(Collection<String> remove) {
    ZkvBatch b = new ZkvBatch();
    for (String p : remove) {
      if (paths.contains(p)) {
        b.delete(p.getBytes(StandardCharsets.UTF_8));
      }
    }
    if (!b.isEmpty()) {
      db.write(b);
      paths.removeAll(remove);
    }
  }

  @Override
  public void close() {
    db.close();
  }
}
