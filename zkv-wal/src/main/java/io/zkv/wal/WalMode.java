package io.zkv.wal;

/** How the zone file system writes RocksDB's WAL files (docs/wal.md). */
public enum WalMode {
  /**
   * ZenFS's: every write-out of the WAL's buffer is one device write at the zone's write pointer,
   * waited for before the next.
   */
  FILE,
  /**
   * ZWAL's: every write-out is a zone append on the file's own queue, up to the queue depth in
   * flight, completing in any order; a sync, a barrier and a zone's end wait for all of them.
   */
  ZWAL,
  /**
   * WALTZ's, per database ({@code ZkvOptions.walMode}): RocksDB writes no WAL; every write of the
   * database is one record that its own thread zone-appends to a zone leased from the file system
   * and waits for, with no group commit, then applies to RocksDB (docs/wal.md, "WALTZ mode"). Not a
   * mode of the file system's WAL files: {@code WalOptions} refuses it.
   */
  WALTZ
}
