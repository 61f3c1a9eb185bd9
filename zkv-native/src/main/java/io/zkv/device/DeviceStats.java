package io.zkv.device;

/** Host-visible device counters since the device was opened. */
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
    long reports) {}
