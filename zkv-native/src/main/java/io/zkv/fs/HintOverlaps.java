package io.zkv.fs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How well a compaction output's key-range hint stands for its true range, in the terms CAZA uses
 * it (issue 25, item 2): per compaction output, the SSTs of the next level (L+1) its hint range
 * overlaps against those its own range overlaps. The hint is what the policy got when the output's
 * first zone was chosen: the union of the compaction's inputs' ranges, starting at the output's own
 * first key where its first write-out showed it (rocks/sst_first_key.h). The output's own range
 * comes from RocksDB's live-file metadata once the compaction is installed (the view shows it with
 * job id -1, {@link ZoneView#fileJob}); both are counted against the same L+1 files, the ones live
 * when the output's zone was chosen. An output's range lies within its inputs' union, so its own
 * count does not exceed the union's; a hint started at the first data key can miss a range
 * tombstone's start before it (DeleteRange), and then count fewer than the file's own range.
 *
 * <p>Counted: outputs below the bottom level only (an output with no L+1 files is left out);
 * outputs deleted or not seen written within {@link #PENDING_LIMIT} later outputs stay unresolved
 * (counted). Keys compare bytewise (RocksDB's default comparator, as the zone view assumes).
 */
final class HintOverlaps {
  /** Outputs awaiting their own range; far more than compactions write at once. */
  static final int PENDING_LIMIT = 4096;

  /** One output: its hint's count and the L+1 ranges (smallest, largest pairs) it overlaps. */
  private record Pending(int hintOverlaps, List<byte[][]> nextLevel) {}

  private final Map<Long, Pending> pending =
      new LinkedHashMap<>(PENDING_LIMIT * 2, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Pending> eldest) {
          boolean evict = size() > PENDING_LIMIT;
          if (evict) {
            unresolved++;
          }
          return evict;
        }
      };

  /** Outputs seen (pending or resolved), so that an output's later zones are not counted again. */
  private final Map<Long, Boolean> seen =
      new LinkedHashMap<>(PENDING_LIMIT * 4, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
          return size() > 2 * PENDING_LIMIT;
        }
      };

  private long outputs;
  private long hintOverlaps;
  private long ownOverlaps;
  private long coarse;
  private long unresolved;

  /** Resolves the outputs the view shows written, then records the request if it is an output. */
  synchronized void observe(ZoneView view) {
    if (!pending.isEmpty()) {
      resolve(view);
    }
    if (!view.hasRequest()) {
      return;
    }
    long id = view.requestFileId();
    byte[] smallest = view.requestSmallest();
    byte[] largest = view.requestLargest();
    int level = view.requestLevel();
    if (view.requestInputs().length == 0
        || view.requestForGc()
        || level < 0
        || smallest == null
        || largest == null
        || seen.putIfAbsent(id, Boolean.TRUE) != null) {
      return;
    }
    List<byte[][]> next = new ArrayList<>();
    boolean anyNextLevel = false;
    for (int f = 0; f < view.fileCount(); f++) {
      byte[] s = view.fileSmallest(f);
      byte[] l = view.fileLargest(f);
      if (view.fileLevel(f) != level + 1 || view.fileJob(f) >= 0 || s == null || l == null) {
        continue;
      }
      anyNextLevel = true;
      if (overlaps(s, l, smallest, largest)) {
        next.add(new byte[][] {s, l});
      }
    }
    if (anyNextLevel) {
      pending.put(id, new Pending(next.size(), next));
    }
  }

  private void resolve(ZoneView view) {
    for (int f = 0; f < view.fileCount() && !pending.isEmpty(); f++) {
      long id = view.fileId(f);
      if (view.fileJob(f) >= 0 || !pending.containsKey(id)) {
        continue;
      }
      byte[] s = view.fileSmallest(f);
      byte[] l = view.fileLargest(f);
      if (s == null || l == null) {
        continue;
      }
      Pending p = pending.remove(id);
      int own = 0;
      for (byte[][] r : p.nextLevel()) {
        own += overlaps(r[0], r[1], s, l) ? 1 : 0;
      }
      outputs++;
      hintOverlaps += p.hintOverlaps();
      ownOverlaps += own;
      coarse += p.hintOverlaps() > own ? 1 : 0;
    }
  }

  static boolean overlaps(byte[] s1, byte[] l1, byte[] s2, byte[] l2) {
    return Arrays.compareUnsigned(s1, l2) <= 0 && Arrays.compareUnsigned(s2, l1) <= 0;
  }

  synchronized HintOverlapCounts counts() {
    return new HintOverlapCounts(
        outputs, hintOverlaps, ownOverlaps, coarse, unresolved + pending.size());
  }
}
