package io.zkv.bench.driver;

import io.zkv.Compression;
import io.zkv.ZkvOptions;
import io.zkv.cli.Arguments;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.rocksdb.CompactionPriority;
import org.rocksdb.Env;
import org.rocksdb.Options;

/**
 * The shape of the LSM tree a configuration runs with, for both targets: SST target size, level
 * base, dynamic level bytes, compression, background jobs, subcompactions, compaction priority.
 * What is not set (0 or null) is RocksDB's own default, so a report states every value RocksDB ran
 * with ({@link #describe()} reads them back from the options), not only those given. RocksDB
 * 9.7.3's defaults: 64 MiB target files, a 256 MiB level base, dynamic level bytes on, 2 background
 * jobs, 1 subcompaction (none); zkv's compression default is Snappy (RocksDB's).
 *
 * @param targetFileSize {@code target_file_size_base} in bytes, 0 for RocksDB's
 * @param levelBase {@code max_bytes_for_level_base} in bytes, 0 for RocksDB's
 * @param dynamicLevels {@code level_compaction_dynamic_level_bytes}, null for RocksDB's
 * @param compression SST compression, null for zkv's default
 * @param backgroundJobs {@code max_background_jobs}, 0 for RocksDB's
 * @param subcompactions {@code max_subcompactions}, 0 for RocksDB's (1: a compaction runs as one)
 * @param compactionPri {@code compaction_pri}, null for RocksDB's ({@code kMinOverlappingRatio})
 */
public record LsmShape(
    long targetFileSize,
    long levelBase,
    Boolean dynamicLevels,
    Compression compression,
    int backgroundJobs,
    int subcompactions,
    CompactionPriority compactionPri) {

  /** Everything RocksDB's (and zkv's) default. */
  public static final LsmShape DEFAULTS = new LsmShape(0, 0, null, null, 0, 0, null);

  /** The keys (and {@code --} options) that set the shape. */
  public static final List<String> KEYS =
      List.of(
          "target-file-size",
          "level-base",
          "dynamic-levels",
          "compression",
          "background-jobs",
          "subcompactions",
          "compaction-pri");

  /**
   * This shape with {@code key} set to {@code value}.
   *
   * @throws IllegalArgumentException for an unknown key or a value out of range, naming the range
   */
  public LsmShape with(String key, String value) {
    String v = value.trim();
    Draft d = new Draft(this);
    switch (key) {
      case "target-file-size" -> d.targetFileSize = size(key, v, 64L << 10, 1L << 40);
      case "level-base" -> d.levelBase = size(key, v, 64L << 10, 1L << 44);
      case "dynamic-levels" -> d.dynamicLevels = bool(key, v);
      case "compression" -> d.compression = compression(v);
      case "background-jobs" -> d.backgroundJobs = (int) count(key, v, 1, 64);
      case "subcompactions" -> d.subcompactions = (int) count(key, v, 1, 64);
      case "compaction-pri" -> d.compactionPri = CompactionPri.parse(v);
      default ->
          throw new IllegalArgumentException(
              "unknown LSM shape key '" + key + "' (known: " + String.join(", ", KEYS) + ")");
    }
    return d.build();
  }

  /** A shape being changed one key at a time. */
  private static final class Draft {
    long targetFileSize;
    long levelBase;
    Boolean dynamicLevels;
    Compression compression;
    int backgroundJobs;
    int subcompactions;
    CompactionPriority compactionPri;

    Draft(LsmShape s) {
      targetFileSize = s.targetFileSize;
      levelBase = s.levelBase;
      dynamicLevels = s.dynamicLevels;
      compression = s.compression;
      backgroundJobs = s.backgroundJobs;
      subcompactions = s.subcompactions;
      compactionPri = s.compactionPri;
    }

    LsmShape build() {
      return new LsmShape(
          targetFileSize,
          levelBase,
          dynamicLevels,
          compression,
          backgroundJobs,
          subcompactions,
          compactionPri);
    }
  }

  /** {@code b} with what this shape sets: compression through zkv, the rest through RocksDB's. */
  ZkvOptions.Builder applyTo(ZkvOptions.Builder b) {
    return applyTo(b, null);
  }

  /**
   * Like {@link #applyTo(ZkvOptions.Builder)}, then {@code more} (null for nothing) on RocksDB's
   * options: the one tuning hook a database has does both.
   */
  ZkvOptions.Builder applyTo(ZkvOptions.Builder b, Consumer<Options> more) {
    if (compression != null) {
      b.compression(compression);
    }
    if (targetFileSize > 0
        || levelBase > 0
        || dynamicLevels != null
        || backgroundJobs > 0
        || subcompactions > 0
        || compactionPri != null
        || more != null) {
      b.rocksDbTuning(
          o -> {
            tune(o);
            if (more != null) {
              more.accept(o);
            }
          });
    }
    return b;
  }

  private void tune(Options o) {
    if (targetFileSize > 0) {
      o.setTargetFileSizeBase(targetFileSize);
    }
    if (levelBase > 0) {
      o.setMaxBytesForLevelBase(levelBase);
    }
    if (dynamicLevels != null) {
      o.setLevelCompactionDynamicLevelBytes(dynamicLevels);
    }
    if (backgroundJobs > 0) {
      o.setMaxBackgroundJobs(backgroundJobs);
    }
    if (subcompactions > 0) {
      o.setMaxSubcompactions(subcompactions);
    }
    if (compactionPri != null) {
      o.setCompactionPriority(compactionPri);
    }
  }

  /**
   * The shape RocksDB runs with, every value read back from the options this shape makes (the
   * defaults included), e.g. "LSM: target files 64 MiB, level base 256 MiB, dynamic levels on,
   * SNAPPY_COMPRESSION, 2 background jobs, 1 subcompaction, compaction priority
   * min-overlapping-ratio".
   */
  public String describe() {
    try (Options o = applyTo(ZkvOptions.builder()).build().toRocksOptions(Env.getDefault())) {
      return String.format(
          Locale.ROOT,
          "LSM: target files %s, level base %s, dynamic levels %s, %s, %d background jobs,"
              + " %d subcompaction%s, compaction priority %s",
          bytes(o.targetFileSizeBase()),
          bytes(o.maxBytesForLevelBase()),
          o.levelCompactionDynamicLevelBytes() ? "on" : "off",
          o.compressionType(),
          o.maxBackgroundJobs(),
          o.maxSubcompactions(),
          o.maxSubcompactions() == 1 ? "" : "s",
          CompactionPri.name(o.compactionPriority()));
    }
  }

  /** What this shape sets, as the command line's options (" --target-file-size 8388608 ..."). */
  String asOptions() {
    StringBuilder b = new StringBuilder();
    if (targetFileSize > 0) {
      b.append(" --target-file-size ").append(targetFileSize);
    }
    if (levelBase > 0) {
      b.append(" --level-base ").append(levelBase);
    }
    if (dynamicLevels != null) {
      b.append(" --dynamic-levels ").append(dynamicLevels);
    }
    if (compression != null) {
      b.append(" --compression ").append(compression.name().toLowerCase(Locale.ROOT));
    }
    if (backgroundJobs > 0) {
      b.append(" --background-jobs ").append(backgroundJobs);
    }
    if (subcompactions > 0) {
      b.append(" --subcompactions ").append(subcompactions);
    }
    if (compactionPri != null) {
      b.append(" --compaction-pri ").append(CompactionPri.name(compactionPri));
    }
    return b.toString();
  }

  /** Exact: in MiB or KiB where it is a whole number of them, else in bytes. */
  private static String bytes(long b) {
    if (b % (1L << 20) == 0) {
      return (b >> 20) + " MiB";
    }
    return b % (1L << 10) == 0 ? (b >> 10) + " KiB" : b + " bytes";
  }

  private static long size(String key, String v, long min, long max) {
    long n;
    try {
      n = Arguments.parseSize(v);
    } catch (NumberFormatException | ArithmeticException e) {
      n = -1;
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException(
          key + " must be a size from " + bytes(min) + " to " + bytes(max) + ", not '" + v + "'");
    }
    return n;
  }

  private static long count(String key, String v, long min, long max) {
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException(
          key + " must be a whole number from " + min + " to " + max + ", not '" + v + "'");
    }
    return n;
  }

  private static Boolean bool(String key, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "on" -> Boolean.TRUE;
      case "false", "no", "0", "off" -> Boolean.FALSE;
      default ->
          throw new IllegalArgumentException(key + " must be true or false, not '" + v + "'");
    };
  }

  private static Compression compression(String v) {
    try {
      return Compression.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "compression must be one of none, snappy, lz4, zstd, not '" + v + "'");
    }
  }
}
