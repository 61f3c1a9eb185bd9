package io.zkv.bench.workload;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * Value bytes that compress to about a given fraction, served from one preallocated buffer.
 *
 * <p>Source: {@code RandomGenerator} in RocksDB {@code tools/db_bench_tool.cc} with {@code
 * test::CompressibleString} and {@code test::RandomString} ({@code test_util/testutil.cc}). The
 * buffer holds at least {@code max(1 MiB, maxValueSize)} bytes made of 100-byte pieces; each piece
 * is {@code raw = max(1, (int) (100 * compressionRatio))} random printable characters ({@code ' ' +
 * uniform(95)}) repeated to fill 100 bytes, so a compressor that finds the repeats shrinks the data
 * to about {@code compressionRatio} (db_bench's {@code --compression_ratio}, default 0.5). {@link
 * #next(int)} hands out consecutive slices and wraps to the start when a value would run past the
 * end. Deviation: db_bench seeds its generator with {@code Random(301)}; this class takes a seed,
 * so the bytes differ but the structure is the same. WALTZ and ZWAL ran with compression off, where
 * only the value size matters.
 *
 * <p>Not thread-safe (db_bench also keeps one per thread).
 */
public final class ValueGenerator {
  /** db_bench's default {@code --compression_ratio}. */
  public static final double DEFAULT_COMPRESSION_RATIO = 0.5;

  static final int PIECE = 100;
  private static final int MIN_BUFFER = 1 << 20;

  private final byte[] data;
  private final double compressionRatio;
  private int pos;

  /** A buffer for values up to {@code maxValueSize} bytes. */
  public ValueGenerator(double compressionRatio, int maxValueSize, long seed) {
    if (!(compressionRatio > 0 && compressionRatio <= 1)) {
      throw new IllegalArgumentException("compressionRatio must be in (0, 1]: " + compressionRatio);
    }
    if (maxValueSize < 0) {
      throw new IllegalArgumentException("maxValueSize must be non-negative");
    }
    this.compressionRatio = compressionRatio;
    int target = Math.max(MIN_BUFFER, maxValueSize);
    int pieces = (target + PIECE - 1) / PIECE;
    data = new byte[pieces * PIECE];
    SplittableRandom rnd = new SplittableRandom(seed);
    int raw = Math.max(1, (int) (PIECE * compressionRatio));
    for (int p = 0; p < pieces; p++) {
      int base = p * PIECE;
      for (int i = 0; i < raw; i++) {
        data[base + i] = (byte) (' ' + rnd.nextInt(95));
      }
      for (int i = raw; i < PIECE; i++) {
        data[base + i] = data[base + i - raw];
      }
    }
  }

  public double compressionRatio() {
    return compressionRatio;
  }

  /**
   * Reserves the next {@code len} bytes and returns their offset in {@link #buffer()}, as
   * db_bench's {@code Generate(len)}.
   */
  public int next(int len) {
    if (len < 0 || len > data.length) {
      throw new IllegalArgumentException("len out of [0, " + data.length + "]: " + len);
    }
    if (pos + len > data.length) {
      pos = 0;
    }
    int off = pos;
    pos += len;
    return off;
  }

  /** Copies the next {@code len} value bytes into {@code dst[off, off + len)}. */
  public void next(byte[] dst, int off, int len) {
    System.arraycopy(data, next(len), dst, off, len);
  }

  /** Puts the next {@code len} value bytes at {@code dst}'s position, advancing it. */
  public void next(ByteBuffer dst, int len) {
    dst.put(data, next(len), len);
  }

  /** The backing buffer; read it, never write it. */
  public byte[] buffer() {
    return data;
  }
}
