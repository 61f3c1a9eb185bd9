package io.zkv;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The child JVM of {@link JvmExitTest}: a busy database (writer threads doing synced puts, a thread
 * flushing, a thread compacting) that is told to exit or is terminated at some moment. Each put is
 * acknowledged on stdout ("ack key version") only after it returned.
 *
 * <p>Arguments: device URI, seed, keys per writer, a count N (-1: never, the parent terminates it),
 * and optionally how it ends after N: {@code exit} (default: {@code System.exit(3)} from a writer
 * after N acknowledgements), {@code halt-acks} ({@code Runtime.halt(3)} from a writer after N
 * acknowledgements), {@code halt-flush} (halt from the flushing thread right after its Nth flush
 * returned), {@code halt-compaction} (from the compacting thread right after its Nth compaction).
 */
public final class ExitWorkload {
  static final String DB = "/exit/db";
  static final int WRITERS = 3;

  private ExitWorkload() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    long seed = Long.parseLong(args[1]);
    int keysPerWriter = Integer.parseInt(args[2]);
    long count = Long.parseLong(args[3]);
    String how = args.length > 4 ? args[4] : "exit";
    long exitAfterAcks = how.endsWith("acks") || how.equals("exit") ? count : -1;
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
                  end(how);
                }
              }
            }
          });
    }
    daemon(
        () -> {
          for (long n = 1; ; n++) {
            db.flush();
            if (how.equals("halt-flush") && n == count) {
              end(how);
            }
          }
        });
    daemon(
        () -> {
          for (long n = 1; ; n++) {
            db.compactRange();
            if (how.equals("halt-compaction") && n == count) {
              end(how);
            }
          }
        });
    System.out.println("ready");
    System.out.flush();
    if (exitAfterAcks == 0) { // at once, the writers just started (no ack can equal 0)
      synchronized (ackLock) {
        end(how);
      }
    }
    Thread.sleep(Long.MAX_VALUE);
  }

  /** Says so, then exits or halts with status 3. */
  private static void end(String how) {
    System.out.println("exiting");
    System.out.flush();
    if (how.startsWith("halt")) {
      Runtime.getRuntime().halt(3);
    }
    System.exit(3);
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
