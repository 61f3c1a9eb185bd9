package io.zkv.bench.driver;

/**
 * What a phase did to the zoned device.
 *
 * @param userBytes key and value bytes the benchmark asked to write in the phase
 * @param hostBytes file data RocksDB wrote through the zone file system in the phase (WAL, flushes,
 *     compactions)
 * @param gcBytes bytes garbage collection copied in the phase
 * @param metaBytes bytes of the zone file system's metadata log written in the phase (records and
 *     snapshots): with synced writes, a sync's share is {@code metaBytes / writes}
 * @param deviceBytes all bytes written to the device in the phase (host, padding, GC, metadata)
 * @param writeAmplification {@code deviceBytes / userBytes}: RocksDB's and the file system's
 *     amplification together (NaN if the phase wrote nothing)
 * @param fsWriteAmplification {@code deviceBytes / hostBytes}: the file system's share (NaN if
 *     RocksDB wrote nothing)
 * @param zonesUsed data zones not empty at the end of the phase
 * @param dataZones data zones of the file system
 * @param spaceAmplification zone space in use over live data at the end of the phase
 * @param policyDecisions zone allocations the placement policy decided in the phase
 * @param policyOverrides times the file system overrode the placement policy in the phase (a
 *     fallback allocation or a zone taken from an idle writer; see io.zkv.fs.ZoneStats)
 * @param gcRuns garbage collection runs in the phase that emptied a zone (CAZA's cleanings)
 * @param resets zone resets in the phase
 * @param resetsWithoutCopy of those, the ones that copied nothing (all garbage)
 * @param zoneFinishes zones the file system finished in the phase
 * @param zoneSpaceAmplification zones used x their capacity over live data at the end of the phase
 *     (ZoneKV's, zone-granular: {@code spaceAmplification} counts the bytes written instead)
 * @param inputZonesPerCompaction zones holding a compaction's inputs, on average over the phase's
 *     compactions (CAZA's Fig. 6(a); NaN if none)
 * @param hintOverlaps the phase's compaction outputs: next-level SSTs their key-range hints overlap
 *     against those their own ranges overlap (issue 25's hint quality; {@code HintOverlapCounts})
 * @param overridesByReason the phase's policy overrides by reason, those that happened (the file
 *     system's safety rules: docs/zone-fs.md; {@code ZONE_STEALS} zones taken from idle writers)
 * @param walZones how WAL files got their zones in the phase ({@link WalZoneCounts})
 */
public record DeviceFigures(
    long userBytes,
    long hostBytes,
    long gcBytes,
    long metaBytes,
    long deviceBytes,
    double writeAmplification,
    double fsWriteAmplification,
    int zonesUsed,
    int dataZones,
    double spaceAmplification,
    long policyDecisions,
    long policyOverrides,
    long gcRuns,
    long resets,
    long resetsWithoutCopy,
    long zoneFinishes,
    double zoneSpaceAmplification,
    double inputZonesPerCompaction,
    io.zkv.fs.HintOverlapCounts hintOverlaps,
    java.util.Map<String, Long> overridesByReason,
    WalZoneCounts walZones) {

  /** Resets that copied nothing, in percent of all resets in the phase (NaN if none). */
  public double zeroCopyResetPercent() {
    return resets == 0 ? Double.NaN : 100.0 * resetsWithoutCopy / resets;
  }

  /** The figures between two snapshots, with {@code userBytes} written by the benchmark. */
  public static DeviceFigures between(ZoneCounters before, ZoneCounters after, long userBytes) {
    long host = after.hostBytes() - before.hostBytes();
    long device = after.deviceBytes() - before.deviceBytes();
    int zonesUsed = after.dataZones() - after.emptyZones();
    long compactions = after.compactions() - before.compactions();
    return new DeviceFigures(
        userBytes,
        host,
        after.gcBytes() - before.gcBytes(),
        after.metaBytes() - before.metaBytes(),
        device,
        userBytes == 0 ? Double.NaN : (double) device / userBytes,
        host == 0 ? Double.NaN : (double) device / host,
        zonesUsed,
        after.dataZones(),
        after.liveBytes() == 0 ? 1.0 : (double) after.usedZoneBytes() / after.liveBytes(),
        after.policyDecisions() - before.policyDecisions(),
        after.policyOverrides() - before.policyOverrides(),
        after.gcRuns() - before.gcRuns(),
        after.resets() - before.resets(),
        after.resetsWithoutCopy() - before.resetsWithoutCopy(),
        after.zoneFinishes() - before.zoneFinishes(),
        after.liveBytes() == 0
            ? Double.NaN
            : (double) zonesUsed * after.zoneCapacity() / after.liveBytes(),
        compactions == 0
            ? Double.NaN
            : (double) (after.compactionInputZones() - before.compactionInputZones()) / compactions,
        after.hintOverlaps().minus(before.hintOverlaps()),
        delta(before.overrides(), after.overrides()),
        after.walZones().since(before.walZones()));
  }

  /** The counts that grew between two snapshots, by reason. */
  private static java.util.Map<String, Long> delta(
      java.util.Map<String, Long> before, java.util.Map<String, Long> after) {
    java.util.Map<String, Long> d = new java.util.TreeMap<>();
    after.forEach(
        (reason, n) -> {
          long grown = n - before.getOrDefault(reason, 0L);
          if (grown > 0) {
            d.put(reason, grown);
          }
        });
    return java.util.Collections.unmodifiableMap(d);
  }
}
