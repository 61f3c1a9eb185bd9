package io.zkv.fs;

/**
 * How many zones held each compaction's input SSTs (CAZA's Fig. 6(a)), as the placement call-out
 * saw them since mount: counted at each compaction's first output allocation.
 *
 * @param compactions compactions counted
 * @param zones the zones holding their inputs, summed
 */
public record CompactionZones(long compactions, long zones) {
  /** Zones per compaction, NaN if none was counted. */
  public double perCompaction() {
    return compactions == 0 ? Double.NaN : (double) zones / compactions;
  }
}
