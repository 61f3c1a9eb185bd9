/**
 * RocksDB's write-ahead log on zones: {@link io.zkv.wal.WalOptions}, how the zone file system
 * writes WAL files on a device (today ZenFS's sparse WAL, its buffer configurable). ZWAL and WALTZ
 * are to come (docs/status.md).
 */
package io.zkv.wal;
