package io.zkv.bench.workload;

import java.nio.ByteBuffer;

/**
 * Fixed-size binary keys laid out as {@code db_bench} does.
 *
 * <p>Source: {@code Benchmark::GenerateKeyFromInt} in RocksDB {@code tools/db_bench_tool.cc} with
 * {@code keys_per_prefix = 0} (the default, and what WALTZ and ZWAL ran): the low {@code
 * min(keySize, 8)} bytes of the key number, most significant first, then ASCII {@code '0'} (0x30)
 * bytes up to {@code keySize}. For {@code keySize >= 8} and non-negative numbers, RocksDB's default
 * bytewise comparator orders the keys as the numbers. For {@code keySize < 8} the high bytes are
 * dropped, as in {@code db_bench}, so distinct numbers may collide. WALTZ used {@code
 * --key_size=8}, ZWAL {@code --key_size=16}, the {@code db_bench} default is 16.
 *
 * <p>The {@code encode} variants that take a destination allocate nothing.
 */
public final class KeyFormat {
  /** The padding byte {@code db_bench} uses: the character '0'. */
  public static final byte PAD = (byte) '0';

  private final int keySize;
  private final int numberBytes;

  public KeyFormat(int keySize) {
    if (keySize < 1) {
      throw new IllegalArgumentException("keySize must be positive: " + keySize);
    }
    this.keySize = keySize;
    this.numberBytes = Math.min(keySize, 8);
  }

  public int keySize() {
    return keySize;
  }

  /** A new array holding the key for {@code number}. */
  public byte[] encode(long number) {
    byte[] key = new byte[keySize];
    encode(number, key, 0);
    return key;
  }

  /** Writes the key for {@code number} into {@code dst[off, off + keySize)}. */
  public void encode(long number, byte[] dst, int off) {
    if (off < 0 || off > dst.length - keySize) {
      throw new IndexOutOfBoundsException("key of " + keySize + " bytes at " + off);
    }
    for (int i = 0; i < numberBytes; i++) {
      dst[off + i] = (byte) (number >>> ((numberBytes - 1 - i) << 3));
    }
    for (int i = numberBytes; i < keySize; i++) {
      dst[off + i] = PAD;
    }
  }

  /** Writes the key at {@code dst}'s position and advances it by {@code keySize}. */
  public void encode(long number, ByteBuffer dst) {
    int pos = dst.position();
    if (dst.remaining() < keySize) {
      throw new IndexOutOfBoundsException("need " + keySize + " bytes, have " + dst.remaining());
    }
    for (int i = 0; i < numberBytes; i++) {
      dst.put(pos + i, (byte) (number >>> ((numberBytes - 1 - i) << 3)));
    }
    for (int i = numberBytes; i < keySize; i++) {
      dst.put(pos + i, PAD);
    }
    dst.position(pos + keySize);
  }

  /**
   * The number encoded in {@code src[off, off + keySize)} (its low {@code 8 * min(keySize, 8)}
   * bits).
   */
  public long decode(byte[] src, int off) {
    long v = 0;
    for (int i = 0; i < numberBytes; i++) {
      v = (v << 8) | (src[off + i] & 0xFF);
    }
    return v;
  }
}
