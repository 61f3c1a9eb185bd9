package io.zkv.fs;

/**
 * One metadata zone as the mount found it.
 *
 * @param zone zone index
 * @param state empty, a valid superblock, or a damaged one
 * @param sequence the superblock's roll sequence (valid ones)
 * @param problem what is wrong (damaged ones)
 */
public record MetaZone(int zone, State state, long sequence, String problem) {
  /** What the zone's first block holds. */
  public enum State {
    EMPTY,
    VALID,
    DAMAGED
  }
}
