package io.zkv.waltz;

import java.util.Objects;

/**
 * One operation of a logged write: what a {@code ZkvDb} put, delete, deleteRange or batch entry
 * does, as WALTZ's record carries it ({@code docs/formats/zkv-wal.md}).
 *
 * @param kind the operation
 * @param a the key, or a range's inclusive start
 * @param b the value, a range's exclusive end, or null for a delete
 */
public record WaltzOp(Kind kind, byte[] a, byte[] b) {
  /** Operation kinds, with their codes in the record. */
  public enum Kind {
    PUT(1),
    DELETE(2),
    DELETE_RANGE(3);

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
