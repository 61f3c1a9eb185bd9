package io.zkv;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The child JVM of {@link JvmExitTest}: a busy database (writer threads doing synced puts, a thread
 * flushing, a thread compacting) that is told to exit or is terminated at some moment. Each put is
 * acknowledged on stdout ("ack key version") only after it returned.
 *
 * <p>Arguments: device URI, seed, keys per writer, exit after this many acknowledgements (-1:
 * never, the parent terminates it).
 */
public final class ExitWorkload {
  static final String DB = "/exit/db";
  static final int WRITERS = 3;

  private ExitWorkload() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    long seed = Long.parseLong(args[1]);
    int keysPerWriter = Integer.parseInt(args[2]);
    long exitAfterAcks = Long.parseLong(args[3]);
    ZkvOptions options = options();
    // Never closed: the JVM goes while everything runs.
    ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED);
    ZkvDb db = ZkvDb.open(env, DB, options);
    Object ackLock = new Object();
    long[] acks = {0};
    long base = System.nanoTime(); // versions grow across runs of the child
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      SplittableRandom rnd = new SplittableRandom(seed + w);
      daemon(
          () -> {
            byte[] value = new byte[300];
            for (long i = 0; ; i++) {
              int k = writer * keysPerWriter + rnd.nextInt(keysPerWriter); // one writer per key
              long version = base + i * WRITERS + writer;
              ByteBuffer.wrap(value).putLong(version).putInt(k);
              db.put(key(k), value);
              synchronized (ackLock) {
                System.out.println("ack " + k + " " + version);
                if (++acks[0] == exitAfterAcks) {
                  System.out.println("exiting");
                  System.out.flush();
                  System.exit(3);
                }
              }
            }
          });
    }
    daemon(
        () -> {
          while (true) {
            db.flush();
          }
        });
    daemon(
        () -> {
          while (true) {
            db.compactRange();
          }
        });
    System.out.println("ready");
    System.out.flush();
    if (exitAfterAcks == 0) { // at once, the writers just started (no ack can equal 0)
      synchronized (ackLock) {
        System.out.println("exiting");
        System.out.flush();
        System.exit(3);
      }
    }
    Thread.sleep(Long.MAX_VALUE);
  }

  /** Small memtables and files: flushes and compactions all the time. */
  static ZkvOptions options() {
    return ZkvOptions.builder()
        .writeBufferSize(256 << 10)
        .syncWrites(true)
        .rocksDbTuning(o -> o.setTargetFileSizeBase(256 << 10).setLevel0FileNumCompactionTrigger(2))
        .build();
  }

  static byte[] key(int k) {
    return String.format("exit-key-%06d", k).getBytes();
  }

  private static void daemon(Runnable r) {
    Thread t = new Thread(r);
    t.setDaemon(true);
    t.start();
  }
}
