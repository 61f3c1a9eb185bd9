package io.zkv;

import io.zkv.wal.WalMode;
import io.zkv.waltz.WaltzOp;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Slice;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.rocksdb.ZkvEnv;

/**
 * A key-value database (RocksDB) stored in zones of a {@link ZonedEnv}'s device.
 *
 * <pre>{@code
 * try (ZonedEnv zoned = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED);
 *     ZkvDb db = ZkvDb.open(zoned, "/orders", ZkvOptions.defaults())) {
 *   db.put(key, value);
 *   byte[] v = db.get(key);
 *   try (ZkvIterator it = db.iterator()) {
 *     while (it.hasNext()) { ZkvEntry e = it.next(); ... }
 *   }
 * }
 * }</pre>
 *
 * <p>Keys and values are byte arrays, keys ordered bytewise. Methods are thread-safe; {@link
 * #close()} waits for calls in progress and closes open iterators. Errors are unchecked {@link
 * ZkvException}s (see there why): {@link ZkvNoSpaceException} when the device is full, {@link
 * ZkvCorruptionException} for damaged data, {@link ZkvClosedException} after close.
 *
 * <p><b>A full device.</b> When a write or a flush finds no space, RocksDB stops accepting writes
 * and the call throws {@link ZkvNoSpaceException}; everything written before stays readable. Free
 * space (e.g. {@link #deleteFilesInRange}, or close and delete another database on the device),
 * then call {@link #resume()}; after that, delete data the usual way ({@link #deleteRange} + {@link
 * #compactRange}) to keep room. Known limit of the zone file system today: on a device filled to
 * its last zone it has no room left even for the manifest record that deleting files needs, so this
 * recovery works only while some space remains (see {@code FullDeviceTest}).
 */
public final class ZkvDb implements AutoCloseable {
  private final ZonedEnv env;
  private final String path;
  private final ZkvOptions options;
  private final ZonedEnv.Attachment attachment;
  private final Options rocksOptions;
  // LSM hints for placement and the full-device rule (native, no upcalls); guarded by gate
  private AbstractEventListener hintListener;
  private final org.rocksdb.WriteOptions writeOptions;
  private final FlushOptions flushOptions;
  private final CompactRangeOptions compactOptions;
  private final CallGate gate = new CallGate(); // calls shared, close and resume exclusive
  private final Set<ZkvIterator> iterators = new LinkedHashSet<>(); // guarded by itself
  private RocksDB db; // null while stopped after a failed resume(); guarded by gate
  private final WaltzMode waltz; // null unless ZkvOptions.walMode is WALTZ
  private final DatabaseResumption resumption;
  private ZkvException stopped; // why db is null
  private volatile boolean closed;

  private ZkvDb(
      ZonedEnv env,
      String path,
      ZkvOptions options,
      ZonedEnv.Attachment attachment,
      Options rocksOptions,
      AbstractEventListener hintListener,
      org.rocksdb.WriteOptions writeOptions,
      RocksDB db,
      WaltzMode waltz) {
    this.env = env;
    this.waltz = waltz;
    this.path = path;
    this.options = options;
    this.attachment = attachment;
    this.rocksOptions = rocksOptions;
    this.hintListener = hintListener;
    this.writeOptions = writeOptions;
    // A manual flush or compaction runs at once even if its L0 file brings writes to a stall
    // (allow_write_stall): RocksDB's default waits for automatic compactions to clear the stall
    // first, and on a full device those cannot run, so the call that frees space waited forever.
    this.flushOptions = new FlushOptions().setWaitForFlush(true).setAllowWriteStall(true);
    this.compactOptions = new CompactRangeOptions().setAllowWriteStall(true);
    this.db = db;
    this.resumption = new DatabaseResumption(env, path, options, rocksOptions, writeOptions, waltz);
  }

  /** Opens (or creates) the database at {@code path} with {@link ZkvOptions#defaults()}. */
  public static ZkvDb open(ZonedEnv env, String path) {
    return open(env, path, ZkvOptions.defaults());
  }

  /**
   * Opens (or, with {@link ZkvOptions#createIfMissing()}, creates) the database at {@code path} on
   * {@code env}'s device.
   *
   * @param path an absolute name in the zone file system, e.g. {@code /stores/orders}
   * @throws IllegalArgumentException for a bad path, or a write buffer too large for the device
   * @throws IllegalStateException if the path is already open on this env
   * @throws ZkvClosedException if {@code env} is closed
   * @throws ZkvException if RocksDB cannot open it (missing without createIfMissing, damaged,
   *     {@link ZkvNoSpaceException} when recovery finds no space)
   */
  public static ZkvDb open(ZonedEnv env, String path, ZkvOptions options) {
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(options, "options");
    String p = normalizePath(path);
    ZkvEnv rocksEnv = env.rocksEnv(); // throws ZkvClosedException when env is closed
    checkWriteBuffer(env, options);
    checkPlacement(env, options);
    checkWalMode(env, options);
    ZonedEnv.Attachment a = env.attachDatabase(p, false);
    int waltzZones = options.waltz() ? 0 : WaltzMode.zonesLeft(env, p);
    if (waltzZones > 0) {
      a.close();
      throw new IllegalStateException(
          "database "
              + p
              + " on "
              + env.uri()
              + " has a WALTZ log of "
              + waltzZones
              + " zone(s) not replayed yet (it was not closed cleanly in WAL mode WALTZ): open it"
              + " with ZkvOptions.builder().walMode(WalMode.WALTZ) once, which replays them;"
              + " without, its last writes would be lost");
    }
    Options o = null;
    AbstractEventListener hints = null;
    org.rocksdb.WriteOptions w = null;
    try {
      o = options.toRocksOptions(rocksEnv);
      hints = rocksEnv.newLsmHintListener();
      List<AbstractEventListener> listeners = new ArrayList<>(o.listeners());
      listeners.add(hints);
      o.setListeners(listeners);
      w = options.toWriteOptions();
      RocksDB db = RocksDB.open(o, p);
      rocksEnv.refreshLsmHints(db);
      WaltzMode waltz = null;
      // the log's manager reaches the database through its gate, once it exists
      java.util.concurrent.atomic.AtomicReference<ZkvDb> self =
          new java.util.concurrent.atomic.AtomicReference<>();
      if (options.waltz()) {
        try {
          waltz =
              WaltzMode.open(
                  env,
                  p,
                  db,
                  () -> self.get() == null ? 0 : self.get().flushedSequence(),
                  options.writeBufferSize(),
                  () -> {
                    ZkvDb d = self.get();
                    if (d != null) {
                      d.requestFlush();
                    }
                  });
        } catch (RuntimeException e) {
          db.close();
          throw e;
        }
      }
      ZkvDb opened = new ZkvDb(env, p, options, a, o, hints, w, db, waltz);
      self.set(opened);
      return opened;
    } catch (RocksDBException e) {
      closeAll(o, hints, w, a);
      throw ZkvException.of("cannot open database " + p + " on " + env.uri(), e);
    } catch (RuntimeException e) {
      closeAll(o, hints, w, a);
      throw e;
    }
  }

  private static void closeAll(AutoCloseable... resources) {
    for (AutoCloseable r : resources) {
      if (r != null) {
        try {
          r.close();
        } catch (Exception suppressed) {
          // closing after a failed open: the open's exception is the one to report
        }
      }
    }
  }

  /**
   * Deletes the database at {@code path} and all its files, freeing their zones (like RocksDB's
   * {@code DestroyDB}). Nothing happens if it does not exist.
   *
   * @throws IllegalStateException if it is open on {@code env}
   * @throws ZkvException if RocksDB fails to delete it
   */
  public static void destroy(ZonedEnv env, String path) {
    Objects.requireNonNull(env, "env");
    String p = normalizePath(path);
    ZkvEnv rocksEnv = env.rocksEnv();
    ZonedEnv.Attachment a = env.attachDatabase(p, true); // refuses an open database
    try (Options o = new Options().setEnv(rocksEnv)) {
      RocksDB.destroyDB(p, o);
      WaltzMode.destroy(env, p); // a WALTZ log's leased zones go with it
      env.forgetUncleanClose(p);
    } catch (RocksDBException e) {
      throw ZkvException.of("cannot destroy database " + p + " on " + env.uri(), e);
    } finally {
      a.close();
    }
  }

  /**
   * "/a//b/" to "/a/b"; refuses relative paths, the root, "." and ".." components and NULs.
   *
   * @throws IllegalArgumentException with the reason
   */
  static String normalizePath(String path) {
    Objects.requireNonNull(path, "path must not be null");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException(
          "database path must be absolute (a name in the device's file system, like /stores/a),"
              + " not '"
              + path
              + "'");
    }
    if (path.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("database path must not contain NUL characters");
    }
    List<String> parts = new ArrayList<>();
    for (String s : path.split("/")) {
      if (s.equals(".") || s.equals("..")) {
        throw new IllegalArgumentException(
            "database path must not contain '.' or '..' components: '" + path + "'");
      }
      if (!s.isEmpty()) {
        parts.add(s);
      }
    }
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("database path must name a directory below /, not '/'");
    }
    String p = "/" + String.join("/", parts);
    if (p.length() > 4000) {
      throw new IllegalArgumentException(
          "database path is " + p.length() + " characters long; at most 4000 are allowed");
    }
    return p;
  }

  /** Placement is per device: a database cannot ask for another one than its env's. */
  private static void checkPlacement(ZonedEnv env, ZkvOptions options) {
    String envPlacement = env.options().placement().name();
    options
        .placement()
        .filter(p -> !p.policyName().equals(envPlacement))
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(
                  "placement "
                      + p
                      + " requested, but "
                      + env.uri()
                      + " is mounted with "
                      + envPlacement
                      + " (placement is per device: set it in the ZonedEnvOptions of the env)");
            });
  }

  /** FILE or ZWAL must be the env's (the file system's mode); WALTZ is the database's own. */
  private static void checkWalMode(ZonedEnv env, ZkvOptions options) {
    WalMode envMode = env.options().wal().mode();
    options
        .walMode()
        .filter(m -> m != WalMode.WALTZ && m != envMode)
        .ifPresent(
            m -> {
              throw new IllegalArgumentException(
                  "WAL mode "
                      + m
                      + " requested, but "
                      + env.uri()
                      + " is mounted with "
                      + envMode
                      + " (the mode of RocksDB's WAL files is per device: set it in the"
                      + " ZonedEnvOptions' WalOptions; WALTZ is per database)");
            });
  }

  private static void checkWriteBuffer(ZonedEnv env, ZkvOptions options) {
    io.zkv.fs.ZoneStats s = env.stats();
    long usable = Math.max(0, s.dataZones() - 1L) * env.geometry().zoneCapacity();
    long need = ZkvOptions.MAX_WRITE_BUFFER_NUMBER * options.writeBufferSize();
    if (need > usable) {
      throw new IllegalArgumentException(
          "writeBufferSize "
              + options.writeBufferSize()
              + " is too large for "
              + env.uri()
              + ": RocksDB may hold "
              + ZkvOptions.MAX_WRITE_BUFFER_NUMBER
              + " write buffers ("
              + need
              + " bytes) and must be able to flush them, but the device's data zones hold "
              + usable
              + " bytes (one zone is kept for garbage collection); use at most "
              + usable / ZkvOptions.MAX_WRITE_BUFFER_NUMBER);
    }
  }

  public String path() {
    return path;
  }

  public ZonedEnv env() {
    return env;
  }

  public ZkvOptions options() {
    return options;
  }

  public boolean isClosed() {
    return closed;
  }

  @FunctionalInterface
  private interface RocksCall<T> {
    T apply(RocksDB db) throws RocksDBException;
  }

  /** Runs a RocksDB call under a shared hold of the gate, mapping its errors. */
  private <T> T call(String what, RocksCall<T> c) {
    gate.enterShared();
    try {
      RocksDB d = live();
      return c.apply(d);
    } catch (RocksDBException e) {
      throw ZkvException.of(what + " in " + path, e);
    } finally {
      gate.exitShared();
    }
  }

  private RocksDB live() {
    if (closed) {
      throw new ZkvClosedException("database " + path + " is closed");
    }
    if (db == null) {
      String message =
          "database "
              + path
              + " is stopped: resume() could not reopen it ("
              + stopped.getMessage()
              + "); call resume() again"
              + (stopped instanceof ZkvNoSpaceException ? " after freeing space" : "");
      throw stopped instanceof ZkvNoSpaceException
          ? new ZkvNoSpaceException(message)
          : new ZkvException(message, stopped);
    }
    return db;
  }

  /**
   * Stores {@code value} under {@code key}.
   *
   * @throws ZkvNoSpaceException if the device is full (the write did not happen)
   */
  public void put(byte[] key, byte[] value) {
    Objects.requireNonNull(key, "key must not be null");
    Objects.requireNonNull(value, "value must not be null");
    if (waltz != null) {
      logged("put", List.of(WaltzOp.put(key, value)));
      return;
    }
    call(
        "put",
        d -> {
          d.put(writeOptions, key, value);
          return null;
        });
  }

  /** The value of {@code key}, or null. */
  public byte[] get(byte[] key) {
    Objects.requireNonNull(key, "key must not be null");
    return call("get", d -> d.get(key));
  }

  /** Deletes {@code key} (no error if absent). */
  public void delete(byte[] key) {
    Objects.requireNonNull(key, "key must not be null");
    if (waltz != null) {
      logged("delete", List.of(WaltzOp.delete(key)));
      return;
    }
    call(
        "delete",
        d -> {
          d.delete(writeOptions, key);
          return null;
        });
  }

  /**
   * Deletes the keys in {@code [fromInclusive, toExclusive)} with one range tombstone; space is
   * reclaimed when compaction drops the covered data (see {@link #compactRange(byte[], byte[])}).
   * An empty range ({@code fromInclusive} equal to {@code toExclusive}) deletes nothing.
   *
   * @throws IllegalArgumentException if {@code toExclusive} comes before {@code fromInclusive}
   *     (keys compare bytewise, unsigned, as RocksDB's default comparator orders them)
   */
  public void deleteRange(byte[] fromInclusive, byte[] toExclusive) {
    Objects.requireNonNull(fromInclusive, "fromInclusive must not be null");
    Objects.requireNonNull(toExclusive, "toExclusive must not be null");
    checkRange(fromInclusive, toExclusive);
    if (waltz != null) {
      logged("deleteRange", List.of(WaltzOp.deleteRange(fromInclusive, toExclusive)));
      return;
    }
    call(
        "deleteRange",
        d -> {
          d.deleteRange(writeOptions, fromInclusive, toExclusive);
          return null;
        });
  }

  /**
   * Refuses a range whose end comes before its start before it reaches RocksDB, which refuses it
   * too and then, by its bug facebook/rocksdb#8239 (seen with 9.7.3: the next put failed "end key
   * comes before start key"), refuses later writes; in WALTZ mode the record would be logged first.
   */
  static void checkRange(byte[] fromInclusive, byte[] toExclusive) {
    if (java.util.Arrays.compareUnsigned(fromInclusive, toExclusive) > 0) {
      throw new IllegalArgumentException(
          "deleteRange: the range's end comes before its start (keys compare bytewise, unsigned)");
    }
  }

  /** Applies {@code batch} atomically. An empty batch is a no-op. */
  public void write(ZkvBatch batch) {
    Objects.requireNonNull(batch, "batch must not be null");
    if (batch.isEmpty()) {
      return;
    }
    if (waltz != null) {
      logged("write batch of " + batch.size() + " operations", batch.waltzOps());
      return;
    }
    call(
        "write batch of " + batch.size() + " operations",
        d -> {
          try (WriteBatch b = new WriteBatch()) {
            batch.fill(b);
            d.write(writeOptions, b);
          }
          return null;
        });
  }

  /**
   * For WALTZ's manager thread: the largest sequence a flush persisted, by the current listener (a
   * resume replaces it); 0 (nothing given back this round) while the database closes or reopens.
   */
  private long flushedSequence() {
    if (!gate.tryEnterShared()) {
      return 0;
    }
    try {
      return closed || db == null ? 0 : ZkvEnv.flushedSequence(hintListener);
    } finally {
      gate.exitShared();
    }
  }

  /**
   * For WALTZ's manager thread: starts a flush without waiting (the log outgrew its budget), unless
   * the database closes, reopens or is stopped.
   */
  private void requestFlush() {
    if (!gate.tryEnterShared()) {
      return;
    }
    try (FlushOptions noWait = new FlushOptions().setWaitForFlush(false).setAllowWriteStall(true)) {
      RocksDB d = db;
      if (!closed && d != null) {
        d.flush(noWait);
      }
    } catch (RocksDBException e) {
      // a flush that cannot run: the writes see RocksDB's error themselves
    } finally {
      gate.exitShared();
    }
  }

  /** A write through the WALTZ log: durable in its zone, then applied with RocksDB's WAL off. */
  private void logged(String what, List<WaltzOp> ops) {
    call(
        what,
        d -> {
          waltz.write(what + " in " + path, d, writeOptions, ops);
          return null;
        });
  }

  /** The WALTZ log's counters; empty unless the database runs in WALTZ mode. */
  public Optional<io.zkv.waltz.WaltzLog.Stats> waltzStats() {
    return Optional.ofNullable(waltz).map(WaltzMode::stats);
  }

  /** What the WALTZ log's recovery found at open; empty unless in WALTZ mode. */
  public Optional<io.zkv.waltz.WaltzRecovery.Result> waltzRecovery() {
    return Optional.ofNullable(waltz).map(WaltzMode::recovered);
  }

  /** All entries in key order; close the iterator. */
  public ZkvIterator iterator() {
    return iterator(null, null);
  }

  /**
   * Entries with keys in {@code [fromInclusive, toExclusive)} in key order; a null bound is
   * unbounded. Close the iterator.
   */
  public ZkvIterator iterator(byte[] fromInclusive, byte[] toExclusive) {
    return call(
        "iterator",
        d -> {
          ReadOptions ro = new ReadOptions();
          Slice upper = null;
          if (toExclusive != null) {
            upper = new Slice(toExclusive);
            ro.setIterateUpperBound(upper);
          }
          org.rocksdb.RocksIterator it = d.newIterator(ro);
          if (fromInclusive != null) {
            it.seek(fromInclusive);
          } else {
            it.seekToFirst();
          }
          ZkvIterator zi = new ZkvIterator(this, it, ro, upper);
          synchronized (iterators) {
            iterators.add(zi);
          }
          return zi;
        });
  }

  void forget(ZkvIterator it) {
    synchronized (iterators) {
      iterators.remove(it);
    }
  }

  void readLock() {
    gate.enterShared();
  }

  void readUnlock() {
    gate.exitShared();
  }

  /** Writes the memtable to an SST file in zones and waits for it. */
  public void flush() {
    call(
        "flush",
        d -> {
          d.flush(flushOptions);
          return null;
        });
  }

  /**
   * Makes every write so far durable without flushing the memtable, as a write with {@code
   * syncWrites} would: a synced write of a WAL-only record (RocksDB's {@code PutLogData}, which
   * replay skips). RocksDB's own {@code SyncWAL} syncs the WAL from outside its write group, which
   * zkv's WAL files refuse (a sync concurrent with appends: {@code IsSyncThreadSafe} is false).
   *
   * @throws IllegalStateException if the database writes no WAL ({@link ZkvOptions#disableWal()})
   */
  public void syncWal() {
    if (waltz != null) {
      return; // every WALTZ write is durable when it returns
    }
    if (options.disableWal()) {
      throw new IllegalStateException("syncWal " + path + ": the database writes no WAL");
    }
    call(
        "syncWal",
        d -> {
          try (WriteBatch marker = new WriteBatch();
              WriteOptions synced = new WriteOptions().setSync(true)) {
            marker.putLogData(SYNC_MARKER);
            d.write(synced, marker);
          }
          return null;
        });
  }

  /** The WAL-only record {@link #syncWal} writes. */
  private static final byte[] SYNC_MARKER = {'z', 'k', 'v', 's', 'y', 'n', 'c'};

  /** Compacts the whole key space (waits). */
  public void compactRange() {
    call(
        "compactRange",
        d -> {
          d.compactRange(d.getDefaultColumnFamily(), null, null, compactOptions);
          return null;
        });
  }

  /** Compacts the keys in {@code [fromInclusive, toInclusive]} (waits). */
  public void compactRange(byte[] fromInclusive, byte[] toInclusive) {
    Objects.requireNonNull(fromInclusive, "fromInclusive must not be null");
    Objects.requireNonNull(toInclusive, "toInclusive must not be null");
    call(
        "compactRange",
        d -> {
          try {
            d.compactRange(d.getDefaultColumnFamily(), fromInclusive, toInclusive, compactOptions);
          } catch (RocksDBException e) {
            DatabaseResumption.deleteLeftovers(d, e);
            throw e;
          }
          return null;
        });
  }

  /**
   * Drops the SST files whose keys all lie in {@code [fromInclusive, toExclusive)} at once, without
   * writing anything but a small manifest record, which frees their zones. Works while writes are
   * stopped by a full device. Keys of the range in files that also hold other keys, and in the
   * memtable, stay: follow with {@link #deleteRange} to delete the whole range.
   *
   * <p>Background compactions are paused meanwhile: RocksDB skips the files a running compaction
   * reads, and on a full device one is often running (it fails for want of room and is retried).
   */
  public void deleteFilesInRange(byte[] fromInclusive, byte[] toExclusive) {
    Objects.requireNonNull(fromInclusive, "fromInclusive must not be null");
    Objects.requireNonNull(toExclusive, "toExclusive must not be null");
    call(
        "deleteFilesInRange",
        d -> {
          d.pauseBackgroundWork(); // waits for running flushes and compactions to end
          try {
            d.deleteFilesInRanges(
                d.getDefaultColumnFamily(), List.of(fromInclusive, toExclusive), false);
          } finally {
            d.continueBackgroundWork();
          }
          return null;
        });
  }

  /**
   * A RocksDB property of the database (e.g. {@code rocksdb.stats}, {@code
   * rocksdb.estimate-num-keys}), or empty if RocksDB does not know it.
   */
  public Optional<String> property(String name) {
    Objects.requireNonNull(name, "name");
    gate.enterShared();
    try {
      RocksDB d = live();
      return Optional.of(d.getProperty(name));
    } catch (RocksDBException e) {
      return Optional.empty();
    } finally {
      gate.exitShared();
    }
  }

  /**
   * Makes the database accept writes again after a {@link ZkvNoSpaceException}, once space has been
   * freed. If writes are accepted already, it only deletes what failed flushes and compactions left
   * behind (a {@link #compactRange} that ran out of room does so too) and returns. RocksDB does not
   * recover from NoSpace by itself on zkv: its automatic recovery polls the file system's free
   * space, which the zone file system does not report (on zones only GC makes space, so the poll
   * would stall every writer).
   *
   * <p>RocksJava (9.7.3, 10.1.3) does not expose RocksDB's {@code DB::Resume()}; until zkv's native
   * layer does, zkv resumes by closing and reopening the database, which replays the WAL and
   * flushes it to SST files, and closes the iterators open at the time. Before that, it checks that
   * the device has room to flush the memtables (their real size, plus 64 KiB for the SST's index
   * and footer), collecting garbage first; if not, it throws {@link ZkvNoSpaceException} saying how
   * much to free and how, and leaves the database as it was (stopped for writes, readable). If the
   * reopen fails, the database stays stopped (every call throws) until a later {@code resume()}
   * succeeds. If RocksDB cannot close the stopped database cleanly (the tail of its WAL could not
   * be written), reopening it in the same mount is unsafe: {@code resume()} throws, and the
   * database can be opened again only after the {@link ZonedEnv} is closed and mounted again.
   *
   * <p>With the WAL disabled a reopen would drop the memtable, so there {@code resume()} does not
   * reopen and throws unless RocksDB has recovered by itself. In WALTZ mode the reopened database
   * gets the log's records back (replayed, not flushed then: docs/wal.md, "Recovery"); a replay
   * that fails part way closes it again, and it stays stopped until a later {@code resume()}.
   *
   * @throws ZkvNoSpaceException if there is still not enough space
   * @throws ZkvException if RocksDB fails otherwise, or the WAL is disabled and RocksDB is still
   *     stopped
   */
  public void resume() {
    gate.enterExclusive();
    try {
      if (closed) {
        throw new ZkvClosedException("database " + path + " is closed");
      }
      if (db != null) {
        Optional<RocksDBException> stoppedBy = resumption.stoppedBy(db);
        if (stoppedBy.isEmpty()) {
          return; // it takes writes (leftovers deleted)
        }
        resumption.refuseUnlessReopenable(db, stoppedBy.get());
        releaseIterators(" (resume() reopened the database)");
        RocksDB old = db;
        db = null;
        stopped = resumption.closeStopped(old);
        if (stopped != null) {
          throw stopped;
        }
      }
      hintListener = resumption.freshListener(hintListener);
      try {
        db = resumption.reopen();
        stopped = null;
      } catch (RuntimeException e) {
        // stopped until a later resume succeeds (a replay's own exception included)
        stopped =
            e instanceof ZkvException z
                ? z
                : new ZkvException("resume " + path + ": reopening failed", e);
        throw e;
      }
    } finally {
      gate.exitExclusive();
    }
  }

  private void releaseIterators(String reason) {
    List<ZkvIterator> its;
    synchronized (iterators) {
      its = new ArrayList<>(iterators);
      iterators.clear();
    }
    for (ZkvIterator it : its) {
      it.release(reason);
    }
  }

  /**
   * Closes open iterators and the database, and detaches from the env. Idempotent; waits for calls
   * in progress.
   *
   * @throws ZkvException if RocksDB reports an error while closing (everything is released anyway)
   */
  @Override
  public void close() {
    gate.enterExclusive();
    RocksDBException failure = null;
    try {
      if (closed) {
        return;
      }
      closed = true;
      releaseIterators(" (its database was closed)");
      if (waltz != null) {
        // The log's zones go back once its records are in SSTs; a failed flush keeps them for
        // the next open's replay.
        boolean flushed = false;
        if (db != null) {
          try {
            db.flush(flushOptions);
            flushed = true;
          } catch (RocksDBException e) {
            failure = e;
          }
        }
        waltz.close(flushed);
      }
      if (db != null) {
        try {
          db.closeE();
        } catch (RocksDBException e) {
          failure = e;
          env.markUncleanClose(path, e.getMessage());
        }
        RocksDbLeaks.releaseAfterClose(db);
        db = null;
      }
      flushOptions.close();
      compactOptions.close();
      writeOptions.close();
      rocksOptions.close();
      hintListener.close();
      attachment.close();
    } finally {
      gate.exitExclusive();
    }
    if (failure != null) {
      throw ZkvException.of("close " + path, failure);
    }
  }

  @Override
  public String toString() {
    return "ZkvDb[" + path + " on " + env.uri() + (closed ? ", closed" : "") + "]";
  }
}
