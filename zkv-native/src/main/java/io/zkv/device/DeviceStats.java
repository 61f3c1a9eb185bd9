package io.zkv.device;

/**
 * Host-visible device counters since the device was opened. {@code errors}: calls and queued
 * requests the device failed or refused (a negative result), counted natively by the device layer
 * for every user of the device (the zone file system included).
 */
public record DeviceStats(
    long bytesWritten,
    long bytesAppended,
    long bytesRead,
    long writes,
    long appends,
    long reads,
    long resets,
    long finishes,
    long flushes,
    long reports,
    long errors) {}
