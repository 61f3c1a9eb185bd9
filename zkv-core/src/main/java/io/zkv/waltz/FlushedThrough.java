package io.zkv.waltz;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * How far the log is in RocksDB's SSTs: the largest sequence through which every record is applied
 * and flushed. The log writes it as a flushed-through mark ({@link WaltzOp.Kind#FLUSHED_THROUGH})
 * and a replay skips the records up to the last mark found, so that a log whose zones hold many
 * write buffers of flushed records (zones go back whole) does not fill the memtable again at open,
 * which on a full device has no room to flush it.
 *
 * <p>Every sequence a writer takes ends here once ({@link #done}) with an upper bound of the
 * RocksDB sequence its apply took: 0 if nothing of it is in the log (its append failed), {@link
 * Long#MAX_VALUE} if it is in the log but not applied (it waits for a replay: {@link #replayed}).
 * The manager thread advances over the done sequences in order while their bounds are flushed.
 */
final class FlushedThrough {
  private final ConcurrentSkipListMap<Long, Long> done =
      new ConcurrentSkipListMap<>(); // not folded
  // guarded by this:
  private final ArrayDeque<long[]> runs = new ArrayDeque<>(); // {last sequence, largest bound}
  private long folded; // every sequence up to it has ended (in runs, or through)
  private long through;
  private long recordsThrough; // through's last advance over a run holding a logged record
  private long replayBound; // no advance until a flush persisted it
  private final long floor; // what is through until then

  /**
   * @param lastSeq the largest sequence of the log before this run: every one up to it is replayed
   *     into the memtable (bounded by {@code replayBound}) or already through
   * @param recoveredThrough the last mark recovery found (through until the replay is flushed)
   * @param replayBound RocksDB's sequence after the replay, 0 if nothing was replayed
   */
  FlushedThrough(long lastSeq, long recoveredThrough, long replayBound) {
    this.through = lastSeq;
    this.folded = lastSeq;
    this.floor = Math.min(recoveredThrough, lastSeq);
    this.replayBound = replayBound;
    this.recordsThrough = replayBound > 0 ? floor : lastSeq;
  }

  /** Sequence {@code seq} ended; RocksDB holds it up to {@code bound} (see the class comment). */
  void done(long seq, long bound) {
    done.put(seq, bound);
  }

  /**
   * Folds the sequences ended in order into a run (one per call: the map stays as small as the
   * writes in flight), then advances over the runs whose bounds {@code flushed} covers; returns the
   * sequence through which every record is in an SST.
   */
  synchronized long advance(long flushed) {
    long end = folded;
    long bound = 0;
    for (Map.Entry<Long, Long> e = done.firstEntry();
        e != null && e.getKey() == end + 1;
        e = done.firstEntry()) {
      done.remove(e.getKey());
      end = e.getKey();
      bound = Math.max(bound, e.getValue());
    }
    if (end > folded) {
      runs.addLast(new long[] {end, bound});
      folded = end;
    }
    if (replayBound > 0 && flushed < replayBound) {
      return floor;
    }
    if (replayBound > 0) {
      recordsThrough = through; // the replayed records, now flushed
      replayBound = 0;
    }
    while (!runs.isEmpty() && runs.peekFirst()[1] <= flushed) {
      long[] r = runs.pollFirst();
      through = r[0];
      if (r[1] != 0) {
        recordsThrough = through;
      }
    }
    return through;
  }

  /**
   * The point as of the last time it passed a logged record (bound above 0): a mark is due only
   * when this moves, not for sequences with nothing to replay (marks, failed appends), or an idle
   * log would mark its own marks.
   */
  synchronized long recordsThrough() {
    return recordsThrough;
  }

  /**
   * The log was replayed into a reopened database (resume) whose sequence after the replay is
   * {@code bound}: every record not yet through waits for a flush of that. Called with no write in
   * flight.
   */
  synchronized void replayed(long bound) {
    done.replaceAll((seq, b) -> b == 0 ? 0 : bound);
    for (long[] r : runs) {
      if (r[1] != 0) {
        r[1] = bound;
      }
    }
    if (replayBound > 0) {
      replayBound = bound;
    }
  }
}
