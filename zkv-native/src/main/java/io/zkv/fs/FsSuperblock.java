package io.zkv.fs;

/**
 * The superblock of a zone file system (format: docs/formats/zone-fs.md).
 *
 * @param uuid file system UUID, hex
 * @param version format version
 * @param flags flags (bit 0: background GC)
 * @param sequence roll sequence of the log in use
 * @param blockSize block size, bytes
 * @param zoneCount zones of the device
 * @param zoneSize bytes between zone starts
 * @param zoneCapacity writable bytes per zone
 * @param metaZones zones holding the metadata log
 * @param finishThreshold percent
 */
public record FsSuperblock(
    String uuid,
    int version,
    int flags,
    long sequence,
    int blockSize,
    int zoneCount,
    long zoneSize,
    long zoneCapacity,
    int metaZones,
    int finishThreshold) {}
