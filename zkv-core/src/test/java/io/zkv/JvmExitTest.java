package io.zkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM with a busy zkv database (synced writers, flushes, compactions, the Java placement and GC
 * policies installed) exits at any moment: {@code System.exit} from a writer or SIGTERM from
 * outside after a random number of acknowledged writes, or SIGTERM at a random moment of its start
 * (mount, open, WAL recovery). Every try must end within {@link #BOUND_S} seconds, and the device
 * then mounts with every acknowledged write there. Before the fix, exits hung (4 of 6 in the issue;
 * here the second try): a RocksDB thread blocked attaching to the exiting JVM for a policy call-out
 * while exit() joined RocksDB's thread pool. Tries: {@code -Dzkv.exit.tries} (default 12, a third
 * each way; half each of the first two with {@code -Dzkv.exit.atStart=false}); seed: {@code
 * -Dzkv.seed}.
 */
class JvmExitTest {
  /** Far above the ~0.1-4 s an exit takes here; a hang never ends. */
  private static final long BOUND_S = 60;

  private static final int KEYS_PER_WRITER = 1000;
  private static final long SEED = Long.getLong("zkv.seed", System.nanoTime());

  @TempDir Path dir;

  /** How a try ends the child. */
  private enum Trigger {
    /** A writer calls System.exit after some acknowledged writes. */
    EXIT,
    /** SIGTERM after some acknowledged writes. */
    SIGTERM,
    /** SIGTERM at a random moment of the start: JVM start, mount, database open and recovery. */
    SIGTERM_AT_START,
    /** A writer calls Runtime.halt after some acknowledged writes. */
    HALT_AFTER_ACKS,
    /** The flushing thread halts right after a flush returned. */
    HALT_AFTER_FLUSH,
    /** The compacting thread halts right after a compaction returned. */
    HALT_AFTER_COMPACTION;

    /** ExitWorkload's name for it. */
    String workloadMode() {
      return switch (this) {
        case HALT_AFTER_ACKS -> "halt-acks";
        case HALT_AFTER_FLUSH -> "halt-flush";
        case HALT_AFTER_COMPACTION -> "halt-compaction";
        default -> "exit";
      };
    }

    boolean ends() { // the child ends itself ("exiting", then status 3)
      return this != SIGTERM && this != SIGTERM_AT_START;
    }
  }

  /**
   * Bound on a halt: Runtime.halt must end the process whatever zkv's threads hold. A hang never
   * ends; a halt takes well under a second here (docs/zone-fs.md: the slowest 340 ms), and a loaded
   * host may stretch that, so the bound is a hang's, like {@link #BOUND_S}, not a speed claim.
   */
  private static final long HALT_BOUND_S = BOUND_S;

  @Test
  void aBusyDatabaseExitsOnSystemExitAndSigtermWithoutHangingOrLosingSyncedWrites()
      throws Exception {
    int tries = Integer.getInteger("zkv.exit.tries", 12);
    System.out.println("JvmExitTest seed=" + SEED + " tries=" + tries);
    SplittableRandom rnd = new SplittableRandom(SEED);
    String uri = TestDevices.medium(dir);
    Map<Integer, Long> acked = new ConcurrentHashMap<>();
    long slowest = 0;
    // SIGTERM during the start found two bugs outside this test's subject: "file N has 0 names"
    // at the next mount (a file deleted while open went into a log snapshot), and NoSpace after
    // about 30 restarts (RocksDB's info logs, 1000 kept by default, filled the device; zkv now
    // keeps 4 of at most 4 MiB). -Dzkv.exit.atStart=false leaves it out.
    int modes = Boolean.parseBoolean(System.getProperty("zkv.exit.atStart", "true")) ? 3 : 2;
    for (int t = 0; t < tries; t++) {
      Trigger trigger = Trigger.values()[t % modes];
      long after = trigger == Trigger.SIGTERM_AT_START ? rnd.nextInt(3000) : rnd.nextInt(600);
      String context =
          "try "
              + t
              + " ("
              + trigger
              + " after "
              + after
              + (trigger == Trigger.SIGTERM_AT_START ? " ms" : " acks")
              + ", seed "
              + SEED
              + ")";
      slowest =
          Math.max(slowest, exitOnce(uri, rnd.nextLong(), trigger, after, acked, context, BOUND_S));
      verify(uri, acked, context);
    }
    System.out.printf(
        "JvmExitTest: %d exits, slowest %d ms from the trigger, %d keys verified%n",
        tries, slowest, acked.size());
  }

  /**
   * {@code Runtime.halt} (no shutdown hooks) during writes, right after a flush and right after a
   * compaction, with GC in the background: every JVM ends (within {@link #HALT_BOUND_S} seconds:
   * not hung) with the halt's status, and the device then mounts with every acknowledged write
   * there. A halt right after a flush hung 2 of 4 times: a call-out into a Java policy never
   * returned, and exit() joined its thread. Tries: {@code -Dzkv.halt.tries} (default 21, a third
   * each way).
   */
  @Test
  void aHaltedJvmEndsWithoutHangingAndKeepsSyncedWrites() throws Exception {
    int tries = Integer.getInteger("zkv.halt.tries", 21);
    System.out.println("JvmExitTest halts seed=" + SEED + " tries=" + tries);
    SplittableRandom rnd = new SplittableRandom(SEED ^ 0x5DEECE66DL);
    String uri = TestDevices.medium(dir);
    Map<Integer, Long> acked = new ConcurrentHashMap<>();
    Trigger[] halts = {
      Trigger.HALT_AFTER_ACKS, Trigger.HALT_AFTER_FLUSH, Trigger.HALT_AFTER_COMPACTION
    };
    long slowest = 0;
    for (int t = 0; t < tries; t++) {
      Trigger trigger = halts[t % halts.length];
      long after = trigger == Trigger.HALT_AFTER_ACKS ? 1 + rnd.nextInt(600) : 1 + rnd.nextInt(8);
      String context = "halt " + t + " (" + trigger + " " + after + ", seed " + SEED + ")";
      slowest =
          Math.max(
              slowest, exitOnce(uri, rnd.nextLong(), trigger, after, acked, context, HALT_BOUND_S));
      verify(uri, acked, context);
    }
    System.out.printf(
        "JvmExitTest: %d halts, slowest %d ms from the halt, %d keys verified%n",
        tries, slowest, acked.size());
  }

  /** Runs the child until it exits or is terminated; returns how long the exit took (ms). */
  private long exitOnce(
      String uri,
      long seed,
      Trigger trigger,
      long after,
      Map<Integer, Long> acked,
      String context,
      long boundS)
      throws Exception {
    Path err = dir.resolve("child.err");
    Process child =
        new ProcessBuilder(
                ChildJvm.command(
                    dir,
                    List.of(),
                    ExitWorkload.class,
                    uri,
                    Long.toString(seed),
                    Integer.toString(KEYS_PER_WRITER),
                    Long.toString(trigger.ends() ? after : -1),
                    trigger.workloadMode()))
            .redirectError(err.toFile())
            .start();
    CountDownLatch triggered = new CountDownLatch(1);
    AtomicLong acks = new AtomicLong();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  if (line.startsWith("ack ")) {
                    String[] p = line.split(" ");
                    acked.merge(Integer.parseInt(p[1]), Long.parseLong(p[2]), Math::max);
                    if (trigger == Trigger.SIGTERM && acks.incrementAndGet() >= after) {
                      triggered.countDown();
                    }
                  } else if (line.equals("exiting")
                      || (trigger == Trigger.SIGTERM && after == 0 && line.equals("ready"))) {
                    triggered.countDown();
                  }
                }
              } catch (IOException e) {
                // the child is gone
              }
            });
    reader.start();
    if (trigger == Trigger.SIGTERM_AT_START) {
      Thread.sleep(after);
    } else if (!triggered.await(120, TimeUnit.SECONDS)) {
      child.destroyForcibly().waitFor();
      fail(context + ": the child never got there: " + Files.readString(err));
    }
    long start = System.nanoTime();
    if (!trigger.ends()) {
      child.destroy(); // SIGTERM
    }
    if (!child.waitFor(boundS, TimeUnit.SECONDS)) {
      child.destroyForcibly().waitFor();
      fail(context + ": the JVM did not exit within " + boundS + " s");
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    reader.join();
    int expected = trigger.ends() ? 3 : 143;
    assertEquals(expected, child.exitValue(), context + ": exit status; " + Files.readString(err));
    return ms;
  }

  private static void verify(String uri, Map<Integer, Long> acked, String context) {
    ZonedEnv mounted;
    try {
      mounted = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
    } catch (ZkvException e) {
      throw new AssertionError(context + ": the device does not mount", e);
    }
    try (ZonedEnv env = mounted;
        ZkvDb db = ZkvDb.open(env, ExitWorkload.DB, ExitWorkload.options())) {
      for (Map.Entry<Integer, Long> e : acked.entrySet()) {
        byte[] v = db.get(ExitWorkload.key(e.getKey()));
        assertNotNull(v, context + ": acknowledged key " + e.getKey() + " is missing");
        ByteBuffer b = ByteBuffer.wrap(v);
        long version = b.getLong();
        assertEquals((int) e.getKey(), b.getInt(), context + ": value of another key");
        assertTrue(
            version >= e.getValue(),
            context + ": key " + e.getKey() + " has version " + version + " < " + e.getValue());
      }
    }
  }
}
