package io.zkv.kafka;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.rocksdb.Options;

/**
 * Follows a store's database from outside Streams: binds the store's meters once it has opened, and
 * ends its device lease once it has closed.
 *
 * <p>Kafka Streams calls {@code RocksDBConfigSetter.close} <em>before</em> {@code db.close()}, then
 * closes the options it gave the setter right after the database ({@code RocksDBStore.close}). So
 * the setter's close hands the lease here, and it ends once those options are closed. Likewise the
 * setter runs just before the open, so the store's meters wait here until the database has opened
 * (its directory, which names its task, is known then; a meter reading binds those opened since
 * itself, {@link #bindOpenedNow}, so it never misses a segment). A daemon thread looks every
 * millisecond while a store waits, and exits after a second without any. A store whose open failed
 * is never closed by Streams; its lease ends when its options become unreachable (a {@link
 * Cleaner}).
 */
final class StoreWatcher {
  private static final System.Logger LOG = System.getLogger(StoreWatcher.class.getName());
  private static final Cleaner CLEANER = Cleaner.create();
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long IDLE_EXIT_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final List<Waiting> CLOSING = new ArrayList<>(); // guarded by itself
  private static final List<StreamsDevice.Lease> OPENING = new ArrayList<>(); // guarded by CLOSING
  private static Thread thread; // guarded by CLOSING

  private record Waiting(Options options, StreamsDevice.Lease lease) {}

  private StoreWatcher() {}

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
    synchronized (CLOSING) {
      CLOSING.add(new Waiting(options, lease));
      startIfIdle();
    }
  }

  /** Binds the store meters of {@code lease} once its database has opened. */
  static void meterWhenOpened(StreamsDevice.Lease lease) {
    synchronized (CLOSING) {
      OPENING.add(lease);
      startIfIdle();
    }
  }

  /**
   * Binds now the meters of every store whose database has opened, on the calling thread (a meter
   * reading, which must count a segment opened a moment ago).
   */
  static void bindOpenedNow() {
    List<StreamsDevice.Lease> opening;
    synchronized (CLOSING) {
      if (OPENING.isEmpty()) {
        return;
      }
      opening = new ArrayList<>(OPENING);
    }
    bindOpened(opening);
  }

  /** Binds the meters of those of {@code opening} whose database has opened (idempotent). */
  private static void bindOpened(List<StreamsDevice.Lease> opening) {
    List<StreamsDevice.Lease> done = new ArrayList<>();
    for (StreamsDevice.Lease l : opening) {
      try {
        if (l.meterIfOpened()) {
          done.add(l);
        }
      } catch (RuntimeException e) { // the store works without its meters
        done.add(l);
        LOG.log(System.Logger.Level.WARNING, "zkv: binding the meters of " + l + " failed", e);
      }
    }
    synchronized (CLOSING) {
      OPENING.removeAll(done);
    }
  }

  private static void startIfIdle() {
    if (thread == null) {
      thread = new Thread(StoreWatcher::run, "zkv-kafka-streams-watcher");
      thread.setDaemon(true);
      thread.start();
    }
  }

  private static void run() {
    long idleSince = 0;
    while (true) {
      List<StreamsDevice.Lease> closed = new ArrayList<>();
      List<StreamsDevice.Lease> opening;
      synchronized (CLOSING) {
        CLOSING.removeIf(
            w -> {
              if (w.options.isOwningHandle()) {
                return false;
              }
              closed.add(w.lease);
              return true;
            });
        opening = new ArrayList<>(OPENING);
        if (CLOSING.isEmpty() && OPENING.isEmpty() && closed.isEmpty()) {
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
      bindOpened(opening);
      for (StreamsDevice.Lease l : closed) {
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
