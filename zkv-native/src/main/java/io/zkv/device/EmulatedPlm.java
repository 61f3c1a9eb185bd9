package io.zkv.device;

import io.zkv.device.plm.PlmWindow;

/**
 * The Predictable Latency Mode model of an emulated device with {@code profile=plm} (see {@code
 * docs/timing-model.md}): what the standard log pages do not show (the internal job queue, the
 * buffered bytes, the last lockdown), for tests and calibration, and the virtual window clock of
 * {@code clock=manual}.
 */
public final class EmulatedPlm {
  /**
   * One NVM Set as the model sees it.
   *
   * @param window null while Predictable Latency Mode is off on the set
   * @param clockNanos the window clock now (CLOCK_MONOTONIC, or the virtual clock)
   * @param backlogNanos internal work queued (suspended in DTWIN)
   * @param capacityNanos what the queue holds before the set must leave DTWIN
   * @param dirtyBytes in the DRAM buffer, flushed by the next lockdown
   * @param lastLockdownNanos the last NDWIN to DTWIN transition's lockdown
   * @param lastLockdownBytes the bytes that lockdown flushed
   * @param readsStalled reads that waited behind internal work
   * @param maxStallNanos the longest such wait
   */
  public record SetState(
      int nvmSet,
      int firstZone,
      int zoneCount,
      PlmWindow window,
      long clockNanos,
      long backlogNanos,
      long capacityNanos,
      long dirtyBytes,
      long lastLockdownNanos,
      long lastLockdownBytes,
      long dtwinEntries,
      long autonomousExits,
      long writesInDtwin,
      long readsDeterministic,
      long readsNonDeterministic,
      long readsStalled,
      long maxStallNanos,
      long reclaimJobs,
      long gcJobs) {}

  private final ZonedDevice device;

  EmulatedPlm(ZonedDevice device) {
    this.device = device;
  }

  /** The state of NVM Set {@code nvmSet} (1-based). */
  public SetState set(int nvmSet) throws ZonedDeviceException {
    long[] v = new long[19];
    long h = device.handleForCall();
    int rc;
    try {
      rc = EmulatedDevice.nPlmStats(h, nvmSet, v);
    } finally {
      device.endCall();
    }
    ZonedDeviceException.check(rc, "PLM state of NVM Set " + nvmSet);
    return new SetState(
        nvmSet,
        (int) v[0],
        (int) v[1],
        v[2] == 0 ? null : PlmWindow.of((int) v[2]),
        v[3],
        v[4],
        v[5],
        v[6],
        v[7],
        v[8],
        v[9],
        v[10],
        v[11],
        v[12],
        v[13],
        v[14],
        v[15],
        v[16],
        v[17]);
  }

  /** Moves the virtual window clock forward ({@code clock=manual} only). */
  public void advanceClock(long nanos) throws ZonedDeviceException {
    long h = device.handleForCall();
    int rc;
    try {
      rc = EmulatedDevice.nPlmAdvance(h, nanos);
    } finally {
      device.endCall();
    }
    ZonedDeviceException.check(rc, "advance the PLM window clock (needs clock=manual)");
  }
}
