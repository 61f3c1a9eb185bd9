package io.zkv.waltz;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * WALTZ's zones and appends (docs/wal.md, "WALTZ mode"): writers zone-append their records to the
 * current leased zone, each from its own thread, waiting for its own append only; a zone manager
 * keeps spare leased empty zones and gives zones back once their records are flushed.
 *
 * <ul>
 *   <li><b>Switch.</b> After an append, if the room left after it is under the switch room, one
 *       writer (try-lock) makes a spare the current zone while the others keep appending, then
 *       finishes the old zone: its active token is free, and an append still in flight there fails
 *       as full and is retried in the new zone (the paper's dummy append finds the old zone's end;
 *       here the device's write pointer says it, read at recovery). A writer whose append found the
 *       zone full switches (waiting for the lock). No spare: the zone is leased on the put path,
 *       counted ({@link Stats#leaseWaits}).
 *   <li><b>Release.</b> Each writer notes, per zone its record landed in, an upper bound of the
 *       RocksDB sequence its apply took (RocksDB's latest after the apply). A zone left behind is
 *       given back, oldest first, once nobody's record there is unapplied and its bound is at most
 *       the largest sequence a completed flush persisted: every record in it is then in an SST.
 *   <li><b>Reserve.</b> Where the active limit allows, one more empty zone the log never writes
 *       while it has another, kept leased by a clean close: a database whose device filled up
 *       reopens with a zone for the deletes that free space.
 *   <li><b>Persisted</b>: only the leases (the file system's log, at lease and return). Which zone
 *       is current, the order of zones and the records' places are found again by recovery ({@link
 *       WaltzRecovery}), which reads every leased zone.
 * </ul>
 */
public final class WaltzLog implements AutoCloseable {
  /** Appends retried in a new zone before a write fails (every one found its zone full). */
  static final int MAX_ZONE_TRIES = 64;

  private final ZoneLeases leases;
  private final long switchRoom;
  private final int spareTarget;
  private final int reserveTarget; // 0 or 1
  private final LongSupplier flushedSequence;
  private final long heldBudget;
  private final Runnable flushRequest;

  private final ReentrantLock switchLock = new ReentrantLock();
  private volatile LogZone current;
  // guarded by mu: spares, retired, closing, refillFailedAt
  private final ReentrantLock mu = new ReentrantLock();
  private final Condition wake = mu.newCondition();
  private final ArrayDeque<LogZone> spares = new ArrayDeque<>();
  private final ArrayDeque<LogZone> retired = new ArrayDeque<>(); // oldest first
  private LogZone reserve; // an empty zone kept for a start on a full device, null if none
  private boolean closing;
  private final Thread manager;

  private final LongAdder appends = new LongAdder();
  private final LongAdder marks = new LongAdder();
  private final LongAdder appendedBytes = new LongAdder();
  private final LongAdder appendRetries = new LongAdder();
  private final LongAdder switches = new LongAdder();
  private final LongAdder leaseWaits = new LongAdder();
  private final AtomicLong leaseWaitMaxNanos = new AtomicLong();
  private final LongAdder finishes = new LongAdder();
  private final LongAdder releases = new LongAdder();
  private final LongAdder leasesTaken = new LongAdder();
  private final LongAdder flushRequests = new LongAdder();
  private final LongAdder giveBackFailures = new LongAdder();

  /**
   * What a new log takes over from the last run: empty zones (the reserve a clean close kept) and
   * the zones a start replayed into RocksDB's memtable, whose records RocksDB holds up to sequence
   * {@code replayedBound}. Those go back together (one record: their order is unknown) once a flush
   * covers that bound.
   */
  public record Inherited(int[] empty, int[] replayed, long replayedBound) {
    public static final Inherited NONE = new Inherited(new int[0], new int[0], 0);
  }

  /** One leased zone in use, or a set of replayed zones that go back together ({@code group}). */
  static final class LogZone {
    final int index; // -1 for a group
    final int[] group; // null for one zone
    final long[] key; // the lease's key, which signs every part appended here; null for a group
    // writers with a record here not yet applied; -1 once released (nobody enters again)
    private final AtomicInteger users = new AtomicInteger();
    private final AtomicLong bound = new AtomicLong(); // largest RocksDB sequence noted

    LogZone(int index, long[] key) {
      this.index = index;
      this.group = null;
      this.key = key;
    }

    LogZone(int[] group, long bound) {
      this.index = -1;
      this.group = group.clone();
      this.key = null;
      this.bound.set(bound);
    }

    int zoneCount() {
      return group == null ? 1 : group.length;
    }

    boolean enter() {
      for (; ; ) {
        int u = users.get();
        if (u < 0) {
          return false;
        }
        if (users.compareAndSet(u, u + 1)) {
          return true;
        }
      }
    }

    void exit(long applied) {
      bound.accumulateAndGet(applied, Math::max); // before the exit: a release sees it
      users.decrementAndGet();
    }

    /**
     * Closes the zone (nobody enters again) if nobody's record in it is unapplied and every bound
     * is flushed. The close comes first and the bound is read after it: read before, a writer's
     * exit with a newer bound between the two would go unseen.
     */
    boolean closeIfFlushed(long flushed) {
      if (users.get() < 0) {
        return true; // closed before; its give-back failed and is tried again
      }
      if (!users.compareAndSet(0, -1)) {
        return false;
      }
      if (bound.get() > flushed) {
        users.set(0); // not yet: open again (nobody entered meanwhile: entering needs >= 0)
        return false;
      }
      return true;
    }

    /** Every record here was applied again, to a reopened database, up to its {@code sequence}. */
    void replayedUpTo(long sequence) {
      bound.set(sequence);
    }
  }

  /** The zones a record's parts landed in, entered until {@link #applied}. */
  public static final class Ticket {
    private final List<LogZone> zones = new ArrayList<>(1);
  }

  /**
   * Counters since the log started: records of writes appended and their device bytes (marks'
   * included, padding included), flushed-through marks appended, appends retried in a new zone,
   * zone switches, leases taken on the put path (no spare) and the longest, zones finished and
   * given back, leases taken, zones held now.
   */
  public record Stats(
      long appends,
      long marks,
      long appendedBytes,
      long appendRetries,
      long switches,
      long leaseWaits,
      long leaseWaitMaxNanos,
      long finishes,
      long releases,
      long leases,
      long flushRequests,
      long giveBackFailures,
      int zonesHeld) {}

  /**
   * Starts a log on {@code leases} without a reserve zone: {@link #WaltzLog(ZoneLeases, Inherited,
   * long, int, int, LongSupplier, long, Runnable)} with nothing inherited and reserve 0.
   */
  public WaltzLog(
      ZoneLeases leases,
      long switchRoom,
      int spares,
      LongSupplier flushedSequence,
      long heldBudget,
      Runnable flushRequest) {
    this(leases, Inherited.NONE, switchRoom, spares, 0, flushedSequence, heldBudget, flushRequest);
  }

  /**
   * Starts a log on {@code leases}: its reserve zone, its first zone and up to {@code spares}
   * spares, taken first from the inherited empty zones (the reserve a clean close kept), then
   * leased now; the inherited replayed zones wait, as the oldest zones left behind, for a flush.
   *
   * <p>The <b>reserve</b> ({@code reserve} 1) is an empty zone the log keeps leased and never
   * writes while it has another: a close keeps it ({@link #close(boolean)}), so a database whose
   * device filled up opens again with a zone for its log, and the deletes that free space can be
   * written. Only a start that cannot lease a first zone writes it; the manager leases a new one
   * once zones are free.
   *
   * @param switchRoom bytes of room under which a writer switches to a spare
   * @param flushedSequence the largest RocksDB sequence a completed flush persisted
   * @param heldBudget bytes of zones left behind (not yet given back) above which the manager asks
   *     for a flush: records smaller than a block are padded to it, so the log can outgrow the
   *     memtables it protects many times over (RocksDB bounds its own WAL likewise, {@code
   *     max_total_wal_size})
   * @param flushRequest starts a flush without waiting for it; called by the manager thread
   * @throws WaltzLogException if there is no zone to start in (none adopted, none leasable)
   */
  public WaltzLog(
      ZoneLeases leases,
      Inherited inherited,
      long switchRoom,
      int spares,
      int reserve,
      LongSupplier flushedSequence,
      long heldBudget,
      Runnable flushRequest) {
    if (spares < 1 || spares > 8) {
      throw new IllegalArgumentException("spare zones must be 1-8: " + spares);
    }
    if (reserve < 0 || reserve > 1) {
      throw new IllegalArgumentException("reserve zones must be 0 or 1: " + reserve);
    }
    this.leases = leases;
    this.switchRoom = switchRoom;
    this.spareTarget = spares;
    this.reserveTarget = reserve;
    this.flushedSequence = flushedSequence;
    this.heldBudget = heldBudget;
    this.flushRequest = flushRequest;
    ArrayDeque<LogZone> kept = new ArrayDeque<>();
    for (int z : inherited.empty()) {
      LogZone k = keyed(z);
      if (k != null) {
        kept.addLast(k);
      } else {
        leases.giveBack(z); // neither its key nor a new one can be had: never written here
      }
    }
    if (inherited.replayed().length > 0) {
      retired.addLast(new LogZone(inherited.replayed(), inherited.replayedBound()));
    }
    if (reserve > 0) {
      this.reserve = kept.isEmpty() ? tryLease() : kept.pollFirst();
    }
    LogZone first = kept.isEmpty() ? tryLease() : kept.pollFirst();
    if (first == null) { // a full device: the reserve is what it was kept for
      first = this.reserve;
      this.reserve = null;
    }
    if (first == null) {
      throw new WaltzLogException("cannot lease a zone for the log", -28);
    }
    current = first;
    // Spares where the device has room; on a full device the log starts without (a database must
    // open there to free space) and the manager leases them once zones are free again.
    while (this.spares.size() < spares) {
      LogZone z = kept.isEmpty() ? tryLease() : kept.pollFirst();
      if (z == null) {
        break;
      }
      this.spares.addLast(z);
    }
    for (LogZone z : kept) { // more than the log uses (none from a close of this log)
      leases.giveBack(z.index);
    }
    manager = new Thread(this::manage, "zkv-waltz-zones");
    manager.setDaemon(true);
    manager.start();
  }

  /**
   * A leased zone with its key, for appends; an empty zone leased without one (by a version 7 file
   * system) gets one first: the log signs every part it writes. Null if neither can be had (the
   * zone is then not the log's to write).
   */
  private LogZone keyed(int zone) {
    long[] key = leases.key(zone);
    if (key != null && !WaltzRecordCodec.isKey(key) && leases.renew(zone) == 0) {
      key = leases.key(zone);
    }
    return WaltzRecordCodec.isKey(key) ? new LogZone(zone, key) : null;
  }

  /** A newly leased zone with its key, or null if none can be leased now. */
  private LogZone tryLease() {
    int z = leases.lease();
    if (z < 0) {
      return null;
    }
    leasesTaken.increment();
    LogZone k = keyed(z);
    if (k == null) {
      leases.giveBack(z); // never written
    }
    return k;
  }

  private LogZone leaseNow() {
    int z = leases.lease();
    if (z < 0) {
      throw new WaltzLogException("cannot lease a zone for the log", z);
    }
    leasesTaken.increment();
    LogZone k = keyed(z);
    if (k == null) {
      leases.giveBack(z);
      throw new WaltzLogException("cannot read the key of leased zone " + z, -5);
    }
    return k;
  }

  /**
   * Appends a record's parts ({@code sizes}, one after another from position 0 of the direct buffer
   * {@code record}) and waits for them; the ticket goes to {@link #applied} once RocksDB has the
   * write.
   *
   * @throws WaltzLogException if an append fails (nothing is acknowledged)
   */
  public Ticket append(ByteBuffer record, int[] sizes) {
    Ticket t = appendParts(record, sizes);
    appends.increment();
    return t;
  }

  /** {@link #append} of a flushed-through mark (counted apart from the writes' records). */
  public Ticket appendMark(ByteBuffer record, int[] sizes) {
    Ticket t = appendParts(record, sizes);
    marks.increment();
    return t;
  }

  private Ticket appendParts(ByteBuffer record, int[] sizes) {
    Ticket t = new Ticket();
    int at = 0;
    try {
      for (int size : sizes) {
        appendPart(record.slice(at, size), size, t);
        at += size;
      }
    } catch (RuntimeException e) {
      applied(t, Long.MAX_VALUE); // its zones keep it for recovery: never released in this run
      throw e;
    }
    return t;
  }

  private void appendPart(ByteBuffer part, int size, Ticket t) {
    for (int tries = 0; tries < MAX_ZONE_TRIES; tries++) {
      LogZone z = current;
      if (z == null) {
        throw new WaltzLogException("the log is closed", 0);
      }
      boolean entered = t.zones.contains(z);
      if (!entered && !z.enter()) {
        continue; // released since read: current has moved on
      }
      WaltzRecordCodec.sign(part, z.key); // for this zone: a retry elsewhere signs again
      long off = leases.append(z.index, part, size);
      if (off >= 0) {
        appendedBytes.add(size);
        if (!entered) {
          t.zones.add(z);
        }
        if (leases.zoneCapacity() - (off + size) < switchRoom) {
          try {
            switchFrom(z, false);
          } catch (WaltzLogException e) {
            // no zone to switch to now: this record is durable; the next append that finds the
            // zone full switches, or reports it
          }
        }
        return;
      }
      if (!entered) {
        z.exit(0); // nothing of this record there
      }
      if (!leases.isZoneFull(off)) {
        throw new WaltzLogException("append to leased zone " + z.index + " failed", (int) off);
      }
      appendRetries.increment();
      switchFrom(z, true);
    }
    throw new WaltzLogException("every zone tried was full (" + MAX_ZONE_TRIES + " tries)", 0);
  }

  /** RocksDB applied the ticket's record; {@code rocksSequence} bounds its sequence from above. */
  public void applied(Ticket t, long rocksSequence) {
    for (LogZone z : t.zones) {
      z.exit(rocksSequence);
    }
    t.zones.clear();
  }

  /** Makes a spare the current zone if {@code from} still is; must: wait for another switcher. */
  private void switchFrom(LogZone from, boolean must) {
    if (must) {
      switchLock.lock();
    } else if (!switchLock.tryLock()) {
      return;
    }
    try {
      if (current != from) {
        return;
      }
      LogZone next = takeSpare();
      current = next;
      mu.lock();
      try {
        retired.addLast(from);
        wake.signal();
      } finally {
        mu.unlock();
      }
      switches.increment();
      if (leases.finish(from.index) == 0) { // frees its active token; a failure leaves it active
        finishes.increment();
      }
    } finally {
      switchLock.unlock();
    }
  }

  private LogZone takeSpare() {
    mu.lock();
    try {
      LogZone s = spares.pollFirst();
      if (s != null) {
        return s;
      }
    } finally {
      mu.unlock();
    }
    long t0 = System.nanoTime();
    LogZone z = leaseNow(); // on the put path: counted
    long waited = System.nanoTime() - t0;
    leaseWaits.increment();
    leaseWaitMaxNanos.accumulateAndGet(waited, Math::max);
    return z;
  }

  /** The manager: spares back to their target, flushed zones given back; off the put path. */
  private void manage() {
    long retryAfter = 0;
    for (; ; ) {
      mu.lock();
      try {
        if (closing) {
          return;
        }
        try {
          wake.await(20, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
        if (closing) {
          return;
        }
      } finally {
        mu.unlock();
      }
      try {
        if (System.nanoTime() >= retryAfter && !refill()) {
          retryAfter = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100); // full device
        }
        releaseFlushed();
        LongConsumer round = afterRound;
        if (round != null) {
          round.accept(flushedSequence.getAsLong());
        }
        if (System.nanoTime() >= nextFlushRequest && overBudget()) {
          flushRequests.increment();
          flushRequest.run();
          nextFlushRequest = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
        }
      } catch (RuntimeException e) {
        // the next round tries again: a manager that died would stop every release
        managerFailures.increment();
      }
    }
  }

  private final LongAdder managerFailures = new LongAdder();

  private volatile LongConsumer afterRound;

  private volatile java.util.function.BooleanSupplier roomShort = () -> false;

  /**
   * Has the manager ask for a flush as soon as a zone is left behind (not only above the held
   * budget) while {@code isShort} says the device runs short of room: on a small device the
   * budget's zones are a large share of it, and a flush that waited for the budget found no room
   * for its SST (issue 42: six of a 24-zone device's zones held by the log when a flush failed).
   */
  public void flushEarlyWhen(java.util.function.BooleanSupplier isShort) {
    roomShort = isShort;
  }

  /**
   * Has the manager call {@code action} with the flushed sequence after each round (the writer's
   * flushed-through marks: {@link WaltzWriter#markFlushed}); off the put path.
   */
  public void afterEachRound(LongConsumer action) {
    afterRound = action;
  }

  private long nextFlushRequest;

  /** Whether the zones left behind hold more than the budget, or any while room is short. */
  private boolean overBudget() {
    long zones = 0;
    mu.lock();
    try {
      for (LogZone z : retired) {
        // Not a start's replayed zones: that start found no room to flush them (a full device),
        // and a flush asked for now would fail and stop RocksDB; the next flush covers them.
        zones += z.group == null ? 1 : 0;
      }
    } finally {
      mu.unlock();
    }
    return zones * leases.zoneCapacity() > heldBudget || zones > 0 && roomShort.getAsBoolean();
  }

  /** The reserve (if the log keeps one and has none), then the spares, back to their targets. */
  private boolean refill() {
    for (; ; ) {
      mu.lock();
      try {
        if (closing || (reserve != null || reserveTarget == 0) && spares.size() >= spareTarget) {
          return true;
        }
      } finally {
        mu.unlock();
      }
      LogZone z = tryLease();
      if (z == null) {
        return false;
      }
      mu.lock();
      try {
        if (closing) { // close gives back what the log holds; this one is not listed yet
          leases.giveBack(z.index);
          return true;
        }
        if (reserve == null && reserveTarget > 0) {
          reserve = z;
        } else {
          spares.addLast(z);
        }
      } finally {
        mu.unlock();
      }
    }
  }

  /**
   * Every record in the log was applied again to a reopened database (its sequence numbers started
   * over), up to its {@code sequence}: every zone's bound becomes that, so the zones go back once a
   * flush of the reopened database covers it. Called with no write in flight.
   */
  public void replayedUpTo(long sequence) {
    mu.lock();
    try {
      for (LogZone z : retired) {
        z.replayedUpTo(sequence);
      }
      LogZone c = current;
      if (c != null) {
        c.replayedUpTo(sequence);
      }
    } finally {
      mu.unlock();
    }
  }

  /** Gives back, oldest first, the zones left behind whose records are all flushed. */
  public synchronized void releaseFlushed() {
    long flushed = flushedSequence.getAsLong();
    for (; ; ) {
      LogZone oldest;
      mu.lock();
      try {
        oldest = retired.peekFirst();
        if (oldest == null || !oldest.closeIfFlushed(flushed)) {
          return;
        }
      } finally {
        mu.unlock();
      }
      int rc =
          oldest.group != null ? leases.giveBackSet(oldest.group) : leases.giveBack(oldest.index);
      if (rc < 0) {
        // kept at the head and tried again next round: giving newer zones back past it would
        // let its older records be replayed over newer values after a crash
        giveBackFailures.increment();
        return;
      }
      mu.lock();
      try {
        retired.pollFirst();
      } finally {
        mu.unlock();
      }
      releases.add(oldest.zoneCount());
    }
  }

  public Stats stats() {
    mu.lock();
    try {
      int held = spares.size() + (current != null ? 1 : 0) + (reserve != null ? 1 : 0);
      for (LogZone z : retired) {
        held += z.zoneCount();
      }
      return new Stats(
          appends.sum(),
          marks.sum(),
          appendedBytes.sum(),
          appendRetries.sum(),
          switches.sum(),
          leaseWaits.sum(),
          leaseWaitMaxNanos.get(),
          finishes.sum(),
          releases.sum(),
          leasesTaken.sum(),
          flushRequests.sum(),
          giveBackFailures.sum() + managerFailures.sum(),
          held);
    } finally {
      mu.unlock();
    }
  }

  /**
   * Stops the manager. With {@code giveBack} (every record is flushed: the caller flushed RocksDB
   * after the last write) every zone is given back, all in one metadata record, but one empty zone
   * where the log keeps a reserve; without, the leases stay for recovery.
   */
  @Override
  public void close() {
    close(false);
  }

  public void close(boolean giveBack) {
    mu.lock();
    try {
      if (closing) {
        return;
      }
      closing = true;
      wake.signal();
    } finally {
      mu.unlock();
    }
    try {
      manager.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (giveBack) {
      // One record: a crash in the middle cannot leave an older zone alone. An empty zone stays
      // leased where the log keeps a reserve: the next start has a zone on a full device too.
      leases.giveBackKeepingEmpty(reserveTarget);
    }
    current = null;
  }
}
