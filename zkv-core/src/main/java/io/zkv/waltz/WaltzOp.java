package io.zkv.waltz;

import java.util.Objects;

/**
 * One operation of a logged write: what a {@code ZkvDb} put, delete, deleteRange or batch entry
 * does, as WALTZ's record carries it ({@code docs/formats/zkv-wal.md}); or the log's own
 * flushed-through mark, alone in a record of its own.
 *
 * @param kind the operation
 * @param a the key, a range's inclusive start, or a mark's sequence (8 bytes, little-endian)
 * @param b the value, a range's exclusive end, null for a delete, empty for a mark
 */
public record WaltzOp(Kind kind, byte[] a, byte[] b) {
  /** Operation kinds, with their codes in the record. */
  public enum Kind {
    PUT(1),
    DELETE(2),
    DELETE_RANGE(3),
    /**
     * Every record of the log up to a sequence is in RocksDB's SSTs: a replay skips them (format
     * version 2, docs/formats/zkv-wal.md).
     */
    FLUSHED_THROUGH(4);

    final int code;

    Kind(int code) {
      this.code = code;
    }

    static Kind of(int code) {
      for (Kind k : values()) {
        if (k.code == code) {
          return k;
        }
      }
      return null;
    }
  }

  public WaltzOp {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(a, "a");
    if ((kind == Kind.DELETE) != (b == null)) {
      throw new IllegalArgumentException(
          kind + " with" + (b == null ? "out" : "") + " a second operand");
    }
    if (kind == Kind.FLUSHED_THROUGH && (a.length != 8 || b.length != 0)) {
      throw new IllegalArgumentException("a flushed-through mark holds one 8-byte sequence");
    }
  }

  /** The mark that every record up to {@code sequence} is in an SST. */
  public static WaltzOp flushedThrough(long sequence) {
    byte[] a =
        java.nio.ByteBuffer.allocate(8)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .putLong(sequence)
            .array();
    return new WaltzOp(Kind.FLUSHED_THROUGH, a, new byte[0]);
  }

  /** A mark's sequence. */
  public long markedSequence() {
    if (kind != Kind.FLUSHED_THROUGH) {
      throw new IllegalStateException(kind + " is not a flushed-through mark");
    }
    return java.nio.ByteBuffer.wrap(a).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
  }

  public static WaltzOp put(byte[] key, byte[] value) {
    return new WaltzOp(Kind.PUT, key, Objects.requireNonNull(value, "value"));
  }

  public static WaltzOp delete(byte[] key) {
    return new WaltzOp(Kind.DELETE, key, null);
  }

  public static WaltzOp deleteRange(byte[] fromInclusive, byte[] toExclusive) {
    return new WaltzOp(Kind.DELETE_RANGE, fromInclusive, Objects.requireNonNull(toExclusive, "to"));
  }

  /** Bytes this operation takes in a record's payload. */
  int encodedSize() {
    return 1 + 4 + a.length + (b == null ? 0 : 4 + b.length);
  }
}
