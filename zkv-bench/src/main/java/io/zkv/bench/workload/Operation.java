package io.zkv.bench.workload;

/**
 * One generated operation, a mutable holder that an {@link OperationMix} fills so that generating
 * operations allocates nothing. Not thread-safe; keep one per thread.
 */
public final class Operation {
  private OpType type = OpType.READ;
  private long keyNumber;
  private long key;
  private int valueSize;
  private int scanLength;

  /** Sets all fields; returns {@code this}. */
  public Operation set(OpType type, long keyNumber, long key, int valueSize, int scanLength) {
    this.type = type;
    this.keyNumber = keyNumber;
    this.key = key;
    this.valueSize = valueSize;
    this.scanLength = scanLength;
    return this;
  }

  public OpType type() {
    return type;
  }

  /**
   * The logical record number (YCSB's {@code keynum}, db_bench's key integer). Workloads that hash
   * record numbers into keys (YCSB {@code insertorder=hashed}) report the unhashed number here.
   */
  public long keyNumber() {
    return keyNumber;
  }

  /** The number to encode as the key, e.g. with {@link KeyFormat}. */
  public long key() {
    return key;
  }

  /** Bytes to write for WRITE, INSERT, UPDATE and READ_MODIFY_WRITE; 0 otherwise. */
  public int valueSize() {
    return valueSize;
  }

  /** For SCAN, the number of {@code Next} calls after the {@code Seek}; 0 otherwise. */
  public int scanLength() {
    return scanLength;
  }

  @Override
  public String toString() {
    return type
        + "(key="
        + key
        + (key != keyNumber ? ", record=" + keyNumber : "")
        + (valueSize > 0 ? ", value=" + valueSize : "")
        + (type == OpType.SCAN ? ", scan=" + scanLength : "")
        + ")";
  }
}
