package io.zkv.fs;

import java.util.List;

/**
 * A file of the zone file system.
 *
 * @param id file id
 * @param names its names (hard links)
 * @param size bytes
 * @param lifetime RocksDB write-lifetime hint
 * @param mtimeMicros modification time, microseconds since the epoch
 * @param extents where its data is
 */
public record FsFile(
    long id, List<String> names, long size, int lifetime, long mtimeMicros, List<Extent> extents) {
  /**
   * A contiguous piece of a file on the device.
   *
   * @param start device byte offset
   * @param length bytes
   */
  public record Extent(long start, long length) {}
}
