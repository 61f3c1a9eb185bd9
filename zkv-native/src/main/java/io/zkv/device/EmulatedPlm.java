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
   * @param modelDeterministic the model's service times of the reads served in DTWIN
   * @param modelNonDeterministic the same outside DTWIN (NDWIN or PLM off)
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
      long gcJobs,
      ModelledReads modelDeterministic,
      ModelledReads modelNonDeterministic) {}

  /**
   * The model's own service times of a set's reads (submission to modelled completion), exact
   * whatever the host's load.
   *
   * @param count reads
   * @param sumNanos their modelled times added up
   * @param maxNanos the longest
   * @param over200Micros how many took more than 200 us
   */
  public record ModelledReads(long count, long sumNanos, long maxNanos, long over200Micros) {
    /** Mean in microseconds (0 without reads). */
    public double meanMicros() {
      return count == 0 ? 0 : sumNanos / 1e3 / count;
    }
  }

  private final ZonedDevice device;

  EmulatedPlm(ZonedDevice device) {
    this.device = device;
  }

  /** The state of NVM Set {@code nvmSet} (1-based). */
  public SetState set(int nvmSet) throws ZonedDeviceException {
    long[] v = new long[25];
    int rc = (int) device.onHandle(h -> EmulatedDevice.nPlmStats(h, nvmSet, v));
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
        v[17],
        new ModelledReads(v[12], v[18], v[20], v[22]),
        new ModelledReads(v[13], v[19], v[21], v[23]));
  }

  /** Moves the virtual window clock forward ({@code clock=manual} only). */
  public void advanceClock(long nanos) throws ZonedDeviceException {
    int rc = (int) device.onHandle(h -> EmulatedDevice.nPlmAdvance(h, nanos));
    ZonedDeviceException.check(rc, "advance the PLM window clock (needs clock=manual)");
  }
}
