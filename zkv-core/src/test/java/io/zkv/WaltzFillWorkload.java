package io.zkv;

import io.zkv.placement.ZoneInfo;
import io.zkv.placement.ZoneReservation;
import io.zkv.placement.ZoneTable;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.SplittableRandom;

/**
 * The child JVM of {@code WaltzSmallDeviceTest}'s SIGKILL cycles: writer threads overwrite (and now
 * and then delete) their keys in a WALTZ database on a small device until the parent kills the JVM.
 * Lines, unbuffered: "try key version [D]" before a write starts, "ack key version [D]" after it
 * returned, and "nospace key version reclaimable zoneCapacity message" when a write failed for want
 * of space, with the garbage the file system could have reclaimed then: the lesser of a reading
 * taken before the write started and one after it failed (a compaction ending or a collection in
 * between changes it; both above a zone means it stayed there: {@link Sampler}). The writer then
 * resumes the database, as ZkvDb's contract says, and goes on after a pause: the parent decides
 * whether the failure was allowed. A value starts with its version and key ({@link
 * WaltzKillWorkload#value}).
 *
 * <p>Arguments: device URI, seed, first version, writers, keys per writer, largest value, and "1"
 * to mount with the env's default options (its reserved WAL zones) or "0" without them.
 */
public final class WaltzFillWorkload {
  static final String DB = "/waltz/fill";

  private WaltzFillWorkload() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    long seed = Long.parseLong(args[1]);
    long firstVersion = Long.parseLong(args[2]);
    int writers = Integer.parseInt(args[3]);
    int keysPerWriter = Integer.parseInt(args[4]);
    int maxValue = Integer.parseInt(args[5]);
    boolean defaultEnv = args[6].equals("1");
    // Never closed: the JVM is killed while everything runs.
    ZonedEnv env =
        ZonedEnv.open(
            uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED, WaltzSmallDeviceTest.envOptions(defaultEnv));
    ZkvDb db = ZkvDb.open(env, DB, WaltzSmallDeviceTest.options());
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
    out.println("open");
    Sampler sampler = Sampler.start(env, DB);
    Thread stats =
        new Thread(
            () -> {
              for (; ; ) {
                out.println(WaltzSmallDeviceTest.statsLine(env));
                sleep(200);
              }
            });
    stats.setDaemon(true);
    stats.start();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      Thread t =
          new Thread(
              () -> {
                Writes writes =
                    new Writes(seed, writer, writers, keysPerWriter, maxValue, firstVersion);
                for (; ; ) {
                  String tail = writes.next();
                  out.println("try" + tail);
                  long before = sampler.last();
                  try {
                    writes.apply(db);
                    out.println("ack" + tail);
                  } catch (ZkvNoSpaceException e) {
                    out.println(
                        "nospace"
                            + tail.replace(" D", "")
                            + " "
                            + Math.min(before, reclaimable(env, DB))
                            + " "
                            + env.geometry().zoneCapacity()
                            + " "
                            + e.getMessage().replace('\n', ' '));
                    resumeQuietly(db); // as ZkvDb's contract says, once space may be free
                    sleep(50);
                  }
                }
              });
      t.setDaemon(false);
      t.start();
    }
  }

  /**
   * The writes of one writer, drawn from the seed: each a put or (one in 16) a delete of one of its
   * own keys, with a version that grows across writers and cycles.
   */
  static final class Writes {
    private final SplittableRandom r;
    private final int writer;
    private final int writers;
    private final int keysPerWriter;
    private final int maxValue;
    private final long firstVersion;
    private long count;
    private int key;
    private long version;
    private boolean delete;

    Writes(long seed, int writer, int writers, int keysPerWriter, int maxValue, long firstVersion) {
      this.r = new SplittableRandom(seed * 7 + writer);
      this.writer = writer;
      this.writers = writers;
      this.keysPerWriter = keysPerWriter;
      this.maxValue = maxValue;
      this.firstVersion = firstVersion;
    }

    /**
     * Draws the next write; returns the tail of its lines: " key version" and " D" for a delete.
     */
    String next() {
      key = writer * keysPerWriter + r.nextInt(keysPerWriter);
      version = firstVersion + count++ * writers + writer;
      delete = r.nextInt(16) == 0;
      return " " + key + " " + version + (delete ? " D" : "");
    }

    /** Does the write drawn last. */
    void apply(ZkvDb db) {
      if (delete) {
        db.delete(WaltzKillWorkload.key(key));
      } else {
        db.put(WaltzKillWorkload.key(key), value(key, version, r.nextInt(maxValue)));
      }
    }
  }

  /**
   * A value of {@code 12 + extra} bytes: its version and key ({@link WaltzKillWorkload#versionOf}
   * reads them back), then bytes drawn from both, so that RocksDB's compression cannot shrink the
   * live set and the device fills as the key count says.
   */
  static byte[] value(int k, long version, int extra) {
    byte[] v = WaltzKillWorkload.value(k, version, extra);
    SplittableRandom r = new SplittableRandom(version * 31 + k);
    for (int i = 12; i < v.length; i++) {
      v[i] = (byte) r.nextInt(256);
    }
    return v;
  }

  /**
   * Garbage the file system could give back now: written bytes no file holds, in the zones files
   * are written to (not the metadata zones, not the log's leased zones, whose records are live
   * until a flush covers them).
   */
  static long reclaimable(ZonedEnv env, String db) {
    ZoneTable t = env.zoneTable();
    java.util.Set<Integer> log = new java.util.HashSet<>();
    for (int z : env.zoneFs().leasedZones(WaltzMode.ownerOf(db))) {
      log.add(z);
    }
    long n = 0;
    for (int i = 0; i < t.zoneCount(); i++) {
      ZoneInfo z = t.zone(i);
      if (z.reservation() == ZoneReservation.NONE && !log.contains(i)) {
        n += z.garbageBytes();
      }
    }
    return n;
  }

  /**
   * Reads {@link #reclaimable} every 20 ms in a thread of its own, so that a writer can note the
   * latest reading before each write without reading the zones itself.
   */
  static final class Sampler {
    private volatile long last = Long.MAX_VALUE; // none yet: never the lesser of two
    private volatile boolean stopped;

    static Sampler start(ZonedEnv env, String db) {
      Sampler s = new Sampler();
      Thread t =
          new Thread(
              () -> {
                while (!s.stopped) {
                  try {
                    s.last = reclaimable(env, db);
                  } catch (RuntimeException gone) {
                    return; // the env closed or the power is gone
                  }
                  sleep(20);
                }
              });
      t.setDaemon(true);
      t.start();
      return s;
    }

    long last() {
      return last;
    }

    void stop() {
      stopped = true;
    }
  }

  /**
   * What a user does after a NoSpace (ZkvDb's contract): resume, which reopens the database and
   * replays its log if space allows; a resume that still finds no room leaves it stopped.
   */
  static void resumeQuietly(ZkvDb db) {
    try {
      db.resume();
    } catch (ZkvException stillFull) {
      // the next NoSpace tries again
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
