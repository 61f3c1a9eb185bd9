/**
 * Write-ahead-log policies: RocksDB's WAL on zones (the ZenFS baseline), ZWAL and WALTZ. Arrives
 * after the zone file system.
 */
package io.zkv.wal;
