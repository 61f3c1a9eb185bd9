package io.zkv.bench.driver;

import io.zkv.placement.FileInfo;
import io.zkv.placement.ZoneInfo;
import io.zkv.placement.ZoneReservation;
import io.zkv.placement.ZoneTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The data zones in use at one moment by the LSM level of the data they hold: where the zone space
 * a placement leaves unused sits (ZoneKV's "zones used" by class). A zone counts for the level
 * holding most of its live bytes (the lower level on a tie); the WAL, the MANIFEST and RocksDB's
 * other files (and a WAL implementation's own zones) as {@code logs}; an SST of no known level as
 * {@code L?}; a written zone with no live byte left as {@code dead} (its reset pending). A zone is
 * mixed when its live data belongs to more than one of these groups.
 *
 * @param groups by group key ({@link #LOGS}, the level, {@link #UNKNOWN_LEVEL}, {@link #DEAD}), in
 *     that order
 */
public record ZoneLevels(Map<Integer, Group> groups) {
  static final int LOGS = -1;
  static final int UNKNOWN_LEVEL = 1000;
  static final int DEAD = 1001;

  /**
   * One group's zones.
   *
   * @param zones zones in use
   * @param written bytes written in them
   * @param live live bytes in them
   * @param capacity their capacity
   * @param mixed of those zones, the ones holding live data of another group too
   */
  public record Group(int zones, long written, long live, long capacity, int mixed) {
    Group plus(ZoneInfo z, boolean isMixed) {
      return new Group(
          zones + 1,
          written + z.written(),
          live + z.liveBytes(),
          capacity + z.capacity(),
          mixed + (isMixed ? 1 : 0));
    }

    /** Zone space not holding live data: (capacity - live) / capacity, in percent. */
    public double unusedPercent() {
      return capacity == 0 ? 0 : 100.0 * (capacity - live) / capacity;
    }

    /**
     * Of that, the share never written (zones finished or still open before their end), in percent
     * of the capacity; the rest is dead data.
     */
    public double unwrittenPercent() {
      return capacity == 0 ? 0 : 100.0 * (capacity - written) / capacity;
    }
  }

  /** The data zones of {@code table} that are not empty, grouped. */
  public static ZoneLevels of(ZoneTable table) {
    Map<Integer, Group> groups = new TreeMap<>();
    for (int i = 0; i < table.zoneCount(); i++) {
      ZoneInfo z = table.zone(i);
      if (z.reservation() == ZoneReservation.METADATA || z.written() == 0) {
        continue;
      }
      Map<Integer, Long> liveByGroup = new TreeMap<>();
      if (z.reservation() == ZoneReservation.WAL) {
        liveByGroup.put(LOGS, z.liveBytes());
      }
      for (long file : table.filesIn(i)) {
        liveByGroup.merge(
            groupOf(table.file(file).orElse(null)), table.liveBytes(i, file), Long::sum);
      }
      liveByGroup.values().removeIf(bytes -> bytes <= 0);
      int key = DEAD;
      long most = 0;
      for (Map.Entry<Integer, Long> e : liveByGroup.entrySet()) { // ascending: lower wins a tie
        if (e.getValue() > most) {
          most = e.getValue();
          key = e.getKey();
        }
      }
      Group g = groups.getOrDefault(key, new Group(0, 0, 0, 0, 0));
      groups.put(key, g.plus(z, liveByGroup.size() > 1));
    }
    return new ZoneLevels(java.util.Collections.unmodifiableMap(groups));
  }

  private static int groupOf(FileInfo f) {
    if (f == null || !f.kind().isData()) {
      return LOGS;
    }
    return f.level().isPresent() ? f.level().getAsInt() : UNKNOWN_LEVEL;
  }

  /** Zones in use in all groups. */
  public int zones() {
    return groups.values().stream().mapToInt(Group::zones).sum();
  }

  /**
   * E.g. "L2 14 zones (31% unused, 2 mixed), L3 120 zones (45% unused), logs 2 zones (60% unused)":
   * per group the zones and the share of their capacity not holding live data.
   */
  public String describe() {
    if (groups.isEmpty()) {
      return "none in use";
    }
    List<String> parts = new ArrayList<>();
    groups.forEach(
        (key, g) ->
            parts.add(
                String.format(
                    Locale.ROOT,
                    "%s %d zone%s (%.0f%% unused, %.0f%% unwritten%s)",
                    name(key),
                    g.zones(),
                    g.zones() == 1 ? "" : "s",
                    g.unusedPercent(),
                    g.unwrittenPercent(),
                    g.mixed() == 0 ? "" : ", " + g.mixed() + " mixed")));
    return String.join(", ", parts);
  }

  private static String name(int key) {
    return switch (key) {
      case LOGS -> "logs";
      case UNKNOWN_LEVEL -> "L?";
      case DEAD -> "dead";
      default -> "L" + key;
    };
  }
}
