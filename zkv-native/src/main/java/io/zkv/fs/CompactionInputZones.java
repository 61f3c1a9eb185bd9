package io.zkv.fs;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many zones hold each compaction's input SSTs, CAZA's Fig. 6(a) ("zones holding the SSTs
 * deleted by one compaction": the zones one compaction turns garbage into). Counted at a
 * compaction's first output allocation, from the zone view the placement policy is given: the
 * inputs are still live then, and where GC moves one later its zones are what they were when the
 * compaction began. One count per job: RocksDB's job id within the database's directory (job ids
 * restart at every open and each database has its own); a job seen again (its later outputs) is
 * skipped.
 */
final class CompactionInputZones {
  /** Job ids remembered to skip a compaction's later outputs; far more than run at once. */
  private static final int JOBS_REMEMBERED = 256;

  private final AtomicLong compactions = new AtomicLong();
  private final AtomicLong zones = new AtomicLong();
  private final Map<String, Boolean> seen =
      new LinkedHashMap<>(JOBS_REMEMBERED * 2, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > JOBS_REMEMBERED;
        }
      };

  /** Counts the request's compaction, if it is one not seen before, from the view. */
  void count(ZoneView view) {
    long[] inputs = view.requestInputs();
    long job = view.requestJob();
    if (inputs.length == 0 || job < 0 || view.requestForGc()) {
      return;
    }
    String name = view.requestFileName();
    String key = name.substring(0, Math.max(0, name.lastIndexOf('/'))) + "#" + job;
    synchronized (seen) {
      if (seen.putIfAbsent(key, Boolean.TRUE) != null) {
        return;
      }
    }
    Set<Long> in = new HashSet<>();
    for (long id : inputs) {
      in.add(id);
    }
    Set<Integer> holding = new HashSet<>();
    for (int k = 0; k < view.zoneFileCount(); k++) {
      if (view.zoneFileLive(k) > 0 && in.contains(view.zoneFileId(k))) {
        holding.add(view.zoneFileZone(k));
      }
    }
    zones.addAndGet(holding.size());
    compactions.incrementAndGet();
  }

  /** Compactions counted. */
  long compactions() {
    return compactions.get();
  }

  /** Zones holding their inputs, summed over them. */
  long zones() {
    return zones.get();
  }
}
