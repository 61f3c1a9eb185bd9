package io.zkv;

import static io.zkv.TestDevices.b;
import static io.zkv.TestDevices.s;
import static io.zkv.TestDevices.small;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Status;

class ZkvDbTest {
  @TempDir Path dir;

  private static String key(int i) {
    return String.format("k%05d", i);
  }

  private static String value(int i, String tag) {
    return tag + "-" + i + "-" + "x".repeat(i % 200);
  }

  /** Everything the iterator returns, as strings. */
  private static TreeMap<String, String> contents(ZkvIterator it) {
    TreeMap<String, String> m = new TreeMap<>();
    String last = null;
    while (it.hasNext()) {
      ZkvEntry e = it.next();
      String k = s(e.key());
      assertTrue(last == null || last.compareTo(k) < 0, "key order: " + last + " then " + k);
      last = k;
      m.put(k, s(e.value()));
    }
    return m;
  }

  @Test
  void putGetDeleteBatchIterateFlushCompactCloseAndReopen() throws Exception {
    String uri = TestDevices.medium(dir);
    TreeMap<String, String> model = new TreeMap<>();
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT);
        ZkvDb db = ZkvDb.open(env, "/apps/orders", small())) {
      assertEquals("/apps/orders", db.path());
      for (int i = 0; i < 3000; i++) {
        db.put(b(key(i)), b(value(i, "a")));
        model.put(key(i), value(i, "a"));
      }
      for (int i = 0; i < 3000; i += 7) {
        db.delete(b(key(i)));
        model.remove(key(i));
      }
      db.delete(b("never-written")); // no error
      ZkvBatch batch = new ZkvBatch();
      for (int i = 3000; i < 3100; i++) {
        batch.put(b(key(i)), b(value(i, "batch")));
        model.put(key(i), value(i, "batch"));
      }
      batch.delete(b(key(1))).deleteRange(b(key(1000)), b(key(1100)));
      model.remove(key(1));
      model.subMap(key(1000), key(1100)).clear();
      assertEquals(102, batch.size());
      db.write(batch);
      db.write(new ZkvBatch()); // empty: no-op
      db.flush();
      db.deleteRange(b(key(2000)), b(key(2500)));
      model.subMap(key(2000), key(2500)).clear();
      db.compactRange(b(key(0)), b(key(2999)));
      db.compactRange();
      for (int i = 0; i < 3100; i += 13) {
        String want = model.get(key(i));
        byte[] got = db.get(b(key(i)));
        if (want == null) {
          assertNull(got, key(i));
        } else {
          assertEquals(want, s(got), key(i));
        }
      }
      try (ZkvIterator it = db.iterator()) {
        assertEquals(model, contents(it));
      }
      try (ZkvIterator it = db.iterator(b(key(995)), b(key(1105)))) {
        assertEquals(model.subMap(key(995), key(1105)), contents(it));
      }
      try (ZkvIterator it = db.iterator(null, b(key(10)))) {
        assertEquals(model.headMap(key(10)), contents(it));
      }
      try (ZkvIterator it = db.iterator(b(key(3095)), null)) {
        assertEquals(model.tailMap(key(3095)), contents(it));
      }
      assertTrue(db.property("rocksdb.estimate-num-keys").isPresent());
      assertFalse(db.property("rocksdb.no-such-property").isPresent());
      assertTrue(env.stats().hostBytes() > 300_000, env.stats().toString());
    }
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb db =
            ZkvDb.open(env, "/apps/orders", small().toBuilder().createIfMissing(false).build());
        ZkvIterator it = db.iterator()) {
      assertEquals(model, contents(it));
      assertNull(db.get(b("absent")));
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(
          List.of(dir.resolve("dev.zkvemu")), files.toList(), "nothing on the host but the device");
    }
  }

  @Test
  void iteratorEdgeCases() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT);
        ZkvDb db = ZkvDb.open(env, "/it", small())) {
      try (ZkvIterator it = db.iterator()) {
        assertFalse(it.hasNext());
        NoSuchElementException e = assertThrows(NoSuchElementException.class, it::next);
        assertEquals("no more entries in /it", e.getMessage());
      }
      db.put(b("b"), b("2"));
      db.put(b("a"), b("1"));
      ZkvIterator it = db.iterator(b("a"), b("b"));
      db.put(b("a0"), b("after the snapshot"));
      assertEquals(new ZkvEntry(b("a"), b("1")), it.next());
      assertFalse(it.hasNext(), "upper bound is exclusive; later writes are not seen");
      it.close();
      it.close(); // idempotent
      ZkvClosedException closed = assertThrows(ZkvClosedException.class, it::hasNext);
      assertEquals("iterator over /it is closed", closed.getMessage());
      try (ZkvIterator past = db.iterator(b("z"), null)) {
        assertFalse(past.hasNext());
      }
    }
  }

  @Test
  void useAfterCloseThrowsZkvClosedExceptionAndClosesIterators() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT)) {
      ZkvDb db = ZkvDb.open(env, "/c", small());
      db.put(b("k"), b("v"));
      ZkvIterator open = db.iterator();
      assertTrue(open.hasNext());
      db.close();
      assertTrue(db.isClosed());
      db.close(); // idempotent
      assertEquals(List.of(), env.openDatabases());
      ZkvClosedException e = assertThrows(ZkvClosedException.class, open::next);
      assertEquals("iterator over /c is closed (its database was closed)", e.getMessage());
      open.close();
      List<Executable> uses = new ArrayList<>();
      uses.add(() -> db.put(b("k"), b("v")));
      uses.add(() -> db.get(b("k")));
      uses.add(() -> db.delete(b("k")));
      uses.add(() -> db.deleteRange(b("a"), b("b")));
      uses.add(() -> db.write(new ZkvBatch().put(b("k"), b("v"))));
      uses.add(db::iterator);
      uses.add(db::flush);
      uses.add(db::compactRange);
      uses.add(() -> db.compactRange(b("a"), b("b")));
      uses.add(() -> db.deleteFilesInRange(b("a"), b("b")));
      uses.add(() -> db.property("rocksdb.stats"));
      uses.add(db::resume);
      for (Executable use : uses) {
        ZkvClosedException c = assertThrows(ZkvClosedException.class, use);
        assertEquals("database /c is closed", c.getMessage());
      }
      try (ZkvDb again = ZkvDb.open(env, "/c", small())) {
        assertArrayEquals(b("v"), again.get(b("k")));
      }
    }
  }

  @Test
  void badPathsAndArgumentsGetClearMessages() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT)) {
      Map<String, String> bad =
          Map.of(
              "relative/db",
                  "database path must be absolute (a name in the device's file system, like /stores/a), not 'relative/db'",
              "/", "database path must name a directory below /, not '/'",
              "/a/../b", "database path must not contain '.' or '..' components: '/a/../b'",
              "/a/./b", "database path must not contain '.' or '..' components: '/a/./b'",
              "/a\0b", "database path must not contain NUL characters");
      for (Map.Entry<String, String> e : bad.entrySet()) {
        IllegalArgumentException x =
            assertThrows(
                IllegalArgumentException.class, () -> ZkvDb.open(env, e.getKey(), small()));
        assertEquals(e.getValue(), x.getMessage());
      }
      IllegalArgumentException tooLong =
          assertThrows(
              IllegalArgumentException.class,
              () -> ZkvDb.open(env, "/" + "p".repeat(4000), small()));
      assertEquals(
          "database path is 4001 characters long; at most 4000 are allowed", tooLong.getMessage());
      try (ZkvDb db = ZkvDb.open(env, "/a//b/", small())) {
        assertEquals("/a/b", db.path());
        IllegalStateException twice =
            assertThrows(IllegalStateException.class, () -> ZkvDb.open(env, "/a/b", small()));
        assertEquals(
            "database /a/b is already open on " + env.uri() + "; close it first",
            twice.getMessage());
        NullPointerException npe =
            assertThrows(NullPointerException.class, () -> db.put(null, b("v")));
        assertEquals("key must not be null", npe.getMessage());
        npe = assertThrows(NullPointerException.class, () -> db.put(b("k"), null));
        assertEquals("value must not be null", npe.getMessage());
        IllegalStateException destroyOpen =
            assertThrows(IllegalStateException.class, () -> ZkvDb.destroy(env, "/a/b"));
        assertTrue(destroyOpen.getMessage().startsWith("database /a/b is already open"));
      }
      assertEquals(List.of(), env.openDatabases(), "failed opens leave no attachment behind");
    }
  }

  @Test
  void missingDatabaseWithoutCreateIfMissingIsAnError() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT)) {
      ZkvOptions o = small().toBuilder().createIfMissing(false).build();
      ZkvException e = assertThrows(ZkvException.class, () -> ZkvDb.open(env, "/missing", o));
      assertTrue(
          e.getMessage().startsWith("cannot open database /missing on " + env.uri() + ": "),
          e.getMessage());
      assertTrue(e.getMessage().contains("create_if_missing is false"), e.getMessage());
      assertEquals(Status.Code.InvalidArgument, e.rocksCode().orElseThrow());
      assertEquals(List.of(), env.openDatabases());
    }
  }

  @Test
  void writeBufferTooLargeForTheDeviceIsRefusedAtOpen() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ZkvDb.open(env, "/big"));
      assertEquals(
          "writeBufferSize 67108864 is too large for "
              + env.uri()
              + ": RocksDB may hold 2 write"
              + " buffers (134217728 bytes) and must be able to flush them, but the device's data"
              + " zones hold 75497472 bytes (one zone is kept for garbage collection); use at most"
              + " 37748736",
          e.getMessage());
      assertEquals(List.of(), env.openDatabases());
    }
  }

  @Test
  void everyCompressionRoundTrips() throws Exception {
    String uri = TestDevices.medium(dir);
    for (Compression c : Compression.values()) {
      try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED)) {
        ZkvOptions o = small().toBuilder().compression(c).build();
        try (ZkvDb db = ZkvDb.open(env, "/c/" + c, o)) {
          for (int i = 0; i < 2000; i++) {
            db.put(b(key(i)), b(value(i, c.name())));
          }
          db.flush();
          db.compactRange();
        }
        try (ZkvDb db = ZkvDb.open(env, "/c/" + c, o)) {
          for (int i = 0; i < 2000; i += 97) {
            assertEquals(value(i, c.name()), s(db.get(b(key(i)))), c + " " + key(i));
          }
        }
      }
    }
  }

  @Test
  void aBloomFilterIsWrittenIntoEverySstFileOnlyWhenAsked() throws Exception {
    String uri = TestDevices.medium(dir);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED)) {
      for (double bits : new double[] {0, 10}) {
        ZkvOptions o = small().toBuilder().bloomFilterBitsPerKey(bits).build();
        try (ZkvDb db = ZkvDb.open(env, "/bloom/" + bits, o)) {
          for (int i = 0; i < 2000; i++) {
            db.put(b(key(i)), b(value(i, "bloom")));
          }
          db.flush();
          String props = db.property("rocksdb.aggregated-table-properties").orElseThrow();
          long filterBytes = filterBlockSize(props);
          if (bits == 0) {
            assertEquals(0, filterBytes, props);
          } else {
            // 2,000 keys at 10 bits each: at least 2,000 x 10 / 8 bytes of filter.
            assertTrue(filterBytes >= 2000 * 10 / 8, props);
          }
          assertEquals(value(7, "bloom"), s(db.get(b(key(7)))));
          assertNull(db.get(b("absent")));
        }
      }
    }
  }

  private static long filterBlockSize(String tableProperties) {
    Matcher m = Pattern.compile("filter block size=(\\d+)").matcher(tableProperties);
    assertTrue(m.find(), tableProperties);
    return Long.parseLong(m.group(1));
  }

  @Test
  void walDisabledAndSyncWritesBothPersistAcrossACleanClose() throws Exception {
    String uri = TestDevices.medium(dir);
    ZkvOptions noWal = small().toBuilder().disableWal(true).build();
    ZkvOptions sync = small().toBuilder().syncWrites(true).build();
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT);
        ZkvDb a = ZkvDb.open(env, "/nowal", noWal);
        ZkvDb b = ZkvDb.open(env, "/sync", sync)) {
      for (int i = 0; i < 500; i++) {
        a.put(b(key(i)), b(value(i, "nowal")));
        b.put(b(key(i)), b(value(i, "sync")));
      }
      a.resume(); // not stopped: a no-op
      b.resume();
      a.put(b("after-resume"), b("ok"));
    }
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb a = ZkvDb.open(env, "/nowal", noWal);
        ZkvDb b = ZkvDb.open(env, "/sync", sync)) {
      for (int i = 0; i < 500; i++) {
        assertEquals(value(i, "nowal"), s(a.get(b(key(i)))), "closing flushed the memtable");
        assertEquals(value(i, "sync"), s(b.get(b(key(i)))));
      }
      assertArrayEquals(b("ok"), a.get(b("after-resume")));
    }
  }

  @Test
  void destroyDeletesTheDatabaseAndItsFiles() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT)) {
      try (ZkvDb keep = ZkvDb.open(env, "/keep", small());
          ZkvDb gone = ZkvDb.open(env, "/gone", small())) {
        for (int i = 0; i < 3000; i++) {
          keep.put(b(key(i)), b(value(i, "keep")));
          gone.put(b(key(i)), b(value(i, "gone")));
        }
        keep.flush();
        gone.flush();
      }
      int filesBefore = env.stats().files();
      long liveBefore = env.stats().liveBytes();
      ZkvDb.destroy(env, "/gone");
      assertTrue(env.stats().files() < filesBefore, env.stats() + " vs " + filesBefore + " files");
      assertTrue(env.stats().liveBytes() < liveBefore, env.stats().toString());
      ZkvDb.destroy(env, "/never-existed"); // nothing to do
      ZkvOptions mustExist = small().toBuilder().createIfMissing(false).build();
      assertThrows(ZkvException.class, () -> ZkvDb.open(env, "/gone", mustExist));
      try (ZkvDb keep = ZkvDb.open(env, "/keep", mustExist)) {
        assertEquals(value(2999, "keep"), s(keep.get(b(key(2999)))));
      }
    }
  }

  @Test
  void concurrentWritersAndReaders() throws Exception {
    try (ZonedEnv env = ZonedEnv.open(TestDevices.medium(dir), ZonedEnv.Mode.FORMAT);
        ZkvDb db = ZkvDb.open(env, "/mt", small())) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int thread = t;
          done.add(
              pool.submit(
                  () -> {
                    int seen = 0;
                    for (int i = 0; i < 2000; i++) {
                      String k = "t" + thread + "-" + key(i);
                      db.put(b(k), b(value(i, "t" + thread)));
                      if (db.get(b(k)) != null) {
                        seen++;
                      }
                    }
                    return seen;
                  }));
        }
        for (Future<Integer> f : done) {
          assertEquals(2000, f.get(), "each thread reads its own writes");
        }
      } finally {
        pool.shutdown();
      }
      try (ZkvIterator it = db.iterator()) {
        assertEquals(8000, contents(it).size());
      }
    }
  }
}
