package io.zkv.fs;

/**
 * How the file system uses one zone. Bytes throughout.
 *
 * @param index zone index
 * @param start device offset
 * @param capacity writable bytes
 * @param writePointer device offset of the write pointer
 * @param liveBytes bytes of live file data
 * @param lifetime the RocksDB write-lifetime hint of the data placed in it
 * @param meta whether it is a metadata zone
 * @param leased whether it is leased to an owner's own appends (a WALTZ log's zone): written, but
 *     no file's data, and not garbage
 */
public record ZoneUsage(
    int index,
    long start,
    long capacity,
    long writePointer,
    long liveBytes,
    int lifetime,
    boolean meta,
    boolean leased) {
  public long written() {
    return writePointer - start;
  }

  /** Written bytes that no live file uses any more (space a reset or GC gets back). */
  public long garbage() {
    return meta || leased ? 0 : written() - liveBytes;
  }

  public long free() {
    return capacity - written();
  }
}
