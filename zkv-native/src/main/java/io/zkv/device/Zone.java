package io.zkv.device;

/**
 * One zone descriptor of a zone report. Offsets are bytes.
 *
 * @param index zone number
 * @param start byte offset of the zone's first block
 * @param capacity writable bytes (at most the zone size)
 * @param writePointer byte offset where the next write must go
 * @param condition the zone's condition
 */
public record Zone(
    int index, long start, long capacity, long writePointer, ZoneCondition condition) {
  /** Bytes written so far. */
  public long written() {
    return writePointer - start;
  }

  /** Bytes still writable. */
  public long remaining() {
    return condition == ZoneCondition.FULL ? 0 : capacity - written();
  }
}
