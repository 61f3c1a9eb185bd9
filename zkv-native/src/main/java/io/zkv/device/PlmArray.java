package io.zkv.device;

import io.zkv.device.plm.PlmWindow;

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
    long[] v = new long[13];
    int rc = (int) device.onHandle(h -> nStats(h, nvmSet, v));
    ZonedDeviceException.check(rc, "plmarray state of NVM Set " + nvmSet);
    return new SetBacklog(
        nvmSet,
        v[0] == 0 ? null : PlmWindow.of((int) v[0]),
        v[1],
        v[2],
        v[3],
        v[4],
        v[5],
        v[6],
        v[7],
        v[8],
        v[9],
        v[10],
        v[11],
        v[12]);
  }

  private static native int nStats(long h, int set, long[] out);
}
