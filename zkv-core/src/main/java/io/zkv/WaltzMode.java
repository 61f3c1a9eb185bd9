package io.zkv;

import io.zkv.device.DeviceGeometry;
import io.zkv.waltz.EnvZoneLeases;
import io.zkv.waltz.WaltzLog;
import io.zkv.waltz.WaltzLogException;
import io.zkv.waltz.WaltzOp;
import io.zkv.waltz.WaltzRecovery;
import io.zkv.waltz.WaltzWriter;
import io.zkv.waltz.ZoneLeases;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.LongSupplier;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A {@link ZkvDb}'s WALTZ log (docs/wal.md, "WALTZ mode"): recovery at open, the write path, and
 * the zones' end at close. RocksDB's own WAL is off for such a database.
 */
final class WaltzMode {
  private static final System.Logger LOG = System.getLogger("io.zkv.waltz");

  /** Spare leased zones the log keeps where the active limit allows (WALTZ's two). */
  static final int SPARES = 2;

  /** Writers besides the log that need an active zone at once: a flush and a compaction. */
  private static final int OTHER_ACTIVE_WRITERS = 2;

  private final long owner;
  private final ZoneLeases leases;
  private final WaltzLog log;
  private final WaltzWriter writer;
  private final WaltzRecovery.Result recovered;

  private WaltzMode(
      long owner, ZoneLeases leases, WaltzLog log, WaltzWriter writer, WaltzRecovery.Result r) {
    this.owner = owner;
    this.leases = leases;
    this.log = log;
    this.writer = writer;
    this.recovered = r;
  }

  /**
   * The log's owner id for a database path: FNV-1a (64 bits) of it, never 0. Stable across mounts,
   * so a reopened database finds its leased zones.
   */
  static long ownerOf(String path) {
    long h = 0xcbf29ce484222325L;
    for (byte b : ("zkv-waltz:" + path).getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h == 0 ? 1 : h;
  }

  /**
   * Spares the device allows: the file system's active limit (the device's less 2, its metadata log
   * and GC) must hold the log's zone, its spares, the env's reserved WAL zones and a flush and a
   * compaction.
   *
   * @throws IllegalArgumentException if not even one spare fits
   */
  static int sparesFor(DeviceGeometry g, int envWalReserve, String uri) {
    if (g.maxActive() == 0) {
      return SPARES;
    }
    int fsLimit = g.maxActive() > 3 ? g.maxActive() - 2 : 1;
    int room = fsLimit - envWalReserve - OTHER_ACTIVE_WRITERS - 1; // less the current zone
    if (room < 1) {
      throw new IllegalArgumentException(
          "WAL mode WALTZ on "
              + uri
              + ": the device's "
              + g.maxActive()
              + " active zones leave the file system "
              + fsLimit
              + "; two leased log zones, "
              + envWalReserve
              + " reserved WAL zones (WalOptions.reservedZones) and a flush and a compaction need "
              + (2 + envWalReserve + OTHER_ACTIVE_WRITERS)
              + (envWalReserve > 0
                  ? " (RocksDB writes no WAL file in WALTZ mode: reservedZones(0) frees those)"
                  : ""));
    }
    return Math.min(SPARES, room);
  }

  /**
   * Replays what the log's zones hold into {@code db} (opened with its WAL off), flushes it, gives
   * the zones back, and starts a fresh log.
   *
   * @throws ZkvException if the replay or its flush fails (the zones stay leased: a later open
   *     replays them again)
   */
  static WaltzMode open(
      ZonedEnv env,
      String path,
      RocksDB db,
      LongSupplier flushedSequence,
      long writeBufferSize,
      Runnable flushRequest) {
    DeviceGeometry g = env.geometry();
    int spares = sparesFor(g, env.options().wal().reservedZones(), env.uri());
    long owner = ownerOf(path);
    ZoneLeases leases = new EnvZoneLeases(env.rocksEnv(), owner, g);
    WaltzRecovery.Result r = WaltzRecovery.scan(leases, owner);
    for (String p : r.problems()) {
      LOG.log(System.Logger.Level.WARNING, "WALTZ log of " + path + ": " + p);
    }
    if (r.unreadZones() > 0) { // their records are unknown: keep every lease for a later open
      throw new ZkvException(
          "cannot open "
              + path
              + ": "
              + r.unreadZones()
              + " zone(s) of its WALTZ log could not be read ("
              + String.join("; ", r.problems())
              + "); nothing was replayed or given back");
    }
    if (r.zones() > 0) {
      try (WriteOptions noWal = new WriteOptions().setDisableWAL(true)) {
        replayAndFlush(db, noWal, r); // the replayed writes in SSTs before their zones go
      } catch (RocksDBException e) {
        throw ZkvException.of("replaying the WALTZ log of " + path, e);
      }
      // All at once (one record): zones given back one by one in zone order could leave an older
      // zone whose records a crash would replay over the newer ones of a zone already gone.
      int rc = leases.giveBackAll();
      if (rc < 0) {
        throw new ZkvException(
            "cannot give back the replayed zones of the WALTZ log of "
                + path
                + " (error "
                + rc
                + ")");
      }
    }
    long switchRoom = switchRoom(g);
    WaltzLog log;
    try {
      log =
          new WaltzLog(
              leases,
              switchRoom,
              spares,
              flushedSequence,
              heldBudget(g, writeBufferSize),
              flushRequest);
    } catch (WaltzLogException e) {
      throw mapped("starting the WALTZ log of " + path, e);
    }
    return new WaltzMode(
        owner, leases, log, new WaltzWriter(log, owner, g.lbaSize(), g.zasl(), r.maxSeq()), r);
  }

  /**
   * Bytes of log zones left behind before the log asks for a flush: RocksDB's own bound on its WAL
   * ({@code max_total_wal_size}'s default, 4 x the write buffers' total), at most a quarter of the
   * device's data zones, at least two zones.
   */
  static long heldBudget(DeviceGeometry g, long writeBufferSize) {
    long rocks = 4L * ZkvOptions.MAX_WRITE_BUFFER_NUMBER * writeBufferSize;
    long quarter = (long) g.zoneCount() / 4 * g.zoneCapacity();
    return Math.max(2 * g.zoneCapacity(), Math.min(rocks, quarter));
  }

  /** 1% of the zone capacity (WALTZ's), whole blocks, at least one. */
  static long switchRoom(DeviceGeometry g) {
    long room = g.zoneCapacity() / 100 / g.lbaSize() * g.lbaSize();
    return Math.max(room, g.lbaSize());
  }

  /** Logs {@code ops}, then applies them to {@code db} with {@code noWal}. */
  void write(String what, RocksDB db, WriteOptions noWal, List<WaltzOp> ops)
      throws RocksDBException {
    try {
      writer.write(
          ops,
          o -> {
            apply(db, noWal, o);
            return db.getLatestSequenceNumber();
          });
    } catch (RocksDBException | RuntimeException e) {
      if (e instanceof WaltzLogException w) {
        throw mapped(what, w);
      }
      throw e;
    } catch (Exception e) {
      throw new ZkvException(what, e);
    }
  }

  private static ZkvException mapped(String what, WaltzLogException e) {
    return e.noSpace()
        ? new ZkvNoSpaceException(what + ": " + e.getMessage())
        : new ZkvException(what + ": " + e.getMessage(), e);
  }

  static void apply(RocksDB db, WriteOptions wo, List<WaltzOp> ops) throws RocksDBException {
    if (ops.size() == 1) {
      WaltzOp op = ops.get(0);
      switch (op.kind()) {
        case PUT -> db.put(wo, op.a(), op.b());
        case DELETE -> db.delete(wo, op.a());
        case DELETE_RANGE -> db.deleteRange(wo, op.a(), op.b());
      }
      return;
    }
    try (WriteBatch b = new WriteBatch()) {
      for (WaltzOp op : ops) {
        switch (op.kind()) {
          case PUT -> b.put(op.a(), op.b());
          case DELETE -> b.delete(op.a());
          case DELETE_RANGE -> b.deleteRange(op.a(), op.b());
        }
      }
      db.write(wo, b);
    }
  }

  /** Applies the records in sequence order, then flushes and waits: all of them in SSTs. */
  private static void replayAndFlush(RocksDB db, WriteOptions noWal, WaltzRecovery.Result r)
      throws RocksDBException {
    for (WaltzRecovery.Record rec : r.records()) {
      apply(db, noWal, rec.ops());
    }
    try (FlushOptions wait = new FlushOptions().setWaitForFlush(true).setAllowWriteStall(true)) {
      db.flush(wait);
    }
  }

  /**
   * Replays the log's zones into a reopened {@code db} (resume: its memtables were dropped) and
   * flushes them; the zones then go back with the log's next release.
   */
  int replayInto(RocksDB db, WriteOptions noWal) throws RocksDBException {
    WaltzRecovery.Result r = WaltzRecovery.scan(leases, owner);
    if (r.unreadZones() > 0) {
      throw new RocksDBException(
          "WALTZ log: " + r.unreadZones() + " zone(s) could not be read: " + r.problems());
    }
    replayAndFlush(db, noWal, r);
    // The reopened database numbers its writes anew and its listener saw no flush: the zones'
    // bounds mean nothing there. Flushed now, every record is in an SST.
    log.allFlushed();
    return r.records().size();
  }

  WaltzRecovery.Result recovered() {
    return recovered;
  }

  WaltzLog.Stats stats() {
    return log.stats();
  }

  /**
   * Stops the log; with {@code flushed} (RocksDB flushed after the last write) gives its zones
   * back.
   */
  void close(boolean flushed) {
    log.close(flushed);
  }

  /** Gives back the zones of a destroyed database's log. */
  static void destroy(ZonedEnv env, String path) {
    new EnvZoneLeases(env.rocksEnv(), ownerOf(path), env.geometry()).giveBackAll();
  }

  /** Zones a database's WALTZ log still holds (a crash left records to replay). */
  static int zonesLeft(ZonedEnv env, String path) {
    return env.rocksEnv().leasedZones(ownerOf(path)).length;
  }
}
