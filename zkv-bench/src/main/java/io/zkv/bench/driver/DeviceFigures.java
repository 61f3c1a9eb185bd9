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
 *     fallback allocation or a zone taken from an idle writer; see ZkvEnv.ZoneStats)
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
    long policyOverrides) {

  /** The figures between two snapshots, with {@code userBytes} written by the benchmark. */
  public static DeviceFigures between(ZoneCounters before, ZoneCounters after, long userBytes) {
    long host = after.hostBytes() - before.hostBytes();
    long device = after.deviceBytes() - before.deviceBytes();
    return new DeviceFigures(
        userBytes,
        host,
        after.gcBytes() - before.gcBytes(),
        after.metaBytes() - before.metaBytes(),
        device,
        userBytes == 0 ? Double.NaN : (double) device / userBytes,
        host == 0 ? Double.NaN : (double) device / host,
        after.dataZones() - after.emptyZones(),
        after.dataZones(),
        after.liveBytes() == 0 ? 1.0 : (double) after.usedZoneBytes() / after.liveBytes(),
        after.policyDecisions() - before.policyDecisions(),
        after.policyOverrides() - before.policyOverrides());
  }
}
