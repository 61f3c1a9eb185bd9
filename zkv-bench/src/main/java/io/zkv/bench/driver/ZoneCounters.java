package io.zkv.bench.driver;

/**
 * A snapshot of the zone file system counters the reports use (from {@link io.zkv.fs.ZoneStats}).
 *
 * @param hostBytes file data RocksDB wrote (WAL, SSTs, manifest)
 * @param paddingBytes block padding written on syncs of partial blocks
 * @param gcBytes data copied by garbage collection
 * @param metaBytes metadata log bytes
 * @param liveBytes live file data now
 * @param usedZoneBytes bytes below the data zones' write pointers now
 * @param dataZones data zones
 * @param emptyZones empty data zones now
 * @param policyDecisions zone allocations the placement policy decided since mount
 * @param policyOverrides times the file system overrode the policy since mount (its safety rules)
 * @param gcRuns garbage collection runs that emptied a zone since mount
 * @param resets zone resets since mount
 * @param resetsWithoutCopy of those, the ones that copied nothing
 * @param zoneFinishes zones the file system finished since mount
 * @param compactions compactions whose input zones were counted since mount
 * @param compactionInputZones the zones holding their inputs, summed
 * @param hintOverlaps compaction outputs' key-range hints against their own ranges, since mount
 * @param zoneCapacity bytes one zone holds
 * @param overrides the overrides since mount by reason (the {@code PolicyOverride} names, and
 *     {@code ZONE_STEALS} for zones taken from idle writers)
 * @param walZones how WAL files got their zones since mount
 */
public record ZoneCounters(
    long hostBytes,
    long paddingBytes,
    long gcBytes,
    long metaBytes,
    long liveBytes,
    long usedZoneBytes,
    int dataZones,
    int emptyZones,
    long policyDecisions,
    long policyOverrides,
    long gcRuns,
    long resets,
    long resetsWithoutCopy,
    long zoneFinishes,
    long compactions,
    long compactionInputZones,
    io.zkv.fs.HintOverlapCounts hintOverlaps,
    long zoneCapacity,
    java.util.Map<String, Long> overrides,
    WalZoneCounts walZones) {
  static ZoneCounters of(
      io.zkv.fs.ZoneStats s,
      io.zkv.fs.CompactionZones c,
      io.zkv.fs.HintOverlapCounts hints,
      long zoneCapacity) {
    java.util.Map<String, Long> reasons = new java.util.TreeMap<>();
    s.overrides().forEach((reason, n) -> reasons.put(reason.name(), n));
    reasons.put("ZONE_STEALS", s.zoneSteals());
    return new ZoneCounters(
        s.hostBytes(),
        s.paddingBytes(),
        s.gcBytes(),
        s.metaBytes(),
        s.liveBytes(),
        s.usedZoneBytes(),
        s.dataZones(),
        s.emptyZones(),
        s.policyDecisions(),
        s.policyOverrides(),
        s.gcRuns(),
        s.resets(),
        s.resetsWithoutCopy(),
        s.zoneFinishes(),
        c.compactions(),
        c.zones(),
        hints,
        zoneCapacity,
        java.util.Collections.unmodifiableMap(reasons),
        new WalZoneCounts(
            s.walZoneSwitches(),
            s.walZoneWaits(),
            s.walZoneWaitMaxNanos(),
            s.walReserveReturns(),
            s.walReserveDeclined()));
  }

  /**
   * With a WALTZ log's counters: its appended bytes are host data (RocksDB writes no WAL then), its
   * zone switches and put-path leases are how the log got its zones.
   */
  ZoneCounters withWaltz(io.zkv.waltz.WaltzLog.Stats w) {
    WalZoneCounts z = walZones;
    return new ZoneCounters(
        hostBytes + w.appendedBytes(),
        paddingBytes,
        gcBytes,
        metaBytes,
        liveBytes,
        usedZoneBytes,
        dataZones,
        emptyZones,
        policyDecisions,
        policyOverrides,
        gcRuns,
        resets,
        resetsWithoutCopy,
        zoneFinishes,
        compactions,
        compactionInputZones,
        hintOverlaps,
        zoneCapacity,
        overrides,
        new WalZoneCounts(
            z.switches() + w.switches(),
            z.waits() + w.leaseWaits(),
            Math.max(z.waitMaxNanos(), w.leaseWaitMaxNanos()),
            z.returns(),
            z.declined()));
  }

  /** Everything written to the device: host data, padding, GC copies, metadata. */
  long deviceBytes() {
    return hostBytes + paddingBytes + gcBytes + metaBytes;
  }
}
