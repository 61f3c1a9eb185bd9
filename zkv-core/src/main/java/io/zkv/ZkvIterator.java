package io.zkv;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * Key-ordered entries of a {@link ZkvDb}, over a consistent snapshot taken when the iterator was
 * created. Holds native resources until {@link #close()}: use try-with-resources. Closing the
 * database closes its iterators. Not thread-safe (one thread at a time).
 *
 * <p>Errors while iterating throw {@link ZkvException} (unchecked, as {@link Iterator} requires);
 * use after close throws {@link ZkvClosedException}.
 */
public final class ZkvIterator implements Iterator<ZkvEntry>, AutoCloseable {
  private final ZkvDb db;
  private final RocksIterator it;
  private final ReadOptions readOptions;
  private final Slice upper;
  private String closedBecause;

  ZkvIterator(ZkvDb db, RocksIterator it, ReadOptions readOptions, Slice upper) {
    this.db = db;
    this.it = it;
    this.readOptions = readOptions;
    this.upper = upper;
  }

  /**
   * Whether another entry follows.
   *
   * @throws ZkvException if RocksDB failed to read (a {@link ZkvCorruptionException} for bad data)
   * @throws ZkvClosedException if this iterator or its database is closed
   */
  @Override
  public boolean hasNext() {
    db.readLock();
    try {
      checkOpen();
      if (it.isValid()) {
        return true;
      }
      try {
        it.status();
      } catch (RocksDBException e) {
        throw ZkvException.of("iterate " + db.path(), e);
      }
      return false;
    } finally {
      db.readUnlock();
    }
  }

  /**
   * The next entry (fresh arrays).
   *
   * @throws NoSuchElementException at the end
   */
  @Override
  public ZkvEntry next() {
    db.readLock();
    try {
      if (!hasNext()) {
        throw new NoSuchElementException("no more entries in " + db.path());
      }
      ZkvEntry e = new ZkvEntry(it.key(), it.value());
      it.next();
      return e;
    } finally {
      db.readUnlock();
    }
  }

  private void checkOpen() {
    if (closedBecause != null) {
      throw new ZkvClosedException("iterator over " + db.path() + " is closed" + closedBecause);
    }
  }

  /** Releases the native iterator. Idempotent. */
  @Override
  public void close() {
    db.readLock();
    try {
      if (release("")) {
        db.forget(this);
      }
    } finally {
      db.readUnlock();
    }
  }

  /** Frees the native resources once; {@code reason} ends the message of later uses. */
  synchronized boolean release(String reason) {
    if (closedBecause != null) {
      return false;
    }
    closedBecause = reason;
    it.close();
    readOptions.close();
    if (upper != null) {
      upper.close();
    }
    return true;
  }
}
