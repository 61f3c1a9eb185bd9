package io.zkv.bench.workload;

/** What a generated {@link Operation} asks the store to do. */
public enum OpType {
  /** Point lookup ({@code Get}). */
  READ,
  /** Blind write of a key that may or may not exist ({@code Put}; db_bench fill/overwrite). */
  WRITE,
  /** Write of a new record (YCSB insert; the key was never used before). */
  INSERT,
  /**
   * YCSB update of an existing record. YCSB's RocksDB binding ({@code RocksDBClient.update}) reads
   * the record, merges the new field values and writes the whole record back.
   */
  UPDATE,
  /** YCSB read-modify-write: a read, then an update of the same record (workload F). */
  READ_MODIFY_WRITE,
  /** {@code Seek} to the key, then up to {@link Operation#scanLength()} {@code Next} calls. */
  SCAN
}
