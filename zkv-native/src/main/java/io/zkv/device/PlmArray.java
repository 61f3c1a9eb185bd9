package io.zkv.device;

import io.zkv.device.plm.PlmWindow;
import io.zkv.nativelib.BoundaryBuffer;

/**
 * A {@code plmarray:} device (see {@code docs/plm.md}): the NVM Sets of one PLM device composed
 * into one zoned device. What the array holds for each set, read by the window driver at its
 * decisions (one native call per set, never per I/O).
 */
public final class PlmArray {
  /**
   * One NVM Set as the array sees it.
   *
   * @param window as the array last saw it (from the window requests and logs sent through it);
   *     null while Predictable Latency Mode is off on the set
   * @param heldWrites writes held for the set now (it is in DTWIN)
   * @param heldBytes their bytes: the set's backlog for its next NDWIN
   * @param holdCapacity the buffer's limit, over all sets
   * @param writesForced writes that went into a DTWIN because the buffer was full
   * @param readsReconstructed chunk reads rebuilt from the other sets (this set in NDWIN)
   * @param journalBytes the meta set (1) only: bytes written to the array's journal
   * @param writesUnscheduled kv-sets with PLM on: writes that reached the set outside an NDWIN the
   *     host asked for (into a DTWIN, which they ended, or into the NDWIN such a write or the
   *     device started)
   */
  public record SetBacklog(
      int nvmSet,
      PlmWindow window,
      long heldWrites,
      long heldBytes,
      long holdCapacity,
      long writesDirect,
      long writesHeld,
      long bytesDrained,
      long writesForced,
      long readsDirect,
      long readsReconstructed,
      long readsFromBuffer,
      long journalBytes,
      long writesUnscheduled) {}

  private final ZonedDevice device;

  PlmArray(ZonedDevice device) {
    this.device = device;
  }

  /** NVM Set {@code nvmSet} (1-based; 1 is the meta set). */
  public SetBacklog set(int nvmSet) throws ZonedDeviceException {
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(160);
    int rc = (int) device.onHandle(h -> nStats(h, nvmSet, out));
    ZonedDeviceException.check(rc, "plmarray state of NVM Set " + nvmSet);
    BoundaryBuffer b = BoundaryBuffer.wrap(out, STATS_LAYOUT, 1, STATS_RECORD);
    int window = b.getInt(0, 0, WINDOW);
    return new SetBacklog(
        nvmSet,
        window == 0 ? null : PlmWindow.of(window),
        Integer.toUnsignedLong(b.getInt(0, 0, HELD_WRITES)),
        b.getLong(0, 0, HELD_BYTES),
        b.getLong(0, 0, HOLD_CAPACITY),
        b.getLong(0, 0, WRITES_DIRECT),
        b.getLong(0, 0, WRITES_HELD),
        b.getLong(0, 0, BYTES_DRAINED),
        b.getLong(0, 0, WRITES_FORCED),
        b.getLong(0, 0, READS_DIRECT),
        b.getLong(0, 0, READS_RECONSTRUCTED),
        b.getLong(0, 0, READS_FROM_BUFFER),
        b.getLong(0, 0, JOURNAL_BYTES),
        b.getLong(0, 0, WRITES_UNSCHEDULED));
  }

  // Boundary layout 10, version 1 (jni/boundary.h): zkv_plm_array_stats (zkv/device.h) as the
  // record, these its fields' offsets.
  static final int STATS_LAYOUT = 10, STATS_RECORD = 96;
  static final int WINDOW = 0, HELD_WRITES = 4, HELD_BYTES = 8, HOLD_CAPACITY = 16;
  static final int WRITES_DIRECT = 24, WRITES_HELD = 32, BYTES_DRAINED = 40, WRITES_FORCED = 48;
  static final int READS_DIRECT = 56, READS_RECONSTRUCTED = 64, READS_FROM_BUFFER = 72;
  static final int JOURNAL_BYTES = 80, WRITES_UNSCHEDULED = 88;

  private static native int nStats(long h, int set, java.nio.ByteBuffer out);
}
