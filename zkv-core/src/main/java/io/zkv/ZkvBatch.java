package io.zkv;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Writes applied atomically by {@link ZkvDb#write}: all or none, in order. A plain Java object (no
 * native memory, nothing to close); reusable after {@link #clear()}. Arrays are not copied: do not
 * change them before the batch is written. Not thread-safe.
 */
public final class ZkvBatch {
  private enum Kind {
    PUT,
    DELETE,
    DELETE_RANGE
  }

  private record Op(Kind kind, byte[] a, byte[] b) {}

  private final List<Op> ops = new ArrayList<>();

  public ZkvBatch put(byte[] key, byte[] value) {
    ops.add(new Op(Kind.PUT, key(key), Objects.requireNonNull(value, "value must not be null")));
    return this;
  }

  public ZkvBatch delete(byte[] key) {
    ops.add(new Op(Kind.DELETE, key(key), null));
    return this;
  }

  /**
   * Deletes the keys in {@code [fromInclusive, toExclusive)}.
   *
   * @throws IllegalArgumentException if {@code toExclusive} comes before {@code fromInclusive}
   *     ({@link ZkvDb#deleteRange})
   */
  public ZkvBatch deleteRange(byte[] fromInclusive, byte[] toExclusive) {
    Objects.requireNonNull(fromInclusive, "fromInclusive must not be null");
    Objects.requireNonNull(toExclusive, "toExclusive must not be null");
    ZkvDb.checkRange(fromInclusive, toExclusive);
    ops.add(new Op(Kind.DELETE_RANGE, fromInclusive, toExclusive));
    return this;
  }

  /** Number of operations. */
  public int size() {
    return ops.size();
  }

  public boolean isEmpty() {
    return ops.isEmpty();
  }

  public ZkvBatch clear() {
    ops.clear();
    return this;
  }

  private static byte[] key(byte[] key) {
    return Objects.requireNonNull(key, "key must not be null");
  }

  /** The operations as WALTZ's log records them. */
  java.util.List<io.zkv.waltz.WaltzOp> waltzOps() {
    java.util.List<io.zkv.waltz.WaltzOp> out = new ArrayList<>(ops.size());
    for (Op op : ops) {
      out.add(
          switch (op.kind) {
            case PUT -> io.zkv.waltz.WaltzOp.put(op.a, op.b);
            case DELETE -> io.zkv.waltz.WaltzOp.delete(op.a);
            case DELETE_RANGE -> io.zkv.waltz.WaltzOp.deleteRange(op.a, op.b);
          });
    }
    return out;
  }

  /** Fills a RocksDB batch with the operations. */
  void fill(WriteBatch b) throws RocksDBException {
    for (Op op : ops) {
      switch (op.kind) {
        case PUT -> b.put(op.a, op.b);
        case DELETE -> b.delete(op.a);
        case DELETE_RANGE -> b.deleteRange(op.a, op.b);
      }
    }
  }
}
