package io.zkv.bench.driver;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.rocksdb.CompactionPriority;

/**
 * The names {@code --compaction-pri} takes for RocksDB's {@code compaction_pri}: RocksJava's enum
 * names in lower case with dashes ({@code round-robin} is {@code kRoundRobin}, which picks a
 * level's SSTs to compact in key order: ZoneKV's "horizontal partitioning" assumes it).
 */
final class CompactionPri {
  private CompactionPri() {}

  /** "RoundRobin" -> "round-robin". */
  static String name(CompactionPriority p) {
    return p.name().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /**
   * The priority named {@code v}.
   *
   * @throws IllegalArgumentException listing the valid names
   */
  static CompactionPriority parse(String v) {
    for (CompactionPriority p : CompactionPriority.values()) {
      if (name(p).equals(v.toLowerCase(Locale.ROOT))) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "compaction-pri must be one of "
            + Arrays.stream(CompactionPriority.values())
                .map(CompactionPri::name)
                .collect(Collectors.joining(", "))
            + ", not '"
            + v
            + "'");
  }
}
