package io.zkv.device;

import io.zkv.device.plm.PlmWindow;
import io.zkv.nativelib.BoundaryBuffer;

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
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(256);
    int rc = (int) device.onHandle(h -> EmulatedDevice.nPlmStats(h, nvmSet, out));
    ZonedDeviceException.check(rc, "PLM state of NVM Set " + nvmSet);
    BoundaryBuffer b = BoundaryBuffer.wrap(out, STATS_LAYOUT, 1, STATS_RECORD);
    int window = b.getInt(0, 0, WINDOW);
    return new SetState(
        nvmSet,
        b.getInt(0, 0, FIRST_ZONE),
        b.getInt(0, 0, NR_ZONES),
        window == 0 ? null : PlmWindow.of(window),
        b.getLong(0, 0, CLOCK_NS),
        b.getLong(0, 0, BACKLOG_NS),
        b.getLong(0, 0, CAPACITY_NS),
        b.getLong(0, 0, DIRTY_BYTES),
        b.getLong(0, 0, LAST_LOCKDOWN_NS),
        b.getLong(0, 0, LAST_LOCKDOWN_BYTES),
        b.getLong(0, 0, DTWIN_ENTRIES),
        b.getLong(0, 0, AUTONOMOUS_EXITS),
        b.getLong(0, 0, WRITES_IN_DTWIN),
        b.getLong(0, 0, READS_DETERMINISTIC),
        b.getLong(0, 0, READS_NONDETERMINISTIC),
        b.getLong(0, 0, READS_STALLED),
        b.getLong(0, 0, MAX_STALL_NS),
        b.getLong(0, 0, RECLAIM_JOBS),
        b.getLong(0, 0, GC_JOBS),
        modelledReads(b, READS_DETERMINISTIC, 0),
        modelledReads(b, READS_NONDETERMINISTIC, 8));
  }

  private static ModelledReads modelledReads(BoundaryBuffer b, int countField, int window) {
    return new ModelledReads(
        b.getLong(0, 0, countField),
        b.getLong(0, 0, MODEL_READ_SUM_NS + window),
        b.getLong(0, 0, MODEL_READ_MAX_NS + window),
        b.getLong(0, 0, MODEL_READS_OVER_200US + window));
  }

  // Boundary layout 9, version 1 (jni/boundary.h): zkv_emu_plm_stats (zkv/device.h) as the
  // record, these its fields' offsets; the model's read figures are pairs, [0] in DTWIN, [1] not.
  static final int STATS_LAYOUT = 9, STATS_RECORD = 184;
  static final int FIRST_ZONE = 0, NR_ZONES = 4, WINDOW = 8, CLOCK_NS = 16, BACKLOG_NS = 24;
  static final int CAPACITY_NS = 32, DIRTY_BYTES = 40, LAST_LOCKDOWN_NS = 48;
  static final int LAST_LOCKDOWN_BYTES = 56, DTWIN_ENTRIES = 64, AUTONOMOUS_EXITS = 72;
  static final int WRITES_IN_DTWIN = 80, READS_DETERMINISTIC = 88, READS_NONDETERMINISTIC = 96;
  static final int READS_STALLED = 104, MAX_STALL_NS = 112, RECLAIM_JOBS = 120, GC_JOBS = 128;
  static final int MODEL_READ_SUM_NS = 136, MODEL_READ_MAX_NS = 152, MODEL_READS_OVER_200US = 168;

  /** Moves the virtual window clock forward ({@code clock=manual} only). */
  public void advanceClock(long nanos) throws ZonedDeviceException {
    int rc = (int) device.onHandle(h -> EmulatedDevice.nPlmAdvance(h, nanos));
    ZonedDeviceException.check(rc, "advance the PLM window clock (needs clock=manual)");
  }
}
