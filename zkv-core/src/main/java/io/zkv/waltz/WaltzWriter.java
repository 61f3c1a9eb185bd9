package io.zkv.waltz;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * WALTZ's write path for one database: per write, the stripes of its keys, a sequence number, one
 * record encoded in the calling thread's buffer, its zone appends (waited for by this thread alone:
 * no group commit, no global lock), then RocksDB's apply with its WAL off, then the stripes go.
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

  /**
   * @param lastSeq the largest sequence already in the log (recovery's), 0 for none
   */
  public WaltzWriter(WaltzLog log, long dbId, int block, int maxAppend, long lastSeq) {
    this.log = log;
    this.dbId = dbId;
    this.block = block;
    this.maxAppend = maxAppend;
    this.sequence = new AtomicLong(lastSeq);
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
      long size = WaltzRecordCodec.encodedSize(WaltzRecordCodec.payloadSize(ops), block, maxAppend);
      ByteBuffer buf = buffer(size);
      int[] parts = WaltzRecordCodec.encode(dbId, seq, ops, block, maxAppend, buf.position(0));
      WaltzLog.Ticket t = log.append(buf, parts);
      long bound = Long.MAX_VALUE; // unapplied: kept for the next open
      try {
        bound = apply.apply(ops);
      } finally {
        log.applied(t, bound);
      }
    } finally {
      stripes.unlock(held);
    }
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
