package io.zkv.waltz;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * WALTZ's write path for one database: per write, the stripes of its keys, a sequence number, one
 * record encoded in the calling thread's buffer, its zone appends (waited for by this thread alone:
 * no group commit, no global lock), then RocksDB's apply with its WAL off, then the stripes go.
 * Between writes, the log's manager has it append a flushed-through mark when a flush moved that
 * point ({@link FlushedThrough}), so that a replay skips what is in SSTs already.
 */
public final class WaltzWriter {
  /** Stripes of the same-key order: enough that writers of distinct keys rarely share one. */
  static final int STRIPES = 1024;

  /** Applies a write to RocksDB and returns an upper bound of the sequence it took there. */
  @FunctionalInterface
  public interface Apply {
    long apply(List<WaltzOp> ops) throws Exception;
  }

  private final WaltzLog log;
  private final long dbId;
  private final int block;
  private final int maxAppend;
  private final KeyStripes stripes = new KeyStripes(STRIPES);
  private final AtomicLong sequence;
  private final ThreadLocal<ByteBuffer> buffers = new ThreadLocal<>();
  private final FlushedThrough flushed;
  private long lastMark; // the manager's alone

  /** A writer of a log with nothing to replay: {@code lastSeq} 0, no mark. */
  public WaltzWriter(WaltzLog log, long dbId, int block, int maxAppend, long lastSeq) {
    this(log, dbId, block, maxAppend, lastSeq, lastSeq, 0);
  }

  /**
   * @param lastSeq the largest sequence already in the log (recovery's {@code maxSeq}), 0 for none
   * @param recoveredThrough the last flushed-through mark recovery found
   * @param replayBound RocksDB's sequence after recovery replayed the log, 0 if nothing was
   */
  public WaltzWriter(
      WaltzLog log,
      long dbId,
      int block,
      int maxAppend,
      long lastSeq,
      long recoveredThrough,
      long replayBound) {
    this.log = log;
    this.dbId = dbId;
    this.block = block;
    this.maxAppend = maxAppend;
    this.sequence = new AtomicLong(lastSeq);
    this.flushed = new FlushedThrough(lastSeq, recoveredThrough, replayBound);
    this.lastMark = flushed.recordsThrough(); // nothing replayed: no mark due for the past
  }

  /**
   * Logs {@code ops} durably, then applies them. When the apply fails the record stays in the log
   * (its zones are kept until the next open replays it) and the apply's exception is thrown.
   *
   * @throws WaltzLogException if the record could not be appended (nothing was applied)
   */
  public void write(List<WaltzOp> ops, Apply apply) throws Exception {
    int[] held = stripes.lock(ops);
    try {
      long seq = sequence.incrementAndGet();
      long ended = 0; // nothing of it in the log (a record missing a part is never replayed)
      try {
        Encoded e = encode(seq, ops);
        WaltzLog.Ticket t = log.append(e.buffer(), e.parts());
        ended = Long.MAX_VALUE; // in the log, unapplied: kept for the next open or resume
        long bound = Long.MAX_VALUE;
        try {
          bound = apply.apply(ops);
        } finally {
          log.applied(t, bound);
        }
        ended = bound;
      } finally {
        flushed.done(seq, ended);
      }
    } finally {
      stripes.unlock(held);
    }
  }

  /** A record encoded in the calling thread's buffer, and its parts' sizes. */
  private record Encoded(ByteBuffer buffer, int[] parts) {}

  private Encoded encode(long seq, List<WaltzOp> ops) {
    long size = WaltzRecordCodec.encodedSize(WaltzRecordCodec.payloadSize(ops), block, maxAppend);
    ByteBuffer buf = buffer(size);
    return new Encoded(
        buf, WaltzRecordCodec.encode(dbId, seq, ops, block, maxAppend, buf.position(0)));
  }

  /**
   * Appends a flushed-through mark if {@code flushedRocksSeq} (the largest RocksDB sequence a
   * completed flush persisted) moved the point through which every record is in an SST. Called by
   * the log's manager, between its rounds; a mark that finds no room is tried next round.
   */
  public void markFlushed(long flushedRocksSeq) {
    long through = flushed.advance(flushedRocksSeq);
    long records = flushed.recordsThrough();
    if (records <= lastMark) {
      return; // no logged record passed since the last mark
    }
    long seq = sequence.incrementAndGet();
    try {
      Encoded e = encode(seq, List.of(WaltzOp.flushedThrough(through)));
      WaltzLog.Ticket t = log.appendMark(e.buffer(), e.parts());
      log.applied(t, 0); // nothing to flush: its zone may go as soon as the rest of it
      lastMark = records;
    } catch (WaltzLogException e) {
      // no room now (a full device): the next round tries again
    } finally {
      flushed.done(seq, 0);
    }
  }

  /**
   * The log was replayed into a reopened database (resume) whose sequence after the replay is
   * {@code bound}. Called with no write in flight.
   */
  public void replayed(long bound) {
    flushed.replayed(bound);
  }

  /** The calling thread's block-aligned direct buffer of at least {@code size} bytes. */
  private ByteBuffer buffer(long size) {
    ByteBuffer b = buffers.get();
    if (b == null || b.capacity() < size) {
      if (size > Integer.MAX_VALUE - 8192) {
        throw new IllegalArgumentException(
            "a write of " + size + " bytes is too large for the log");
      }
      int cap = (int) Math.max((size + 4095) / 4096 * 4096, 64 << 10); // whole pages: aligned
      b = ByteBuffer.allocateDirect(cap + 4096).alignedSlice(4096);
      buffers.set(b);
    }
    return b;
  }

  /** The largest sequence handed out. */
  public long lastSequence() {
    return sequence.get();
  }
}
