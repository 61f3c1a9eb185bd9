package io.zkv.kafka;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.rocksdb.Options;

/**
 * Ends a store's device lease when its database has closed.
 *
 * <p>Kafka Streams calls {@code RocksDBConfigSetter.close} <em>before</em> {@code db.close()}, then
 * closes the options it gave the setter right after the database ({@code RocksDBStore.close}). So
 * the setter's close hands the lease here, and it ends once those options are closed: a daemon
 * thread looks every millisecond while a lease waits and exits after a second without any. A store
 * whose open failed is never closed by Streams; its lease ends when its options become unreachable
 * (a {@link Cleaner}).
 */
final class ReleaseWatcher {
  private static final System.Logger LOG = System.getLogger(ReleaseWatcher.class.getName());
  private static final Cleaner CLEANER = Cleaner.create();
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long IDLE_EXIT_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final List<Waiting> WAITING = new ArrayList<>(); // guarded by itself
  private static Thread thread; // guarded by WAITING

  private record Waiting(Options options, StreamsDevice.Lease lease) {}

  private ReleaseWatcher() {}

  /** Releases {@code lease} if {@code options} become unreachable first (a failed open). */
  static void releaseWhenUnreachable(Options options, StreamsDevice.Lease lease) {
    CLEANER.register(options, lease::release);
  }

  /** Releases {@code lease} once {@code options} are closed (after the database). */
  static void releaseWhenClosed(Options options, StreamsDevice.Lease lease) {
    if (!options.isOwningHandle()) {
      lease.release();
      return;
    }
    synchronized (WAITING) {
      WAITING.add(new Waiting(options, lease));
      if (thread == null) {
        thread = new Thread(ReleaseWatcher::run, "zkv-kafka-streams-release");
        thread.setDaemon(true);
        thread.start();
      }
    }
  }

  private static void run() {
    long idleSince = 0;
    while (true) {
      List<StreamsDevice.Lease> done = new ArrayList<>();
      synchronized (WAITING) {
        WAITING.removeIf(
            w -> {
              if (w.options.isOwningHandle()) {
                return false;
              }
              done.add(w.lease);
              return true;
            });
        if (WAITING.isEmpty() && done.isEmpty()) {
          long now = System.nanoTime();
          if (idleSince == 0) {
            idleSince = now;
          } else if (now - idleSince > IDLE_EXIT_NANOS) {
            thread = null; // stores come and go in bursts: exit only after a second of none
            return;
          }
        } else {
          idleSince = 0;
        }
      }
      for (StreamsDevice.Lease l : done) {
        try {
          l.release();
        } catch (RuntimeException e) { // keep watching the other stores
          LOG.log(System.Logger.Level.ERROR, "zkv: closing the device after " + l + " failed", e);
        }
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
  }
}
