package io.zkv.fs;

/**
 * Compaction outputs' key-range hints against their own ranges, in SSTs of the next level (L+1)
 * overlapped, since mount (how they are counted: {@code HintOverlaps}).
 *
 * @param outputs compaction outputs resolved (their own range known; next level not empty)
 * @param hintOverlaps L+1 SSTs their hint ranges (the requests' key ranges) overlap, summed
 * @param ownOverlaps L+1 SSTs their own ranges overlap, summed (never more than the hints')
 * @param coarse outputs whose hint overlaps more L+1 SSTs than their own range
 * @param unresolved outputs whose own range was not seen (deleted first, or still being written)
 */
public record HintOverlapCounts(
    long outputs, long hintOverlaps, long ownOverlaps, long coarse, long unresolved) {
  public static final HintOverlapCounts NONE = new HintOverlapCounts(0, 0, 0, 0, 0);

  /** The counts since {@code earlier}. */
  public HintOverlapCounts minus(HintOverlapCounts earlier) {
    return new HintOverlapCounts(
        outputs - earlier.outputs,
        hintOverlaps - earlier.hintOverlaps,
        ownOverlaps - earlier.ownOverlaps,
        coarse - earlier.coarse,
        unresolved - earlier.unresolved);
  }

  /** Hint overlaps per own overlap (1 is exact), NaN if no output overlapped anything. */
  public double ratio() {
    return ownOverlaps == 0 ? Double.NaN : (double) hintOverlaps / ownOverlaps;
  }
}
