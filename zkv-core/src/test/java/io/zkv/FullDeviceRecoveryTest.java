package io.zkv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.zkv.device.DeviceGeometry;
import io.zkv.wal.WalMode;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/**
 * A full device is recovered as a user would recover it: fill a database with synced puts until
 * NoSpace, remount, free half of the keys (a range delete and a compaction, or whole files),
 * resume, then write again until NoSpace a second time. Every call ends within a bound and succeeds
 * or fails with a typed {@link ZkvException}; the second fill gets at least 30% of the first fill's
 * keys in; every acknowledged key outside the freed half keeps its value, also after a remount.
 */
class FullDeviceRecoveryTest {
  /** Bound on any one call; a call still running after it is reported as a hang. */
  static final long CALL_BOUND_SECONDS = 120;

  static final int KEY_SPACE = 1 << 24;

  /** In which order the fills write their keys. */
  enum KeyOrder {
    /** 0, 1, 2, ...: RocksDB's compactions mostly move files (the case). */
    SEQUENTIAL,
    /**
     * Uniformly random over {@link #KEY_SPACE}: every L0 file spans the key space, so RocksDB's
     * compactions rewrite the whole database and need as much room again while they run.
     */
    RANDOM
  }

  /** How the user frees space. */
  enum Freeing {
    /** {@code deleteRange} over the lower half, then {@code compactRange} over it. */
    DELETE_RANGE_AND_COMPACT,
    /** {@code deleteFilesInRange} over the lower half, then {@code compactRange} over it. */
    DELETE_FILES_IN_RANGE
  }

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    DeviceGeometry[] geometries = {
      DeviceGeometry.of(16, 8L << 20, 6L << 20, 8, 8, 1 << 20),
      DeviceGeometry.of(16, 4L << 20, 3L << 20, 8, 8, 1 << 20),
      DeviceGeometry.of(16, 4L << 20, 4L << 20, 8, 8, 1 << 20), // capacity = size
    };
    long[] seeds = {11, 12, 13};
    for (KeyOrder order : KeyOrder.values()) {
      for (Freeing how : Freeing.values()) {
        for (DeviceGeometry g : geometries) {
          for (long seed : seeds) {
            all.add(Arguments.of(order, how, g, seed));
          }
        }
      }
    }
    return all.stream();
  }

  /** Synced puts, 1 MiB memtables and SST files, no compression; RocksDB's defaults otherwise. */
  static final ZkvOptions OPTIONS =
      ZkvOptions.builder()
          .writeBufferSize(1L << 20)
          .syncWrites(true)
          .compression(Compression.NONE)
          .build();

  /** RocksDB's defaults but for 1 MiB SST files. */
  static void shape(Options o) {
    o.setTargetFileSizeBase(1L << 20);
  }

  /**
   * {@link #shape} with writes slowed at 4 L0 files and stopped at 8 (RocksDB: 20 and 36), so that
   * a full device, whose automatic compactions cannot run, soon holds a database whose writes are
   * stalled. There, {@code compactRange} waited forever for the stall to clear (its flush's default
   * waits for automatic compactions, which cannot run): 1 of 27 cases in three runs of {@link
   * #everyCallOnAStalledFullDeviceEnds} before ZkvDb allowed the stall.
   */
  static void stallingShape(Options o) {
    shape(o);
    o.setLevel0SlowdownWritesTrigger(4);
    o.setLevel0StopWritesTrigger(8);
  }

  @TempDir Path dir;

  private final ExecutorService calls = Executors.newSingleThreadExecutor();
  private final List<String> log = new ArrayList<>();
  // RocksDB's warnings, for the failure message; leaked when a call hung (RocksDB may still log)
  private final RecentRocksDbWarnings rocksWarnings = new RecentRocksDbWarnings(40);
  private boolean hung; // a call did not end: nothing more can run on the call thread
  private KeyOrder order = KeyOrder.RANDOM;
  private int nextSequential; // SEQUENTIAL: the next key a fill writes
  private int half = KEY_SPACE / 2; // keys below it are the half a user frees
  private boolean waltz; // writes through WALTZ's log (RocksDB's WAL off), not RocksDB's WAL
  private boolean stalling; // the stallingShape

  static byte[] key(int k) {
    return String.format("k%08d", k).getBytes();
  }

  /** 1,000-4,096 incompressible bytes, a function of key and fill round. */
  static byte[] value(int k, int round) {
    SplittableRandom r = new SplittableRandom(k * 31L + round);
    byte[] v = new byte[1000 + r.nextInt(3097)];
    r.nextBytes(v);
    ByteBuffer.wrap(v).putInt(k).putInt(round);
    return v;
  }

  interface Call<T> {
    T run() throws Exception;
  }

  /** Runs one call within the bound: its result, or the typed ZkvException it threw (logged). */
  <T> T bounded(String what, Call<T> call) throws Exception {
    Future<T> f = calls.submit(call::run);
    try {
      T t = f.get(CALL_BOUND_SECONDS, TimeUnit.SECONDS);
      log.add(what + ": ok");
      return t;
    } catch (TimeoutException e) {
      hung = true;
      fail(what + " did not end within " + CALL_BOUND_SECONDS + " s (hang); steps so far: " + log);
      return null;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ZkvException z) {
        log.add(what + ": " + z.getClass().getSimpleName() + " " + z.getMessage());
        throw z;
      }
      throw new AssertionError(what + " failed untyped; steps so far: " + log, e.getCause());
    }
  }

  interface Step {
    void run() throws Exception;
  }

  /** Like {@link #bounded}, where a typed failure is an allowed outcome; whether it succeeded. */
  boolean boundedTolerant(String what, Step step) throws Exception {
    try {
      bounded(
          what,
          () -> {
            step.run();
            return null;
          });
      return true;
    } catch (ZkvException e) {
      return false; // typed: allowed, logged
    }
  }

  /** Puts new keys until NoSpace; acknowledged ones go to {@code acked} (key to round). */
  int fill(ZkvDb db, SplittableRandom rnd, int round, Map<Integer, Integer> acked)
      throws Exception {
    return bounded(
        "fill " + round,
        () -> {
          for (int n = 0; ; ) {
            int k = order == KeyOrder.SEQUENTIAL ? nextSequential++ : rnd.nextInt(KEY_SPACE);
            if (acked.containsKey(k)) {
              continue;
            }
            try {
              db.put(key(k), value(k, round));
            } catch (ZkvNoSpaceException e) {
              return n;
            }
            acked.put(k, round);
            n++;
          }
        });
  }

  /** What the lower half of the first fill's keys may read as. */
  enum Lower {
    /** Every key with its value: nothing deleted yet. */
    KEPT,
    /** None: deleted by a range delete that succeeded. */
    GONE,
    /** Absent or with its value: deleteFilesInRange, or a range delete that failed typed. */
    EITHER
  }

  /** Reads a key: a ZkvDb's get, or a read-only RocksDB's. */
  interface Reader {
    byte[] get(byte[] key) throws Exception;
  }

  void verify(ZkvDb db, TreeMap<Integer, Integer> acked, Lower lower) throws Exception {
    verify(db::get, acked, lower);
  }

  void verify(Reader db, TreeMap<Integer, Integer> acked, Lower lower) throws Exception {
    bounded(
        "verify",
        () -> {
          for (Map.Entry<Integer, Integer> e : acked.entrySet()) {
            int k = e.getKey();
            byte[] got = db.get(key(k));
            byte[] want = value(k, e.getValue());
            if (lower == Lower.KEPT || k >= half || e.getValue() > 1) {
              assertNotNull(got, "acknowledged key " + k + " lost; " + log);
              assertArrayEquals(want, got, "acknowledged key " + k + " changed");
            } else if (lower == Lower.GONE) {
              assertNull(got, "key " + k + " of the deleted range is back");
            } else if (got != null) {
              assertArrayEquals(want, got, "key " + k + " of the freed range changed");
            }
          }
          return null;
        });
  }

  @ParameterizedTest(name = "{0} {1} {2} seed {3}")
  @MethodSource("cases")
  void aFullDeviceIsRecoveredByDeletingData(
      KeyOrder order, Freeing how, DeviceGeometry g, long seed) throws Exception {
    this.order = order;
    int[] fills = fillFreeAndFillAgain(how, g, seed, FullDeviceRecoveryTest::shape, true);
    // Random keys: writes must resume; how far the second fill gets varies with when RocksDB's
    // whole-database compactions run (10-75% measured; 4.6% once, loaded, where the first close
    // failed and the reopen's replaying flush left an L0 file across the whole key space, which
    // deleteFilesInRange cannot drop), so the 30% is asserted for the sequential keys it
    // describes (47-52% measured). 0% in 4 of about 100 random-key cases before ZkvDb deleted what
    // a failed compactRange left behind (ZkvDb.deleteLeftovers).
    if (order == KeyOrder.SEQUENTIAL) {
      assertTrue(
          fills[1] >= 0.3 * fills[0],
          "second fill " + fills[1] + " keys, under 30% of the first's " + fills[0] + "; " + log);
    } else {
      assertTrue(fills[1] > 0, "nothing written after the resume; " + log);
    }
  }

  /**
   * The same in WALTZ mode (its log above RocksDB, RocksDB's WAL off): {@code resume()} reopens the
   * stopped database, which drops its memtable, and replays the log into it ({@code
   * WaltzMode.replayInto}); the env keeps no WAL zones of its own (the log leases its zones).
   * Sequential keys (the reliability issue's case): every acknowledged key is checked after the
   * resume and after a remount, and writes must go in again. Random keys: every call ends (success
   * or a typed failure) and no acknowledged key is lost (checked at the end, read-only: the SSTs
   * overlaid with the log); how much the second fill gets in is printed, not asserted (14-83% in
   * the 18 random-key cases of two runs, 2026-11-28; before the flushed-through marks 3 of them
   * freed nothing: docs/wal.md, "A full device").
   */
  @ParameterizedTest(name = "{0} {1} {2} seed {3}")
  @MethodSource("cases")
  void aFullDeviceIsRecoveredInWaltzMode(KeyOrder order, Freeing how, DeviceGeometry g, long seed)
      throws Exception {
    this.order = order;
    this.waltz = true;
    boolean sequential = order == KeyOrder.SEQUENTIAL;
    int[] fills = fillFreeAndFillAgain(how, g, seed, FullDeviceRecoveryTest::shape, sequential);
    if (sequential) {
      assertTrue(fills[1] > 0, "nothing written after the resume; " + log);
    }
  }

  /**
   * Item 2 of the reliability issue: with writes stalled on a full device, every call ends (success
   * or a typed failure), and no acknowledged key is lost; a fill ends within the bound, so a
   * stalled database's puts fail with NoSpace rather than crawl (rocks/stalled_no_space.h). How
   * much the second fill gets in is printed, not asserted (0% in most cases before that rule,
   * 38-61% since, one loaded run).
   */
  @ParameterizedTest(name = "{2} seed {3}")
  @MethodSource("stallingCases")
  void everyCallOnAStalledFullDeviceEnds(KeyOrder order, Freeing how, DeviceGeometry g, long seed)
      throws Exception {
    this.order = order;
    this.stalling = true;
    fillFreeAndFillAgain(how, g, seed, FullDeviceRecoveryTest::stallingShape, false);
  }

  static Stream<Arguments> stallingCases() {
    return cases()
        .filter(
            a -> a.get()[0] == KeyOrder.RANDOM && a.get()[1] == Freeing.DELETE_RANGE_AND_COMPACT);
  }

  /**
   * Fills, remounts, frees half of the keys, resumes and fills again; then remounts and checks
   * every acknowledged key. {@code recoverable}: the database must reopen on the full device and
   * stay readable throughout (else only the last check is strict). Returns both fills' key counts.
   */
  int[] fillFreeAndFillAgain(
      Freeing how, DeviceGeometry g, long seed, Consumer<Options> shape, boolean recoverable)
      throws Exception {
    ZkvOptions.Builder base =
        waltz ? OPTIONS.toBuilder().walMode(WalMode.WALTZ) : OPTIONS.toBuilder();
    ZkvOptions options =
        base.rocksDbTuning(
                o -> {
                  shape.accept(o);
                  o.setLogger(rocksWarnings);
                })
            .build();
    String uri = TestDevices.format(dir, "full", g);
    SplittableRandom rnd = new SplittableRandom(seed);
    TreeMap<Integer, Integer> acked = new TreeMap<>();
    int first;
    int second = 0;
    try {
      try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT, envOptions())) {
        ZkvDb db = bounded("open", () -> ZkvDb.open(env, "/db", options));
        try {
          first = fill(db, rnd, 1, acked);
          if (order == KeyOrder.SEQUENTIAL) {
            half = first / 2;
          }
        } finally {
          closeBounded("close after the first fill", db);
        }
      }
      Lower lower = Lower.KEPT;
      try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions())) {
        ZkvDb db = openOnFullDevice(env, options, recoverable);
        if (db != null) {
          try {
            if (recoverable) {
              verify(db, acked, lower);
            }
            if (how == Freeing.DELETE_RANGE_AND_COMPACT) {
              lower = Lower.EITHER;
              if (boundedTolerant("deleteRange", () -> db.deleteRange(key(0), key(half)))) {
                lower = Lower.GONE;
              }
              boundedTolerant("compactRange", () -> db.compactRange(key(0), key(half)));
            } else {
              lower = Lower.EITHER;
              boundedTolerant("deleteFilesInRange", () -> db.deleteFilesInRange(key(0), key(half)));
              boundedTolerant("compactRange", () -> db.compactRange(key(0), key(half)));
            }
            boundedTolerant("resume", db::resume);
            if (recoverable) {
              verify(db, acked, lower);
            }
            second = fill(db, rnd, 2, acked);
            if (recoverable) {
              verify(db, acked, lower);
            }
          } finally {
            closeBounded("close after the second fill", db);
          }
        }
      }
      System.out.printf(
          "full device %s seed %d %s %s keys%s: first fill %d keys, second %d (%.0f%%)%n",
          g,
          seed,
          how,
          order,
          (waltz ? " (WALTZ)" : "") + (stalling ? " (writes stop at 8 L0 files)" : ""),
          first,
          second,
          100.0 * second / first);
      try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, envOptions())) {
        // Read-only: it writes nothing, so it checks what the device holds even where a
        // read-write open after the second fill finds no room for its new MANIFEST (seen once in
        // about 100 cases, 4 MiB zones; docs/zone-fs.md, "Reserves").
        try (Options o = new Options().setEnv(env.rocksEnv());
            RocksDB db = bounded("read-only open", () -> RocksDB.openReadOnly(o, "/db"))) {
          verify(waltz ? withWaltzLog(env, db) : db::get, acked, lower);
        }
      }
      return new int[] {first, second};
    } catch (Throwable t) {
      throw new AssertionError(
          "steps: "
              + log
              + "\nRocksDB's last warnings:\n  "
              + String.join("\n  ", rocksWarnings.lines()),
          t);
    } finally {
      calls.shutdownNow();
      if (!hung) {
        rocksWarnings.close(); // every database that logged to it is closed
      }
    }
  }

  /**
   * A read-only view of a WALTZ database: RocksDB's SSTs read through, overlaid with the records
   * its log's zones hold (a close that found no room to flush leaves them there; a read-write open
   * would replay them). A key's value is that of the latest record touching it, else the SSTs'.
   */
  static Reader withWaltzLog(ZonedEnv env, RocksDB db) {
    long owner = WaltzMode.ownerOf("/db");
    io.zkv.waltz.WaltzRecovery.Result r =
        io.zkv.waltz.WaltzRecovery.scan(new io.zkv.waltz.EnvZoneLeases(env.zoneFs(), owner), owner);
    assertTrue(r.unreadZones() == 0, r.problems().toString());
    Map<String, Object[]> points = new java.util.HashMap<>(); // key -> {seq, value or null}
    List<Object[]> ranges = new ArrayList<>(); // {seq, from, to}
    for (io.zkv.waltz.WaltzRecovery.Record rec : r.records()) {
      for (io.zkv.waltz.WaltzOp op : rec.ops()) {
        switch (op.kind()) {
          case PUT -> points.put(new String(op.a()), new Object[] {rec.seq(), op.b()});
          case DELETE -> points.put(new String(op.a()), new Object[] {rec.seq(), null});
          case DELETE_RANGE -> ranges.add(new Object[] {rec.seq(), op.a(), op.b()});
        }
      }
    }
    return key -> {
      long deletedAt = -1;
      for (Object[] d : ranges) {
        if (java.util.Arrays.compareUnsigned(key, (byte[]) d[1]) >= 0
            && java.util.Arrays.compareUnsigned(key, (byte[]) d[2]) < 0) {
          deletedAt = Math.max(deletedAt, (long) d[0]);
        }
      }
      Object[] p = points.get(new String(key));
      if (p != null && (long) p[0] > deletedAt) {
        return (byte[]) p[1];
      }
      return deletedAt >= 0 ? null : db.get(key);
    };
  }

  ZonedEnvOptions envOptions() {
    return waltz ? WaltzRocksDbTest.envOptions() : ZonedEnvOptions.defaults();
  }

  ZkvDb openOnFullDevice(ZonedEnv env, ZkvOptions options, boolean recoverable) throws Exception {
    if (recoverable) {
      return bounded("reopen on the full device", () -> ZkvDb.open(env, "/db", options));
    }
    try {
      return bounded("reopen on the full device", () -> ZkvDb.open(env, "/db", options));
    } catch (ZkvException e) {
      return null; // typed: allowed here
    }
  }

  /** Closes the database unless a call hung (the close would wait behind it). */
  void closeBounded(String what, ZkvDb db) throws Exception {
    if (!hung && !db.isClosed()) {
      boundedTolerant(what, db::close);
    }
  }
}
