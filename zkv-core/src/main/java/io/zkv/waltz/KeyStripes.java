package io.zkv.waltz;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * WALTZ's same-key order: a write holds the stripes of its keys from taking its sequence number
 * until RocksDB has applied it, so two writes of one key reach RocksDB in sequence order (recovery
 * replays in that order). A batch takes its stripes in ascending order (no deadlock); a range
 * delete takes them all, since its keys are not known one by one.
 */
final class KeyStripes {
  private final ReentrantLock[] locks;

  KeyStripes(int count) {
    if (Integer.bitCount(count) != 1) {
      throw new IllegalArgumentException("stripes must be a power of two: " + count);
    }
    locks = new ReentrantLock[count];
    for (int i = 0; i < count; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  int stripeOf(byte[] key) {
    int h = Arrays.hashCode(key);
    h ^= h >>> 16; // murmur3's finalizer: nearby keys spread over the stripes
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    return h & (locks.length - 1);
  }

  /** Locks the stripes {@code ops} need and returns them, for {@link #unlock}. */
  int[] lock(List<WaltzOp> ops) {
    int[] s;
    if (ops.size() == 1 && ops.get(0).kind() != WaltzOp.Kind.DELETE_RANGE) {
      s = new int[] {stripeOf(ops.get(0).a())}; // the usual case, without a stream
    } else if (ops.stream().anyMatch(op -> op.kind() == WaltzOp.Kind.DELETE_RANGE)) {
      s = new int[locks.length];
      Arrays.setAll(s, i -> i);
    } else {
      s = ops.stream().mapToInt(op -> stripeOf(op.a())).sorted().distinct().toArray();
    }
    for (int i : s) {
      locks[i].lock();
    }
    return s;
  }

  void unlock(int[] held) {
    for (int i = held.length - 1; i >= 0; i--) {
      locks[held[i]].unlock();
    }
  }
}
