package io.zkv;

import org.rocksdb.CompressionType;

/** Block compression of the SST files RocksDB writes (the stock RocksJava build has all four). */
public enum Compression {
  NONE(CompressionType.NO_COMPRESSION),
  SNAPPY(CompressionType.SNAPPY_COMPRESSION),
  LZ4(CompressionType.LZ4_COMPRESSION),
  ZSTD(CompressionType.ZSTD_COMPRESSION);

  private final CompressionType rocks;

  Compression(CompressionType rocks) {
    this.rocks = rocks;
  }

  /** The RocksDB compression type. */
  public CompressionType rocksType() {
    return rocks;
  }
}
