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
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
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

  /**
   * Writers besides the log that need an active zone at once: a flush and a compaction, and
   * RocksDB's MANIFEST, whose writer holds its zone for the database's life (the file system takes
   * it from the MANIFEST while it is idle, so two are the least the database can run with).
   */
  private static final int OTHER_ACTIVE_WRITERS = 3;

  private static final int LEAST_OTHER_ACTIVE_WRITERS = 2;

  private final long owner;
  private final ZoneLeases leases;
  private final WaltzLog log;
  private final WaltzWriter writer;
  private final WaltzRecovery.Result recovered;

  /**
   * Why RocksDB stopped taking writes, once an apply failed for RocksDB's own state (a background
   * error: NoSpace, an I/O error): RocksDB refuses every later write alike until {@code resume()},
   * so a write must not be logged meanwhile. Each record logged and then refused keeps its zones
   * and every newer one until a replay: writers retrying on a stopped database filled a 24-zone
   * device with the log's records (issue 42), leaving the flush that would free them no room.
   */
  private volatile RocksDBException stoppedBy;

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

  /** The log's zones beside the current one: spares, and 0 or 1 reserve zone ({@link WaltzLog}). */
  record ZoneBudget(int spares, int reserve) {}

  /**
   * The spares and reserve the device allows: the file system's active limit (the device's less 2,
   * its metadata log and GC) must hold the log's zone, its spares, its reserve (an empty held zone
   * counts as active there), the env's reserved WAL zones and the database's other writers: a
   * flush, a compaction and the MANIFEST's. With room for three more zones the log keeps two spares
   * and the reserve, for two one spare and the reserve, for one a spare only (then a log that fills
   * its device cannot be sure to reopen there: docs/wal.md). Where even the MANIFEST's zone does
   * not fit, the log keeps one spare beside a flush and a compaction (the MANIFEST's zone is then
   * taken from it while it is idle). Before issue 42 the budget left the flush and the compaction
   * alone: on an 8-active device the log's four zones left them two, and a flush at open after a
   * crash found none (the crashed run's zones held the rest).
   *
   * @throws IllegalArgumentException if not even one spare fits
   */
  static ZoneBudget budgetFor(DeviceGeometry g, int envWalReserve, String uri) {
    if (g.maxActive() == 0) {
      return new ZoneBudget(SPARES, 1);
    }
    int fsLimit = g.maxActive() > 3 ? g.maxActive() - 2 : 1;
    int beside = fsLimit - envWalReserve - 1; // less the current zone
    int room = beside - OTHER_ACTIVE_WRITERS;
    if (room < 1 && beside - LEAST_OTHER_ACTIVE_WRITERS >= 1) {
      return new ZoneBudget(1, 0);
    }
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
              + (2 + envWalReserve + LEAST_OTHER_ACTIVE_WRITERS)
              + (envWalReserve > 0
                  ? " (RocksDB writes no WAL file in WALTZ mode: reservedZones(0) frees those)"
                  : ""));
    }
    if (room == 1) {
      return new ZoneBudget(1, 0);
    }
    return new ZoneBudget(Math.min(SPARES, room - 1), 1);
  }

  /**
   * Replays what the log's zones hold into {@code db} (opened with its WAL off) and starts the log
   * again: the replayed zones go back once a flush covers them, an empty one left by a clean close
   * is the new log's reserve.
   *
   * @throws ZkvException if the replay fails (the zones stay leased: a later open replays them
   *     again)
   */
  static WaltzMode open(
      ZonedEnv env,
      String path,
      RocksDB db,
      LongSupplier flushedSequence,
      long writeBufferSize,
      Runnable flushRequest) {
    DeviceGeometry g = env.geometry();
    ZoneBudget budget = budgetFor(g, env.options().wal().reservedZones(), env.uri());
    long owner = ownerOf(path);
    ZoneLeases leases = new EnvZoneLeases(env.zoneFs(), owner);
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
    // Replayed into the memtable, then flushed and the zones given back where the device has room
    // for the flush (the usual case: the log's zones never pile up over crashes that come before
    // a flush). On a full device the flush is not tried (its failure would stop RocksDB) and the
    // database opens to free space: the replayed zones stay leased, as the log's oldest, until a
    // flush covers them. Empty zones (the reserve a clean close kept) start the new log.
    WaltzLog.Inherited inherited;
    releaseTokens(leases);
    if (!r.records().isEmpty()) {
      // Room for the replay's flushes first, any garbage collected (not only zones 1/8 garbage,
      // the writers' bound): they need the replayed bytes again as SSTs before the log's zones
      // can go back, more at once than the crashed run's flushes needed as it wrote.
      env.zoneFs().reclaim(replayBytes(r.records()) + writeBufferSize);
    }
    try (WriteOptions noWal = new WriteOptions().setDisableWAL(true)) {
      replay(db, noWal, r.records());
      long bound = r.records().isEmpty() ? 0 : db.getLatestSequenceNumber();
      if (r.zones() > 0 && roomToFlush(env, db, writeBufferSize)) {
        try (FlushOptions wait =
            new FlushOptions().setWaitForFlush(true).setAllowWriteStall(true)) {
          db.flush(wait);
        }
        // All at once (one record): zones given back one by one in zone order could leave an
        // older zone whose records a crash would replay over the newer ones of a zone gone.
        int rc = leases.giveBackKeepingEmpty(budget.reserve());
        if (rc < 0) {
          throw new ZkvException(
              "cannot give back the replayed zones of the WALTZ log of "
                  + path
                  + " (error "
                  + rc
                  + ")");
        }
        bound = 0;
      }
      inherited = inherited(leases, bound);
    } catch (RocksDBException e) {
      throw ZkvException.of("replaying the WALTZ log of " + path, e);
    }
    long switchRoom = switchRoom(g);
    WaltzLog log;
    try {
      log =
          new WaltzLog(
              leases,
              inherited,
              switchRoom,
              budget.spares(),
              budget.reserve(),
              flushedSequence,
              heldBudget(g, writeBufferSize),
              flushRequest);
    } catch (WaltzLogException e) {
      throw mapped("starting the WALTZ log of " + path, e);
    }
    WaltzWriter writer =
        new WaltzWriter(
            log,
            owner,
            g.lbaSize(),
            g.zasl(),
            r.maxSeq(),
            r.flushedThrough(),
            inherited.replayedBound());
    log.afterEachRound(writer::markFlushed);
    // fewer empty zones left for leases than the log's next switch and refill take
    log.flushEarlyWhen(() -> env.zoneFs().leaseRoom() < 2);
    return new WaltzMode(owner, leases, log, writer, r);
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

  /**
   * Logs {@code ops}, then applies them to {@code db} with {@code noWal}; refused without logging
   * while RocksDB is stopped ({@link #stoppedBy}).
   */
  void write(String what, RocksDB db, WriteOptions noWal, List<WaltzOp> ops)
      throws RocksDBException {
    RocksDBException stopped = stoppedBy;
    if (stopped != null) { // as RocksDB answers it: nothing is logged
      throw new RocksDBException(stopped.getMessage(), stopped.getStatus());
    }
    RocksDBException[] refused = new RocksDBException[1];
    try {
      writer.write(
          ops,
          o -> {
            try {
              apply(db, noWal, o);
            } catch (RocksDBException e) {
              if (!refusedAsItStands(e)) {
                if (stopsWrites(e)) {
                  stoppedBy = e;
                }
                throw e;
              }
              // RocksDB refused the write itself (a range whose end comes before its start):
              // nothing was applied and a replay would be refused alike, so the record holds
              // nothing back (bound 0) and is skipped when replayed.
              refused[0] = e;
              return 0L;
            }
            return db.getLatestSequenceNumber();
          });
      if (refused[0] != null) {
        throw refused[0];
      }
    } catch (RocksDBException | RuntimeException e) {
      if (e instanceof WaltzLogException w) {
        throw mapped(what, w);
      }
      throw e;
    } catch (Exception e) {
      throw new ZkvException(what, e);
    }
  }

  /**
   * Whether a failed apply says RocksDB stopped taking writes (a background error), not that this
   * write was refused or timed out on its own.
   */
  static boolean stopsWrites(RocksDBException e) {
    Status s = e.getStatus();
    if (s == null) {
      return true;
    }
    return switch (s.getCode()) {
      case InvalidArgument, Busy, TryAgain, TimedOut, Incomplete -> false;
      default -> true;
    };
  }

  /** RocksDB takes writes again (resume() probed or reopened it): writes are logged again. */
  void writesResumed() {
    stoppedBy = null;
  }

  /** Whether RocksDB refused a write for what it is (InvalidArgument), not for its own state. */
  static boolean refusedAsItStands(RocksDBException e) {
    return e.getStatus() != null && e.getStatus().getCode() == Status.Code.InvalidArgument;
  }

  /**
   * Replays {@code records} in order; a record RocksDB refuses as it stands (it refused it when it
   * was written, too: never acknowledged) is reported and skipped.
   */
  private static void replay(RocksDB db, WriteOptions noWal, List<WaltzRecovery.Record> records)
      throws RocksDBException {
    for (WaltzRecovery.Record rec : records) {
      try {
        apply(db, noWal, rec.ops());
      } catch (RocksDBException e) {
        if (!refusedAsItStands(e)) {
          throw e;
        }
        LOG.log(
            System.Logger.Level.WARNING,
            "WALTZ record " + rec.seq() + " refused by RocksDB, skipped: " + e.getMessage());
      }
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

  /**
   * Whether the device has room (after garbage collection) to flush the memtables: their real size
   * and 64 KiB for an SST's index and footer, as {@code ZkvDb.resume} judges it.
   */
  /** The bytes of the records' operations (their payloads as logged). */
  private static long replayBytes(List<WaltzRecovery.Record> records) {
    long n = 0;
    for (WaltzRecovery.Record r : records) {
      n += io.zkv.waltz.WaltzRecordCodec.payloadSize(r.ops());
    }
    return n;
  }

  private static boolean roomToFlush(ZonedEnv env, RocksDB db, long writeBufferSize) {
    long need = DatabaseResumption.roomToFlush(db, writeBufferSize);
    return env.zoneFs().reclaim(need) >= need;
  }

  /**
   * Before the replay and its flushes: the crashed run's leased zones hold active tokens and room
   * the flushes need. Its written zones are never written again (a new log starts in empty zones):
   * finished, they hold no token (a full zone's finish fails harmlessly). Its empty ones go back
   * but one, the zone a new log starts in on a full device; the new log leases its spares once the
   * replay is flushed and its zones given back. Seen before (issue 42): after a crash on an
   * 8-active device, two unfinished and three empty leased zones beside one partly written data
   * zone left the replay's flush no token, and the open failed with NoSpace on an empty device; on
   * a nearly full one, two empty leased zones kept 6 MiB from the replay's flushes, which then
   * failed with NoSpace.
   */
  private static void releaseTokens(ZoneLeases leases) {
    int keep = 1;
    for (int z : leases.leased()) {
      long written = leases.written(z);
      if (written != 0) {
        leases.finish(z);
      } else if (keep > 0) {
        keep--;
      } else {
        leases.giveBack(z); // empty: no record to keep, in any order
      }
    }
  }

  /**
   * The log's leased zones split into empty ones and written ones (replayed up to {@code bound}).
   */
  private static WaltzLog.Inherited inherited(ZoneLeases leases, long bound) {
    List<Integer> empty = new ArrayList<>();
    List<Integer> written = new ArrayList<>();
    for (int z : leases.leased()) {
      if (leases.written(z) == 0) {
        empty.add(z);
      } else {
        written.add(z);
        // The crashed run's current zone is partly written: finished, it holds no active token
        // the log's budget did not count (a full zone's finish fails harmlessly)
        leases.finish(z);
      }
    }
    return new WaltzLog.Inherited(
        empty.stream().mapToInt(Integer::intValue).toArray(),
        written.stream().mapToInt(Integer::intValue).toArray(),
        bound);
  }

  /**
   * Before {@link #replayInto}: the database is being reopened, so no zone goes back and no mark
   * moves until the replay sets the bounds anew (a flush of a half-replayed database must not
   * count).
   */
  void boundsUnknown() {
    log.replayedUpTo(Long.MAX_VALUE);
    writer.replayed(Long.MAX_VALUE);
  }

  /**
   * Replays the log's zones into a reopened {@code db} (resume: its memtables were dropped); the
   * zones go back once a flush of the reopened database covers the replay.
   */
  int replayInto(RocksDB db, WriteOptions noWal) throws RocksDBException {
    WaltzRecovery.Result r = WaltzRecovery.scan(leases, owner);
    if (r.unreadZones() > 0) {
      throw new RocksDBException(
          "WALTZ log: " + r.unreadZones() + " zone(s) could not be read: " + r.problems());
    }
    replay(db, noWal, r.records());
    // The reopened database numbers its writes anew and its listener saw no flush: the zones'
    // bounds are now the replay's.
    long bound = db.getLatestSequenceNumber();
    log.replayedUpTo(bound);
    writer.replayed(bound);
    writesResumed();
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
    new EnvZoneLeases(env.zoneFs(), ownerOf(path)).giveBackAll();
  }

  /**
   * Zones of a database's WALTZ log with records to replay (a crash left them). A log of empty
   * zones only (the reserve a clean close kept) is given back: a database opened without WALTZ does
   * not need it.
   */
  static int zonesLeft(ZonedEnv env, String path) {
    EnvZoneLeases leases = new EnvZoneLeases(env.zoneFs(), ownerOf(path));
    int[] zones = leases.leased();
    int written = 0;
    for (int z : zones) {
      if (leases.written(z) != 0) { // an error counts: its records are unknown
        written++;
      }
    }
    if (written == 0 && zones.length > 0) {
      leases.giveBackKeepingEmpty(0);
    }
    return written;
  }
}
