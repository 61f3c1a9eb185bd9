package io.zkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.PassthroughEnv;
import org.rocksdb.WriteOptions;

class ZkvOptionsTest {
  @Test
  void defaults() {
    ZkvOptions o = ZkvOptions.defaults();
    assertTrue(o.createIfMissing());
    assertEquals(64L << 20, o.writeBufferSize());
    assertFalse(o.syncWrites());
    assertFalse(o.disableWal());
    assertTrue(o.placement().isEmpty()); // the env's
    assertEquals(Compression.SNAPPY, o.compression());
    assertEquals(0, o.bloomFilterBitsPerKey());
  }

  @Test
  void bloomFilterBitsOutOfRangeNamesTheOptionAndTheRange() {
    for (double bad : new double[] {-1, 64.5, Double.NaN}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> ZkvOptions.builder().bloomFilterBitsPerKey(bad));
      assertEquals(
          "bloomFilterBitsPerKey must be between 0 (no filter) and 64.0, not " + bad,
          e.getMessage());
    }
    ZkvOptions.builder().bloomFilterBitsPerKey(ZkvOptions.MAX_BLOOM_BITS_PER_KEY).build();
  }

  @Test
  void bloomFilterSetsABlockBasedTableWithAFilterAndOnlyWhenAsked() {
    try (PassthroughEnv env = PassthroughEnv.open();
        Options none = ZkvOptions.defaults().toRocksOptions(env);
        Options bloom =
            ZkvOptions.builder().bloomFilterBitsPerKey(10).build().toRocksOptions(env)) {
      assertNull(none.tableFormatConfig()); // RocksDB's own default table, no filter
      BlockBasedTableConfig t =
          assertInstanceOf(BlockBasedTableConfig.class, bloom.tableFormatConfig());
      assertInstanceOf(BloomFilter.class, t.filterPolicy());
      // RocksDB's own default table otherwise: its 32 MiB block cache, not RocksJava's 8 MiB.
      assertEquals(ZkvOptions.ROCKSDB_DEFAULT_BLOCK_CACHE_BYTES, blockCacheSize(t));
      assertEquals(6, t.formatVersion());
    }
  }

  @SuppressWarnings("deprecation")
  private static long blockCacheSize(BlockBasedTableConfig t) {
    return t.blockCacheSize();
  }

  @Test
  void writeBufferSizeOutOfRangeNamesTheOptionAndTheRange() {
    IllegalArgumentException small =
        assertThrows(
            IllegalArgumentException.class, () -> ZkvOptions.builder().writeBufferSize(1000));
    assertEquals(
        "writeBufferSize must be between 65536 (64 KiB) and 68719476736 (64 GiB) bytes, not 1000",
        small.getMessage());
    IllegalArgumentException big =
        assertThrows(
            IllegalArgumentException.class, () -> ZkvOptions.builder().writeBufferSize(128L << 30));
    assertTrue(big.getMessage().endsWith("not 137438953472"), big.getMessage());
    ZkvOptions.builder().writeBufferSize(ZkvOptions.MIN_WRITE_BUFFER_SIZE).build(); // bounds ok
  }

  @Test
  void syncWritesNeedTheWal() {
    ZkvOptions.Builder b = ZkvOptions.builder().syncWrites(true).disableWal(true);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
    assertEquals(
        "syncWrites needs the WAL: syncWrites(true) and disableWal(true) cannot be combined",
        e.getMessage());
  }

  @Test
  void everyBuiltInPlacementCanBeNamed() {
    assertEquals(
        Placement.LIZA, ZkvOptions.builder().placement(Placement.LIZA).build().placement().get());
    assertEquals(
        Placement.CAZA, ZkvOptions.builder().placement(Placement.CAZA).build().placement().get());
    assertEquals(
        Placement.ZONEKV,
        ZkvOptions.builder().placement(Placement.ZONEKV).build().placement().get());
    NullPointerException npe =
        assertThrows(NullPointerException.class, () -> ZkvOptions.builder().placement(null));
    assertEquals("placement must not be null", npe.getMessage());
    npe = assertThrows(NullPointerException.class, () -> ZkvOptions.builder().compression(null));
    assertEquals("compression must not be null", npe.getMessage());
  }

  @Test
  void mapsToRocksDbOptions() {
    ZkvOptions z =
        ZkvOptions.builder()
            .createIfMissing(false)
            .writeBufferSize(3L << 20)
            .compression(Compression.ZSTD)
            .syncWrites(true)
            .rocksDbTuning(o -> o.setLevel0FileNumCompactionTrigger(7))
            .build();
    try (PassthroughEnv env = PassthroughEnv.open();
        Options o = z.toRocksOptions(env);
        WriteOptions w = z.toWriteOptions()) {
      assertSame(env, o.getEnv());
      assertFalse(o.createIfMissing());
      assertEquals(3L << 20, o.writeBufferSize());
      assertEquals(ZkvOptions.MAX_WRITE_BUFFER_NUMBER, o.maxWriteBufferNumber());
      assertEquals(CompressionType.ZSTD_COMPRESSION, o.compressionType());
      assertEquals(7, o.level0FileNumCompactionTrigger());
      assertEquals(ZkvOptions.INFO_LOG_FILES_KEPT, o.keepLogFileNum());
      assertEquals(ZkvOptions.INFO_LOG_FILE_MAX_BYTES, o.maxLogFileSize());
      assertTrue(w.sync());
      assertFalse(w.disableWAL());
    }
    try (WriteOptions w = ZkvOptions.builder().disableWal(true).build().toWriteOptions()) {
      assertTrue(w.disableWAL());
      assertFalse(w.sync());
    }
  }

  @Test
  void tuningMustNotReplaceTheEnv() {
    ZkvOptions z = ZkvOptions.builder().rocksDbTuning(o -> o.setEnv(Env.getDefault())).build();
    try (PassthroughEnv env = PassthroughEnv.open()) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> z.toRocksOptions(env));
      assertTrue(e.getMessage().startsWith("the RocksDB tuning hook must not replace the Env"));
    }
  }

  @Test
  void toBuilderCopiesEverything() {
    ZkvOptions a =
        ZkvOptions.builder()
            .createIfMissing(false)
            .writeBufferSize(1L << 20)
            .disableWal(true)
            .compression(Compression.LZ4)
            .bloomFilterBitsPerKey(10)
            .build();
    ZkvOptions b = a.toBuilder().build();
    assertEquals(a.toString(), b.toString());
    assertEquals(
        "ZkvOptions{createIfMissing=false, writeBufferSize=1048576, syncWrites=false,"
            + " disableWal=true, placement=env's, compression=LZ4, bloomFilterBitsPerKey=10.0}",
        b.toString());
  }
}
