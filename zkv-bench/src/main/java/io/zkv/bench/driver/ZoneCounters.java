package io.zkv.bench.driver;

import org.rocksdb.ZkvEnv;

/**
 * A snapshot of the zone file system counters the reports use (from {@link ZkvEnv.ZoneStats}).
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
    long policyOverrides) {
  static ZoneCounters of(ZkvEnv.ZoneStats s) {
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
        s.policyOverrides());
  }

  /** Everything written to the device: host data, padding, GC copies, metadata. */
  long deviceBytes() {
    return hostBytes + paddingBytes + gcBytes + metaBytes;
  }
}
