package io.zkv.fs;

import io.zkv.nativelib.BoundaryBuffer;
import java.nio.ByteBuffer;

/**
 * The files under a path (a database's directory) in the zone file system.
 *
 * @param files names under the path (a file with two names there counts twice)
 * @param bytes their bytes (the files' sizes: live data in zones)
 * @param sstFiles those of SST files ({@code .sst})
 * @param sstBytes their bytes
 */
public record PathUsage(long files, long bytes, long sstFiles, long sstBytes) {
  static final int FIELDS = 4;
  static final int LAYOUT = 8;
  static final int VERSION = 1;

  /**
   * Reads a path-usage buffer of the typed native boundary (docs/formats/native-boundary.md).
   *
   * @throws IllegalStateException if it is not one of this version
   */
  public static PathUsage read(ByteBuffer buffer) {
    long[] v =
        BoundaryBuffer.wrap(buffer, LAYOUT, VERSION, FIELDS * Long.BYTES).getLongs(0, 0, FIELDS);
    return new PathUsage(v[0], v[1], v[2], v[3]);
  }
}
