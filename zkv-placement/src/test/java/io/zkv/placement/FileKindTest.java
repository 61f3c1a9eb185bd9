package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FileKindTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "000123.log, WAL",
    "000045.sst, SST",
    "000046.ldb, SST",
    "000012.blob, BLOB",
    "MANIFEST-000005, MANIFEST",
    "CURRENT, CURRENT",
    "OPTIONS-000007, OPTIONS",
    "OPTIONS-000007.dbtmp, TEMP",
    "000009.dbtmp, TEMP",
    "IDENTITY, IDENTITY",
    "LOCK, LOCK",
    "LOG, INFO_LOG",
    "LOG.old.1234, INFO_LOG",
    "LOG.old.1700000000123456, INFO_LOG",
    "_tmp_kafka_streams_store_LOG, INFO_LOG",
    "_tmp_kafka_streams_store_LOG.old.99, INFO_LOG",
    "METADB-000003, META_DATABASE",
  })
  void realRocksDbNames(String name, FileKind expected) {
    assertEquals(expected, FileKind.fromName(name));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "/data/db/000123.log, WAL",
    "/data/db/archive/000077.log, WAL",
    "db/000045.sst, SST",
    "/var/lib/kafka-streams/app/0_1/rocksdb/store/MANIFEST-000001, MANIFEST",
    "/data/db/CURRENT, CURRENT",
    "/data/db/LOG.old.1234, INFO_LOG",
  })
  void onlyTheLastPathComponentCounts(String path, FileKind expected) {
    assertEquals(expected, FileKind.fromName(path));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "notes.log", // ZenFS would call this a WAL (ends_with ".log"); RocksDB never names it.
        "123.LOG",
        "123.txt",
        "abc.sst",
        ".sst",
        "MANIFEST-",
        "MANIFEST-00x5",
        "OPTIONS-",
        "OPTIONS-12.tmp",
        "LOG.old",
        "LOG.old.",
        "LOG.old.12a",
        "LOGGER",
        "x_LOGGER",
        "CURRENT.bak",
        "current",
        "000123.log.gz",
        "000123",
      })
  void anythingElseIsUnknown(String name) {
    assertEquals(FileKind.UNKNOWN, FileKind.fromName(name));
  }

  @Test
  void badInputGetsAClearError() {
    NullPointerException npe =
        assertThrows(NullPointerException.class, () -> FileKind.fromName(null));
    assertTrue(npe.getMessage().contains("file name"));
    IllegalArgumentException empty =
        assertThrows(IllegalArgumentException.class, () -> FileKind.fromName(""));
    assertTrue(empty.getMessage().contains("no file name"));
    assertThrows(IllegalArgumentException.class, () -> FileKind.fromName("/data/db/"));
  }

  @Test
  void categories() {
    assertTrue(FileKind.WAL.isWal());
    assertFalse(FileKind.SST.isWal());
    assertFalse(FileKind.INFO_LOG.isWal());
    assertTrue(FileKind.SST.isData());
    assertTrue(FileKind.BLOB.isData());
    assertFalse(FileKind.MANIFEST.isData());
    for (FileKind k :
        new FileKind[] {
          FileKind.MANIFEST,
          FileKind.CURRENT,
          FileKind.OPTIONS,
          FileKind.IDENTITY,
          FileKind.LOCK,
          FileKind.TEMP,
          FileKind.META_DATABASE
        }) {
      assertTrue(k.isMetadata(), k.name());
    }
    for (FileKind k :
        new FileKind[] {
          FileKind.WAL, FileKind.SST, FileKind.BLOB, FileKind.INFO_LOG, FileKind.UNKNOWN
        }) {
      assertFalse(k.isMetadata(), k.name());
    }
  }
}
