package io.zkv.bench.driver;

import io.zkv.device.EmulatedPlm;
import io.zkv.device.PlmArray;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;

/**
 * A snapshot of what a {@code plmarray:} device and the emulated PLM device under it counted over
 * the kv-sets (NVM Sets 2 and up; docs/plm.md), for the ablation ladder's figures.
 *
 * @param chunkReadsDirect chunk reads the array served from the chunk's own set
 * @param chunkReadsRebuilt chunk reads it rebuilt from the other sets (the chunk's set in NDWIN)
 * @param chunkReadsBuffered chunk reads served from the held-write buffer alone
 * @param writesDirect write pieces that went straight to their set
 * @param writesHeld write pieces held for their set's NDWIN
 * @param writesForced write pieces written into a DTWIN because the buffer was full
 * @param writesUnscheduled write pieces that reached a set with PLM on outside an NDWIN the host
 *     asked for (into a DTWIN, ending it, or into the NDWIN such a write or the device started)
 * @param dtwinEntries DTWINs the sets entered
 * @param autonomousExits DTWINs the device ended on its own (a write, its maximum, a full queue)
 * @param deviceReads reads the device served on the kv-sets
 * @param deviceReadsOutsideDtwin of them, served by a set not in DTWIN (NDWIN or PLM off)
 * @param deviceReadsStalled reads that waited behind internal work
 * @param modelReadsOver200us reads whose modelled service time exceeded 200 us
 */
public record PlmCounters(
    long chunkReadsDirect,
    long chunkReadsRebuilt,
    long chunkReadsBuffered,
    long writesDirect,
    long writesHeld,
    long writesForced,
    long writesUnscheduled,
    long dtwinEntries,
    long autonomousExits,
    long deviceReads,
    long deviceReadsOutsideDtwin,
    long deviceReadsStalled,
    long modelReadsOver200us) {

  /** The counters of {@code device}'s kv-sets now; null if it is not a {@code plmarray:}. */
  static PlmCounters of(ZonedDevice device) throws ZonedDeviceException {
    if (!device.isPlmArray()) {
      return null;
    }
    PlmArray array = device.plmArray();
    EmulatedPlm plm = device.emulatedPlm();
    long[] sum = new long[13];
    for (int set = 2; ; set++) {
      PlmArray.SetBacklog b;
      try {
        b = array.set(set);
      } catch (ZonedDeviceException e) {
        break; // past the last set
      }
      EmulatedPlm.SetState s = plm.set(set);
      long[] v = {
        b.readsDirect(),
        b.readsReconstructed(),
        b.readsFromBuffer(),
        b.writesDirect(),
        b.writesHeld(),
        b.writesForced(),
        b.writesUnscheduled(),
        s.dtwinEntries(),
        s.autonomousExits(),
        s.readsDeterministic() + s.readsNonDeterministic(),
        s.readsNonDeterministic(),
        s.readsStalled(),
        s.modelDeterministic().over200Micros() + s.modelNonDeterministic().over200Micros()
      };
      for (int i = 0; i < v.length; i++) {
        sum[i] += v[i];
      }
    }
    return new PlmCounters(
        sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7], sum[8], sum[9], sum[10],
        sum[11], sum[12]);
  }

  /** What happened between {@code before} and this snapshot. */
  PlmCounters since(PlmCounters before) {
    return new PlmCounters(
        chunkReadsDirect - before.chunkReadsDirect,
        chunkReadsRebuilt - before.chunkReadsRebuilt,
        chunkReadsBuffered - before.chunkReadsBuffered,
        writesDirect - before.writesDirect,
        writesHeld - before.writesHeld,
        writesForced - before.writesForced,
        writesUnscheduled - before.writesUnscheduled,
        dtwinEntries - before.dtwinEntries,
        autonomousExits - before.autonomousExits,
        deviceReads - before.deviceReads,
        deviceReadsOutsideDtwin - before.deviceReadsOutsideDtwin,
        deviceReadsStalled - before.deviceReadsStalled,
        modelReadsOver200us - before.modelReadsOver200us);
  }

  /** Percent of the array's chunk reads that were rebuilt from the other sets (NaN: none). */
  public double rebuiltPercent() {
    return percent(chunkReadsRebuilt, chunkReadsDirect + chunkReadsRebuilt + chunkReadsBuffered);
  }

  /**
   * Percent of the kv-sets' internal writes (flush, compaction and GC pieces) done where the host
   * meant a DTWIN to be: written outside an NDWIN the host asked for (breaking the set's DTWIN, or
   * in the NDWIN that break started). NaN when no set entered a DTWIN (PLM off) or nothing was
   * written.
   */
  public double writesInDtwinPercent() {
    return dtwinEntries == 0
        ? Double.NaN
        : percent(writesUnscheduled, writesDirect + writesHeld + writesForced);
  }

  /** Percent of the kv-sets' device reads served outside DTWIN, where internal work can stall. */
  public double readsOutsideDtwinPercent() {
    return percent(deviceReadsOutsideDtwin, deviceReads);
  }

  private static double percent(long part, long whole) {
    return whole == 0 ? Double.NaN : 100.0 * part / whole;
  }
}
