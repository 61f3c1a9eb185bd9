package io.zkv.fs;

/**
 * Garbage collection's counters since the file system was formatted ({@link ZoneStats#gcTotals}).
 *
 * @param runs GC runs that emptied a zone
 * @param zones zones GC emptied
 * @param bytes bytes GC copied
 * @param resets zone resets
 * @param resetsWithoutCopy of those, the ones that copied nothing
 * @param finishes zones the file system finished
 */
public record GcTotals(
    long runs, long zones, long bytes, long resets, long resetsWithoutCopy, long finishes) {
  static final int FIELDS = 6;

  static GcTotals of(long[] v, int from) {
    return new GcTotals(v[from], v[from + 1], v[from + 2], v[from + 3], v[from + 4], v[from + 5]);
  }
}
