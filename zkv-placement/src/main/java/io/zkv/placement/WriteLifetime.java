package io.zkv.placement;

/**
 * The write-lifetime hint RocksDB attaches to a file, mirroring {@code Env::WriteLifeTimeHint} in
 * {@code include/rocksdb/env.h} value for value, so that hints cross the native boundary as plain
 * integers and LIZA's arithmetic on them ({@code GetLifeTimeDiff}) stays the same.
 *
 * <p>What RocksDB 9.7.3 and 10.1.3 pass (10.1.3 by default): the WAL gets {@link #SHORT}; a flush
 * to L0 {@link #MEDIUM}; a level-style compaction output {@code MEDIUM + (level - base_level)},
 * capped at {@link #EXTREME}; other compaction styles, the MANIFEST, OPTIONS and the rest {@link
 * #NOT_SET}. (RocksDB 10's C++ option {@code calculate_sst_write_lifetime_hint_set} can add hints
 * for universal compaction; RocksJava 10.1.3 does not expose it.)
 */
public enum WriteLifetime {
  /** No hint given (RocksDB's default for everything but the WAL and level-style SSTs). */
  NOT_SET(0),
  /** Explicitly "no particular lifetime". */
  NONE(1),
  /** Short-lived: the WAL. */
  SHORT(2),
  /** L0 flushes and outputs at the base level. */
  MEDIUM(3),
  /** One level below the base level. */
  LONG(4),
  /** Two or more levels below the base level. */
  EXTREME(5);

  private static final WriteLifetime[] BY_VALUE = values();

  private final int value;

  WriteLifetime(int value) {
    this.value = value;
  }

  /** The integer RocksDB uses for this hint. */
  public int value() {
    return value;
  }

  /**
   * The hint with RocksDB's integer {@code value}.
   *
   * @throws IllegalArgumentException if {@code value} is not 0..5
   */
  public static WriteLifetime fromValue(int value) {
    if (value < 0 || value >= BY_VALUE.length) {
      throw new IllegalArgumentException(
          "write lifetime hint must be 0..5 (Env::WriteLifeTimeHint), not " + value);
    }
    return BY_VALUE[value];
  }
}
