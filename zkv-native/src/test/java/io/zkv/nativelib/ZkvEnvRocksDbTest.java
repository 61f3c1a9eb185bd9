package io.zkv.nativelib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.PassthroughEnv;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * Stock RocksJava opens a database through zkv's native FileSystem (the Env bridge). Runs once per
 * supported RocksJava release (zkv-native/pom.xml), which names the release on the class path in
 * {@code zkv.test.rocksdb.version}.
 */
class ZkvEnvRocksDbTest {
  private static final int KEYS = 50_000;

  @TempDir Path dir;

  private static byte[] key(int i) {
    return String.format("key%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    return ("value-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void nativeLibraryLoadsBesideRocksJava() {
    assertTrue(
        ZkvNative.isAvailable(),
        () -> "unavailable: " + ZkvNative.unavailableCause().orElseThrow());
    String expected = System.getProperty("zkv.test.rocksdb.version");
    assertNotNull(expected, "the surefire execution must name its rocksdbjni version");
    assertEquals(expected, RocksDB.rocksdbVersion().toString());
    assertEquals(Optional.of(expected), ZkvNative.rocksDbVersion());
  }

  @Test
  void theJarCarriesALibraryForEverySupportedRelease() {
    for (String version : ZkvNative.SUPPORTED_ROCKSDB) {
      String resource = ZkvNative.RESOURCE_DIR + ZkvNative.libraryFor(version);
      assertNotNull(ZkvNative.class.getResource(resource), resource);
    }
  }

  @Test
  void testsRunWithJniChecking() {
    assertTrue(
        java.lang.management.ManagementFactory.getRuntimeMXBean()
            .getInputArguments()
            .contains("-Xcheck:jni"),
        "the surefire argLine must carry -Xcheck:jni");
  }

  @Test
  void eachSupportedReleaseGetsItsOwnLibrary() {
    assertEquals("libzkv-rocksdb-9.7.3.so", ZkvNative.libraryFor("9.7.3"));
    assertEquals("libzkv-rocksdb-10.1.3.so", ZkvNative.libraryFor("10.1.3"));
  }

  @Test
  void otherRocksDbVersionsAreRefusedClearly() {
    for (String other : new String[] {"9.6.1", "9.7.4", "10.10.1"}) {
      UnsupportedOperationException e =
          assertThrows(UnsupportedOperationException.class, () -> ZkvNative.libraryFor(other));
      assertTrue(
          e.getMessage()
              .contains(
                  "zkv supports RocksJava (org.rocksdb:rocksdbjni) 9.7.3 and 10.1.3, but RocksDB "
                      + other
                      + " is on the class path"),
          e.getMessage());
    }
  }

  @Test
  void aLibraryBuiltAgainstOtherHeadersIsRefused() {
    ZkvNative.checkHeaders("libzkv-rocksdb-10.1.3.so", 100103, "10.1.3");
    UnsupportedOperationException e =
        assertThrows(
            UnsupportedOperationException.class,
            () -> ZkvNative.checkHeaders("libzkv-rocksdb-10.1.3.so", 90703, "10.1.3"));
    assertEquals(
        "libzkv-rocksdb-10.1.3.so was compiled against RocksDB 9.7.3 headers, not 10.1.3's"
            + " (a broken zkv-native build)",
        e.getMessage());
  }

  @Test
  void writeFlushReopenReadThroughZkvEnv() throws Exception {
    String path = dir.resolve("db").toString();
    try (PassthroughEnv env = PassthroughEnv.open()) {
      try (Options o = new Options().setCreateIfMissing(true).setEnv(env);
          RocksDB db = RocksDB.open(o, path);
          FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        for (int i = 0; i < KEYS; i++) {
          db.put(key(i), value(i));
          if (i % 20_000 == 19_999) {
            db.flush(f);
          }
        }
        db.flush(f);
      }
      long createdFirstSession = env.filesCreated();
      assertTrue(
          createdFirstSession >= 5,
          "WAL, SSTs, MANIFEST, ... created through zkv: " + createdFirstSession);
      try (Options o = new Options().setEnv(env);
          RocksDB db = RocksDB.open(o, path)) {
        for (int i = 0; i < KEYS; i += 7) {
          assertArrayEquals(value(i), db.get(key(i)), "key " + i);
        }
        int n = 0;
        try (RocksIterator it = db.newIterator()) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            n++;
          }
        }
        assertEquals(KEYS, n);
      }
      assertTrue(env.filesOpened() > 0, "SST reads went through zkv");
      assertTrue(env.filesCreated() > createdFirstSession, "the reopen wrote through zkv too");
    }
  }

  @Test
  void closedEnvRefusesUse() {
    PassthroughEnv env = PassthroughEnv.open();
    env.close();
    env.close(); // idempotent
    assertThrows(IllegalStateException.class, env::filesCreated);
  }
}
