package io.zkv;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The child JVM of {@code WaltzRocksDbTest}'s SIGKILL cycles: four writer threads put, delete and
 * batch into a WALTZ database until the parent kills the JVM. Each write is announced on stdout
 * before it starts ("try key version [D]") and acknowledged after it returned ("ack key version
 * [D]"); a value starts with its version and key. One writer per key, so a key has at most one
 * write in flight when the JVM dies.
 *
 * <p>Arguments: device URI, seed, first version (versions grow across the parent's cycles).
 */
public final class WaltzKillWorkload {
  static final String DB = "/waltz/kill";
  static final int WRITERS = 4;
  static final int KEYS_PER_WRITER = 200;

  private WaltzKillWorkload() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    long seed = Long.parseLong(args[1]);
    long firstVersion = Long.parseLong(args[2]);
    // Never closed: the JVM is killed while everything runs.
    ZonedEnv env =
        ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED, WaltzRocksDbTest.envOptions());
    ZkvDb db = ZkvDb.open(env, DB, WaltzRocksDbTest.waltz());
    // Unbuffered: a line is in the output file before the write it announces starts (System.out
    // may keep a line in its buffer when the JVM is killed)
    java.io.PrintStream out =
        new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true);
    out.println("open");
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      Thread t =
          new Thread(
              () -> {
                SplittableRandom r = new SplittableRandom(seed * 7 + writer);
                for (long i = 0; ; i++) {
                  int k = writer * KEYS_PER_WRITER + r.nextInt(KEYS_PER_WRITER);
                  long version = firstVersion + i * WRITERS + writer;
                  boolean delete = r.nextInt(8) == 0;
                  String tail = " " + k + " " + version + (delete ? " D" : "");
                  out.println("try" + tail);
                  if (delete) {
                    db.delete(key(k));
                  } else {
                    byte[] v = value(k, version, r.nextInt(3000));
                    if (r.nextInt(4) == 0) {
                      db.write(new ZkvBatch().put(key(k), v));
                    } else {
                      db.put(key(k), v);
                    }
                  }
                  out.println("ack" + tail);
                }
              });
      t.setDaemon(false);
      t.start();
    }
  }

  static byte[] key(int k) {
    return ("kill-" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  static byte[] value(int k, long version, int extra) {
    byte[] v = new byte[12 + extra];
    ByteBuffer.wrap(v).putLong(version).putInt(k);
    return v;
  }

  /** The version a stored value carries, checking its key. */
  static long versionOf(int k, byte[] v) {
    ByteBuffer b = ByteBuffer.wrap(v);
    long version = b.getLong();
    if (b.getInt() != k) {
      throw new AssertionError("value of key " + k + " carries another key");
    }
    return version;
  }
}
