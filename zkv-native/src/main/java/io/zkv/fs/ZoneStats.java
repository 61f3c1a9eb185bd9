package io.zkv.fs;

import io.zkv.nativelib.BoundaryBuffer;
import java.nio.ByteBuffer;

/**
 * Zone file system counters.
 *
 * @param hostBytes file data written for RocksDB
 * @param paddingBytes block padding written when syncing partial blocks
 * @param gcBytes data copied by garbage collection
 * @param metaBytes metadata log bytes
 * @param resets zone resets
 * @param resetsWithoutCopy resets that needed no GC copy
 * @param metaRolls metadata log rolls
 * @param liveBytes bytes of live file data
 * @param usedZoneBytes bytes below the write pointers of data zones
 * @param files files
 * @param dataZones data zones
 * @param emptyZones empty data zones
 * @param fullZones full data zones
 * @param openZones partially written data zones
 * @param ownedZones zones held by a file being written (the open tokens in use)
 * @param policyDecisions zone allocations the placement policy decided since mount
 * @param fallbackAllocations allocations the file system decided itself since mount, overriding the
 *     policy: it found no zone (NeedGc, NoSpace) while a zone had room, or asked for an empty zone
 *     the reserves keep
 * @param zoneSteals zones the file system took from an idle writer since mount, overriding the
 *     policy's wait for a token that only idle writers held
 * @param policyDecisionsTotal {@code policyDecisions} since the file system was formatted, as the
 *     metadata log counts them (earlier mounts' counts are recorded at every log roll and clean
 *     unmount; a crash loses those since)
 * @param fallbackAllocationsTotal {@code fallbackAllocations} since format, likewise
 * @param zoneStealsTotal {@code zoneSteals} since format, likewise
 * @param deviceErrors failures the device returned to any of its users since it was opened (reads,
 *     writes, appends, flushes, zone management, reports; counted natively)
 * @param reserveRefusals zones refused to a writer since mount because its tier of the space
 *     reserve was reached: the NoSpace answers that keep room for flushes, manual compactions,
 *     metadata and GC, so that a full device can be recovered by deleting data (docs/zone-fs.md,
 *     "Reserves")
 * @param staleDecisions placement and victim decisions since mount made on a view of the zones that
 *     changed before they could be carried out (another writer took the zone meanwhile), so the
 *     policy was asked again: policies are called without the file system's lock (docs/zone-fs.md,
 *     "Locks and decisions")
 * @param overrides every override of a policy since mount, by reason (every reason present)
 * @param overridesTotal {@code overrides} since format, as the metadata log counts them (like
 *     {@code policyDecisionsTotal})
 * @param zwalIdleReaps ZWAL: times a writer waiting for a zone ended an idle WAL's appends in
 *     flight for it, so that the WAL's zone could be given up (docs/wal.md), since mount
 * @param walZoneFinishes WAL zones finished when their WAL gave them up partly written (ZWAL: no
 *     other file continues a WAL's zone; either mode: a WAL that moved to a reserved zone), since
 *     mount
 * @param mountChunkScanNanos this mount's scan for WAL chunks written after their files' last
 *     records: wall time
 * @param mountChunks chunks that scan decoded
 * @param mountChunkBytes bytes it added to WAL files
 * @param mountChunkReads device reads it made (it reads ahead up to 1 MiB at a time)
 * @param gcRuns garbage collection runs since mount that emptied a zone: a writer's collection when
 *     it found no room, a {@link ZoneFs#reclaim} call, or a spell of background rounds collecting
 *     one after another (CAZA's "zone cleaning" invocations)
 * @param gcZones zones garbage collection emptied since mount ({@code resetsWithoutCopy} counts
 *     every reset that copied nothing, GC's and the deletes')
 * @param zoneFinishes zones the file system finished since mount: a placement policy's finishes,
 *     WAL zones given up, metadata log zones left behind
 * @param gcTotals GC's counters since format, as of the metadata log's last policy counts record (a
 *     roll or a clean unmount) plus this mount's: runs, zones emptied, bytes copied, resets, resets
 *     without copy, finishes ({@link GcTotals})
 * @param walZoneSwitches zones WAL files took from the WAL reserve since mount: under the lock, no
 *     policy call ({@code WalOptions.reservedZones}, docs/wal.md "Reserved WAL zones")
 * @param walZoneWaits zones WAL files took any other way since mount: the policy's or the safety
 *     rule's answer on the put path (counted with no reserve too, the baseline)
 * @param walZoneWaitMaxNanos the longest of those takes, from the writer's entry into the
 *     allocation to its zone (lock waits, policy calls and GC included), since mount
 * @param walReserveReturns reserved zones given back to writers that found no other zone
 * @param walReserveDeclined fills of the reserve that found no zone (the policy kept none, or the
 *     reserves or the active limit left none)
 * @param walReservedZones zones kept for WAL files now
 * @param leaseCollections collections a zone lease (WALTZ's log) ran itself since mount, because no
 *     empty zone was free for it
 * @param gcRoundsForRoom background GC rounds since mount that collected for the leases' room
 *     although the GC trigger did not ask (it counts room in partly written zones as free, which a
 *     lease cannot use)
 * @param leaseWaits 10 ms waits of zone leases since mount for a writer to release an active token
 *     (room there was, a token not)
 */
public record ZoneStats(
    long hostBytes,
    long paddingBytes,
    long gcBytes,
    long metaBytes,
    long resets,
    long resetsWithoutCopy,
    long metaRolls,
    long liveBytes,
    long usedZoneBytes,
    int files,
    int dataZones,
    int emptyZones,
    int fullZones,
    int openZones,
    int ownedZones,
    long policyDecisions,
    long fallbackAllocations,
    long zoneSteals,
    long policyDecisionsTotal,
    long fallbackAllocationsTotal,
    long zoneStealsTotal,
    long deviceErrors,
    long reserveRefusals,
    long staleDecisions,
    java.util.Map<PolicyOverride, Long> overrides,
    java.util.Map<PolicyOverride, Long> overridesTotal,
    long zwalIdleReaps,
    long walZoneFinishes,
    long mountChunkScanNanos,
    long mountChunks,
    long mountChunkBytes,
    long mountChunkReads,
    long gcRuns,
    long gcZones,
    long zoneFinishes,
    GcTotals gcTotals,
    long walZoneSwitches,
    long walZoneWaits,
    long walZoneWaitMaxNanos,
    long walReserveReturns,
    long walReserveDeclined,
    int walReservedZones,
    long leaseCollections,
    long gcRoundsForRoom,
    long leaseWaits) {
  /** Counters before the overrides (layout 2: one record of 64-bit fields). */
  static final int NAMED_FIELDS = 24;

  /**
   * Counters after the overrides: ZWAL's and the mount's WAL counters, then GC's, then the WAL
   * reserve's.
   */
  static final int WAL_FIELDS = 6,
      GC_FIELDS = 3 + GcTotals.FIELDS,
      WAL_RESERVE_FIELDS = 6,
      LEASE_FIELDS = 3;

  /** How many counters cross the native boundary: the named ones, the overrides twice, the rest. */
  static final int FIELDS =
      NAMED_FIELDS
          + 2 * PolicyOverride.values().length
          + WAL_FIELDS
          + GC_FIELDS
          + WAL_RESERVE_FIELDS
          + LEASE_FIELDS;

  static final int LAYOUT = 2;
  static final int VERSION = 10;

  /** A buffer this large holds the crossing: header, section table and the record. */
  public static final int BUFFER_BYTES = 64 + FIELDS * Long.BYTES;

  public ZoneStats {
    overrides = everyReason(overrides);
    overridesTotal = everyReason(overridesTotal);
  }

  private static java.util.Map<PolicyOverride, Long> everyReason(
      java.util.Map<PolicyOverride, Long> counts) {
    java.util.EnumMap<PolicyOverride, Long> all = new java.util.EnumMap<>(PolicyOverride.class);
    for (PolicyOverride reason : PolicyOverride.values()) {
      all.put(reason, counts.getOrDefault(reason, 0L));
    }
    return java.util.Collections.unmodifiableMap(all);
  }

  private static java.util.Map<PolicyOverride, Long> reasons(long[] v, int from) {
    java.util.EnumMap<PolicyOverride, Long> counts = new java.util.EnumMap<>(PolicyOverride.class);
    for (PolicyOverride reason : PolicyOverride.values()) {
      counts.put(reason, v[from + reason.ordinal()]);
    }
    return counts;
  }

  /**
   * Reads a zone-stats buffer of the typed native boundary (docs/formats/native-boundary.md).
   *
   * @throws IllegalStateException if it is not one of this version
   */
  public static ZoneStats read(ByteBuffer buffer) {
    long[] v =
        BoundaryBuffer.wrap(buffer, LAYOUT, VERSION, FIELDS * Long.BYTES).getLongs(0, 0, FIELDS);
    int reasons = PolicyOverride.values().length;
    int walReserve = NAMED_FIELDS + 2 * reasons + WAL_FIELDS + GC_FIELDS;
    return new ZoneStats(
        v[0],
        v[1],
        v[2],
        v[3],
        v[4],
        v[5],
        v[6],
        v[7],
        v[8],
        (int) v[9],
        (int) v[10],
        (int) v[11],
        (int) v[12],
        (int) v[13],
        (int) v[14],
        v[15],
        v[16],
        v[17],
        v[18],
        v[19],
        v[20],
        v[21],
        v[22],
        v[23],
        reasons(v, NAMED_FIELDS),
        reasons(v, NAMED_FIELDS + reasons),
        v[NAMED_FIELDS + 2 * reasons],
        v[NAMED_FIELDS + 2 * reasons + 1],
        v[NAMED_FIELDS + 2 * reasons + 2],
        v[NAMED_FIELDS + 2 * reasons + 3],
        v[NAMED_FIELDS + 2 * reasons + 4],
        v[NAMED_FIELDS + 2 * reasons + 5],
        v[NAMED_FIELDS + 2 * reasons + 6],
        v[NAMED_FIELDS + 2 * reasons + 7],
        v[NAMED_FIELDS + 2 * reasons + 8],
        GcTotals.of(v, NAMED_FIELDS + 2 * reasons + 9),
        v[walReserve],
        v[walReserve + 1],
        v[walReserve + 2],
        v[walReserve + 3],
        v[walReserve + 4],
        (int) v[walReserve + 5],
        v[walReserve + WAL_RESERVE_FIELDS],
        v[walReserve + WAL_RESERVE_FIELDS + 1],
        v[walReserve + WAL_RESERVE_FIELDS + 2]);
  }

  /** Every time the file system overrode a policy since format (the log's count). */
  public long policyOverridesTotal() {
    long n = zoneStealsTotal;
    for (long count : overridesTotal.values()) {
      n += count;
    }
    return n;
  }

  /**
   * Every time the file system overrode a policy since mount: the overrides by reason (placement,
   * victims, trigger) and the zones taken from idle writers.
   */
  public long policyOverrides() {
    long n = zoneSteals;
    for (long count : overrides.values()) {
      n += count;
    }
    return n;
  }

  /** Space amplification: zone space in use over live data (1.0 = none). */
  public double spaceAmplification() {
    return liveBytes == 0 ? 1.0 : (double) usedZoneBytes / liveBytes;
  }
}
