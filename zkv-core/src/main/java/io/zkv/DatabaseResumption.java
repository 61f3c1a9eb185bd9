package io.zkv;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The steps of {@link ZkvDb#resume()} for one database: whether it is stopped, whether a reopen can
 * flush its memtables, closing the stopped database and reopening it (with WALTZ's replay). ZkvDb
 * orders them and holds the state they change (the database, why it is stopped, its listener),
 * under its gate held exclusively.
 *
 * <p>RocksJava (9.7.3, 10.1.3) does not expose RocksDB's {@code DB::Resume()}; until zkv's native
 * layer does, zkv resumes by closing and reopening the database, which replays the WAL and flushes
 * it to SST files.
 */
final class DatabaseResumption {
  /**
   * Room a flush needs beyond its memtables' bytes: the SST's index, filter, properties and footer
   * (assumption: under 64 KiB for one flush of a write buffer of zkv's sizes).
   */
  private static final long FLUSH_OVERHEAD = 64L << 10;

  private final ZonedEnv env;
  private final String path;
  private final ZkvOptions options;
  private final Options rocksOptions;
  private final org.rocksdb.WriteOptions writeOptions;
  private final WaltzMode waltz; // null unless in WALTZ mode

  DatabaseResumption(
      ZonedEnv env,
      String path,
      ZkvOptions options,
      Options rocksOptions,
      org.rocksdb.WriteOptions writeOptions,
      WaltzMode waltz) {
    this.env = env;
    this.path = path;
    this.options = options;
    this.rocksOptions = rocksOptions;
    this.writeOptions = writeOptions;
    this.waltz = waltz;
  }

  /**
   * What stops {@code db}'s writes, or empty when it takes writes again: then what failed flushes
   * and compactions left behind is deleted, and WALTZ's log may log writes again.
   */
  Optional<RocksDBException> stoppedBy(RocksDB db) {
    // Fails with the background error while stopped. Without the WAL: a synced probe made the WAL
    // ask for a zone on a full device, and its failure left the WAL writer broken, so the close
    // was unclean and the reopen refused (FullDeviceRecoveryTest).
    try (WriteBatch empty = new WriteBatch();
        org.rocksdb.WriteOptions probe =
            new org.rocksdb.WriteOptions().setDisableWAL(true).setSync(false)) {
      db.write(probe, empty);
    } catch (RocksDBException e) {
      return Optional.of(e);
    }
    deleteLeftovers(db, null);
    if (waltz != null) {
      waltz.writesResumed();
    }
    return Optional.empty();
  }

  /**
   * Throws unless a reopen of the stopped {@code db} keeps its writes and has room to flush them:
   * with the WAL disabled a reopen would drop the memtables (NoSpace stays NoSpace); without room,
   * {@link ZkvNoSpaceException} says how much to free and how.
   */
  void refuseUnlessReopenable(RocksDB db, RocksDBException stoppedBy) {
    if (options.disableWal()) {
      throw ZkvException.typed(
          "cannot resume "
              + path
              + " with the WAL disabled: RocksJava (9.7.3, 10.1.3) does not expose DB::Resume() and"
              + " reopening would drop unflushed writes, and RocksDB does not recover by itself"
              + " on zkv; close and reopen the database once space is free (writes not yet"
              + " flushed are lost). It is stopped by: "
              + stoppedBy.getMessage(),
          stoppedBy);
    }
    checkRoomToFlush(db, stoppedBy);
  }

  /**
   * Refuses to reopen a stopped database when its memtables cannot be flushed. Judged by the
   * memtables' real size (RocksDB's {@code rocksdb.cur-size-all-mem-tables}), not their limit: a
   * stopped database often holds little more than the deletes that free space.
   */
  private void checkRoomToFlush(RocksDB db, RocksDBException stoppedBy) {
    long need = roomToFlush(db, options.writeBufferSize());
    long memtables = need - FLUSH_OVERHEAD;
    // Space freed by deletes often shares zones with live data: garbage collection gets it back.
    long usable = env.zoneFs().reclaim(need);
    if (usable < need) {
      throw new ZkvNoSpaceException(
          "cannot resume "
              + path
              + ": "
              + Math.max(0, usable)
              + " bytes of the device are free for the flush of a reopen after garbage collection (the zone"
              + " file system keeps a reserve for GC, metadata and space-freeing work), "
              + need
              + " are needed to flush the memtables ("
              + memtables
              + " bytes); free at least "
              + (need - Math.max(0, usable))
              + " bytes first, then call resume() again: deleteFilesInRange drops the SST files"
              + " of a key range at once (it works while writes are stopped), and closing or"
              + " deleting other databases on the device frees theirs (to delete single keys,"
              + " remount, then deleteRange and compactRange). Writes are stopped by: "
              + stoppedBy.getMessage(),
          stoppedBy,
          org.rocksdb.Status.Code.IOError,
          org.rocksdb.Status.SubCode.NoSpace);
    }
  }

  /** Bytes a flush of {@code db}'s memtables needs: their real size (else their limit) and more. */
  static long roomToFlush(RocksDB db, long writeBufferSize) {
    long memtables;
    try {
      memtables = Long.parseLong(db.getProperty("rocksdb.cur-size-all-mem-tables").trim());
    } catch (RocksDBException | NumberFormatException e) {
      memtables = ZkvOptions.MAX_WRITE_BUFFER_NUMBER * writeBufferSize; // the limit
    }
    return memtables + FLUSH_OVERHEAD;
  }

  /**
   * Closes the stopped database; null when it closed cleanly. Otherwise (the tail of its WAL could
   * not be written) reopening it in this mount is unsafe: the exception to stop it with.
   */
  ZkvException closeStopped(RocksDB old) {
    try {
      old.closeE();
      RocksDbLeaks.releaseAfterClose(old);
      return null;
    } catch (RocksDBException e) {
      env.markUncleanClose(path, e.getMessage());
      return ZkvException.typed(
          "cannot resume "
              + path
              + ": RocksDB could not close the stopped database cleanly ("
              + e.getMessage()
              + "), so reopening it in this mount is unsafe; close this ZkvDb, close"
              + " and reopen the ZonedEnv, then open the database again",
          e);
    }
  }

  /**
   * Gives the reopened database a listener of its own: the old one's account of write stalls (the
   * full-device rule, {@code rocks/stalled_no_space.h}) describes the database just closed. Returns
   * the new listener; the old one is closed (no open database uses it).
   */
  AbstractEventListener freshListener(AbstractEventListener old) {
    AbstractEventListener fresh = env.rocksEnv().newLsmHintListener();
    List<AbstractEventListener> listeners = new ArrayList<>(rocksOptions.listeners());
    listeners.remove(old);
    listeners.add(fresh);
    rocksOptions.setListeners(listeners);
    old.close();
    return fresh;
  }

  /**
   * Opens the database again; in WALTZ mode replays the log into it (the dropped memtables'
   * writes).
   *
   * @throws ZkvException when the open or the replay fails (the database stays closed)
   */
  RocksDB reopen() {
    if (waltz != null) {
      // The reopened database numbers its writes from its SSTs' last sequence again: until the
      // log is replayed into it, no bound the log holds may be compared with its flushes.
      waltz.boundsUnknown();
    }
    try {
      RocksDB reopened = RocksDB.open(rocksOptions, path);
      try {
        env.rocksEnv().refreshLsmHints(reopened);
        if (waltz != null) {
          waltz.replayInto(reopened, writeOptions);
        }
      } catch (RocksDBException | RuntimeException e) {
        closeHalfReplayed(reopened);
        throw e;
      }
      return reopened;
    } catch (RocksDBException e) {
      throw ZkvException.of("resume " + path + ": reopening failed", e);
    }
  }

  /**
   * Closes a reopened database whose WALTZ replay failed part way: read, it would show a state no
   * writer made (a range delete not yet replayed over the puts before it), so the database stays
   * stopped until a resume replays the whole log. A close that flushes the partial replay is
   * harmless (the next replay applies every record over it, and the log keeps its zones: their
   * bounds are unknown); a close that fails leaves nothing to protect (no WAL in WALTZ mode).
   */
  private static void closeHalfReplayed(RocksDB reopened) {
    try {
      reopened.closeE();
    } catch (RocksDBException e) {
      // nothing more to do: see above
    }
    RocksDbLeaks.releaseAfterClose(reopened);
  }

  /**
   * Deletes the files a failed flush or compaction left behind. RocksDB deletes them at the job's
   * end only if no other job holds an older pending output, and on a full device one usually does
   * (an automatic compaction that fails for want of room and is retried), so the partial outputs of
   * a {@code compactRange} that ran out of room stayed and kept the device full: the database took
   * no write after {@link ZkvDb#resume()} (0 keys in 4 of about 100 {@code FullDeviceRecoveryTest}
   * cases, random keys). With background work paused no job holds one, and re-enabling file
   * deletions makes RocksDB scan for every obsolete file and delete it (if the user disabled
   * deletions, say for a backup, they stay disabled and nothing is deleted). Best effort: a failure
   * is attached to {@code cause}, if any, and otherwise ignored.
   */
  static void deleteLeftovers(RocksDB d, RocksDBException cause) {
    try {
      d.pauseBackgroundWork(); // waits for running flushes and compactions to end
      try {
        d.disableFileDeletions();
        d.enableFileDeletions(); // at a count of 0: a full scan, and the obsolete files go
      } finally {
        d.continueBackgroundWork();
      }
    } catch (RocksDBException e) {
      if (cause != null) {
        cause.addSuppressed(e);
      }
    }
  }
}
