package io.zkv.bench.driver;

import io.zkv.device.HostLateness;

/**
 * What a reopen of the store after a crash-like close (no flush: the memtables' data only in the
 * WAL) cost, in its parts, for the {@code recover} workload (docs/wal.md). Recovery is the time
 * from opening the device to a database that takes requests: the mount (the zone file system's
 * metadata log, then its scan for WAL chunks written after their files' last records) and RocksDB's
 * replay of the WAL into the memtable (with {@code avoid_flush_during_recovery}, so the replay
 * writes no SST); the flush of the replayed memtable runs after it and is reported apart.
 *
 * @param seconds mount plus replay
 * @param mountSeconds the file system's mount ({@code ZonedEnv.open}); 0 on the host file system
 * @param chunkScanSeconds the mount's scan for WAL chunks (part of {@code mountSeconds})
 * @param chunks chunks that scan decoded
 * @param chunkBytes bytes it added to WAL files
 * @param chunkReads device reads it made
 * @param mountReads every device read of the mount (metadata log and chunk scan)
 * @param replaySeconds RocksDB's open: the WAL read and replayed into the memtable
 * @param replayReadBytes device bytes read during the replay (the WAL, the MANIFEST and the like)
 * @param replayReads device reads during the replay
 * @param flushSeconds the flush of the replayed memtable, after recovery
 * @param walBytes the WAL files' bytes before the reopen
 * @param entries the database's entries, counted before the close and again after the flush (the
 *     workload fails if they differ)
 * @param recoveryLateness the emulated devices' host lateness over the recovery (mount and replay)
 * @param flushLateness the same over the flush after it
 */
public record RecoveryFigures(
    double seconds,
    double mountSeconds,
    double chunkScanSeconds,
    long chunks,
    long chunkBytes,
    long chunkReads,
    long mountReads,
    double replaySeconds,
    long replayReadBytes,
    long replayReads,
    double flushSeconds,
    long walBytes,
    long entries,
    HostLateness recoveryLateness,
    HostLateness flushLateness) {}
