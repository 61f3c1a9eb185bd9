package io.zkv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Status;

/**
 * A device filled to the last zone: unique keys (nothing to garbage-collect), WAL on, until RocksDB
 * reports NoSpace.
 */
class FullDeviceTest {
  /** 12 zones of 4 MiB with 3 MiB capacity: 9 data zones (27 MiB) after the 3 meta zones. */
  static final DeviceGeometry TINY = DeviceGeometry.of(12, 4L << 20, 3L << 20, 8, 8, 1 << 20);

  static final ZkvOptions OPTIONS =
      ZkvOptions.builder()
          .writeBufferSize(1L << 20)
          .compression(Compression.NONE)
          .rocksDbTuning(o -> o.setTargetFileSizeBase(1L << 20))
          .build();

  @TempDir Path dir;

  static byte[] key(int i) {
    return String.format("key%08d", i).getBytes();
  }

  /** 1000 incompressible bytes that name their key. */
  static byte[] value(int i) {
    byte[] v = new byte[1000];
    new SplittableRandom(i).nextBytes(v);
    ByteBuffer.wrap(v).putInt(i);
    return v;
  }

  /** Puts keys 0, 1, 2, ... until NoSpace; returns how many were acknowledged. */
  static int fill(ZkvDb db) {
    for (int n = 0; ; n++) {
      try {
        db.put(key(n), value(n));
      } catch (ZkvNoSpaceException e) {
        assertEquals(Status.Code.IOError, e.rocksCode().orElseThrow(), e.getMessage());
        assertEquals(Status.SubCode.NoSpace, e.rocksSubCode().orElseThrow(), e.getMessage());
        assertTrue(e.getMessage().startsWith("put in /full: "), e.getMessage());
        return n;
      }
    }
  }

  static void assertAllReadable(ZkvDb db, int from, int to) {
    for (int i = from; i < to; i++) {
      assertArrayEquals(value(i), db.get(key(i)), "acknowledged key " + i);
    }
    try (ZkvIterator it = db.iterator(key(from), key(to))) {
      for (int i = from; i < to; i++) {
        assertTrue(it.hasNext(), "iterator ends before key " + i);
        ZkvEntry e = it.next();
        assertArrayEquals(key(i), e.key());
        assertArrayEquals(value(i), e.value());
      }
      assertFalse(it.hasNext());
    }
  }

  @Test
  void aFullDeviceRaisesNoSpaceAndEveryAcknowledgedKeyStaysReadable() throws Exception {
    String uri = TestDevices.format(dir, "full", TINY);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      ZkvDb db = ZkvDb.open(env, "/full", OPTIONS);
      int n = fill(db);
      long capacity = (TINY.zoneCount() - 3) * TINY.zoneCapacity();
      assertTrue(
          n * 1011L > capacity / 2,
          n + " keys of 1011 bytes before NoSpace on " + capacity + " bytes: " + env.stats());
      // writes stay stopped: RocksDB's hard error
      assertThrows(ZkvNoSpaceException.class, () -> db.put(key(n), value(n)));
      assertThrows(ZkvNoSpaceException.class, () -> db.write(new ZkvBatch().put(key(n), value(n))));
      assertAllReadable(db, 0, n);
      assertNull(db.get(key(n)), "the refused write did not happen");

      // nothing was freed: resume() refuses without touching the database, which stays readable
      ZkvNoSpaceException noRoom = assertThrows(ZkvNoSpaceException.class, db::resume);
      assertTrue(
          noRoom.getMessage().startsWith("cannot resume /full: ")
              && noRoom.getMessage().contains("are needed to flush")
              && noRoom.getMessage().contains("free at least ")
              && noRoom.getMessage().contains("deleteFilesInRange"),
          noRoom.getMessage()); // how much to free, and how
      assertEquals(Status.SubCode.NoSpace, noRoom.rocksSubCode().orElseThrow());
      assertAllReadable(db, n - 100, n);

      System.out.printf(
          "full device (%s): NoSpace after %d acknowledged puts of 1011 bytes; %s%n",
          TINY, n, env.stats());
      try {
        db.close();
      } catch (ZkvException e) {
        // zkv-native: the WAL's buffered tail cannot be written on a full device (see the
        // disabled test below); the database is closed regardless and may not be reopened in
        // this mount
        System.out.println("close of the full database: " + e.getMessage());
        assertTrue(e instanceof ZkvNoSpaceException, "typed NoSpace: " + e);
        IllegalStateException unsafe =
            assertThrows(IllegalStateException.class, () -> ZkvDb.open(env, "/full", OPTIONS));
        assertTrue(unsafe.getMessage().contains("was not closed cleanly"), unsafe.getMessage());
      }
      assertTrue(db.isClosed());
      assertEquals(Arrays.asList(), env.openDatabases());
    }
  }

  /**
   * Every operation on a full device ends, with success or a typed NoSpace: manual compactions of a
   * range and of the whole database, three times each, also while a writer keeps hitting NoSpace.
   * (A report had compactRange stuck in the native call in about 1 run in 6; this bounds the wait.)
   */
  @Test
  void compactionsOfAFullDatabaseEnd() throws Exception {
    String uri = TestDevices.format(dir, "full", TINY);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT)) {
      ZkvDb db = ZkvDb.open(env, "/full", OPTIONS);
      int n = fill(db);
      AtomicBoolean stop = new AtomicBoolean();
      Thread writer =
          new Thread(
              () -> {
                for (int i = n; !stop.get(); i++) {
                  try {
                    db.put(key(i), value(i));
                  } catch (ZkvNoSpaceException e) {
                    // expected: the device is full
                  }
                }
              });
      writer.start();
      List<String> outcomes = new ArrayList<>();
      Thread compactor =
          new Thread(
              () -> {
                for (int round = 0; round < 3; round++) {
                  for (boolean ranged : new boolean[] {true, false}) {
                    try {
                      if (ranged) {
                        db.compactRange(key(0), key(n));
                      } else {
                        db.compactRange();
                      }
                      outcomes.add("ok");
                    } catch (ZkvNoSpaceException e) {
                      outcomes.add("NoSpace");
                    }
                  }
                }
              });
      compactor.start();
      compactor.join(120_000);
      stop.set(true);
      writer.join(120_000);
      assertFalse(compactor.isAlive(), "compactRange on a full device did not end: " + outcomes);
      assertFalse(writer.isAlive(), "a put on a full device did not end");
      assertEquals(6, outcomes.size(), outcomes.toString());
      assertAllReadable(db, 0, n);
      try {
        db.close();
      } catch (ZkvException e) {
        // the WAL's tail cannot be written on a full device (see the first test)
      }
    }
  }

  /**
   * The recovery the API promises: free space in the stopped database, resume, delete the range for
   * good, write again, and find every acknowledged key outside the range, also after a remount.
   */
  @Test
  void freeingSpaceAfterNoSpaceLetsWritesResume() throws Exception {
    String uri = TestDevices.format(dir, "full", TINY);
    int n;
    int more = 2000;
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT);
        ZkvDb db = ZkvDb.open(env, "/full", OPTIONS)) {
      n = fill(db);
      assertAllReadable(db, 0, n);
      int half = n / 2;
      db.deleteFilesInRange(key(0), key(half)); // a manifest record; frees whole SST files
      db.resume();
      db.deleteRange(key(0), key(half));
      db.compactRange(key(0), key(half));
      assertAllReadable(db, half, n);
      for (int i = n; i < n + more; i++) {
        db.put(key(i), value(i));
      }
      assertAllReadable(db, half, n + more);
      try (ZkvIterator it = db.iterator(key(0), key(half))) {
        assertFalse(it.hasNext(), "the deleted range is empty");
      }
    }
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb db = ZkvDb.open(env, "/full", OPTIONS)) {
      assertAllReadable(db, n / 2, n + more);
    }
  }

  /** Every failure a full device causes is typed NoSpace, resume() with the WAL disabled too. */
  @Test
  void withTheWalDisabledResumeOnAFullDeviceIsNoSpace() throws Exception {
    String uri = TestDevices.format(dir, "full", TINY);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT);
        ZkvDb db = ZkvDb.open(env, "/full", OPTIONS.toBuilder().disableWal(true).build())) {
      int n = fill(db);
      for (Runnable op :
          List.<Runnable>of(
              () -> db.put(key(n), value(n)), db::flush, db::compactRange, db::resume)) {
        ZkvNoSpaceException e = assertThrows(ZkvNoSpaceException.class, op::run);
        assertEquals(Status.SubCode.NoSpace, e.rocksSubCode().orElseThrow(), e.getMessage());
        assertTrue(e.getMessage().contains("No space left on device (ENOSPC)"), e.getMessage());
      }
    }
  }
}
