package io.zkv.waltz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * WALTZ's log on in-memory leased zones: concurrent writers switch zones without losing a record,
 * same-key writes apply in sequence order, zones go back only once flushed (oldest first), and
 * recovery keeps every valid record past damage, reporting zone and offset.
 */
class WaltzLogTest {
  private static final int BLOCK = 4096;
  private static final long DB = 0x77;

  private static byte[] key(int t, int k) {
    return ("t" + t + "-k" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Four writers, 16 records a zone: every record is found once, each key's in write order. */
  @Test
  void concurrentWritersSwitchZonesAndLoseNothing() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 64 << 10, 4096);
    AtomicLong rocksSeq = new AtomicLong();
    AtomicLong flushed = new AtomicLong();
    WaltzLog log = new WaltzLog(leases, BLOCK, 2, flushed::get, Long.MAX_VALUE, () -> {});
    WaltzWriter w = new WaltzWriter(log, DB, BLOCK, 16 << 10, 0);
    Map<String, List<Long>> appliedSeqs = new ConcurrentHashMap<>();
    int perThread = 1500;
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 4; t++) {
      int tt = t;
      threads.add(
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < perThread; i++) {
                    byte[] k = key(tt % 2, i % 37); // two threads share each key space
                    w.write(
                        List.of(WaltzOp.put(k, new byte[100 + i % 900])),
                        ops -> {
                          // the record's own sequence is the largest this key's stripe has seen
                          appliedSeqs
                              .computeIfAbsent(
                                  new String(k, java.nio.charset.StandardCharsets.UTF_8),
                                  x -> new ArrayList<>())
                              .add(w.lastSequence());
                          return rocksSeq.incrementAndGet();
                        });
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(failures.isEmpty(), failures.toString());
    WaltzLog.Stats s = log.stats();
    assertEquals(4L * perThread, s.appends());
    assertTrue(s.switches() >= 100, s.toString()); // 6000 records of 1-2 blocks, 16 blocks a zone
    assertEquals(0, s.releases()); // nothing flushed yet
    // every record once, whatever zone it landed in
    WaltzRecovery.Result r = WaltzRecovery.scan(leases, DB);
    assertTrue(r.problems().isEmpty(), r.problems().toString());
    assertEquals(4 * perThread, r.records().size());
    for (int i = 0; i < r.records().size(); i++) {
      assertEquals(i + 1, r.records().get(i).seq());
    }
    // everything flushed: every zone left behind goes back, leaving the current one and the
    // spares
    flushed.set(rocksSeq.get());
    log.releaseFlushed();
    s = log.stats();
    assertEquals(s.switches(), s.releases(), s.toString());
    assertTrue(s.zonesHeld() <= 1 + 2, s.toString());
    log.close(false);
  }

  /** Nothing goes back before its flush; then the zones left behind go, oldest first. */
  @Test
  void zonesGoBackOnlyOnceFlushed() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 32 << 10, 4096);
    AtomicLong flushed = new AtomicLong();
    WaltzLog log = new WaltzLog(leases, BLOCK, 2, flushed::get, Long.MAX_VALUE, () -> {});
    WaltzWriter w = new WaltzWriter(log, DB, BLOCK, 16 << 10, 0);
    for (int i = 0; i < 64; i++) {
      long seq = i + 1;
      w.write(List.of(WaltzOp.put(key(0, i), new byte[10])), ops -> seq);
    }
    log.releaseFlushed();
    WaltzLog.Stats before = log.stats();
    assertEquals(0, before.releases());
    assertTrue(before.switches() >= 7, before.toString()); // 64 one-block records, 8 a zone
    // With one writer, the zones' first appends give the log's order (a zone leased on the put
    // path may overtake a spare the manager leased a moment before: not the lease order)
    flushed.set(32);
    log.releaseFlushed();
    long half = log.stats().releases();
    assertTrue(half >= 3 && half < before.switches(), log.stats().toString());
    synchronized (leases) {
      assertEquals(leases.firstWritten.subList(0, (int) half), leases.givenBack); // oldest first
    }
    flushed.set(64);
    log.releaseFlushed();
    assertEquals(before.switches(), log.stats().releases()); // every zone left behind
    synchronized (leases) {
      assertEquals(leases.firstWritten.subList(0, (int) before.switches()), leases.givenBack);
    }
    log.close(false);
  }

  /**
   * A zone is closed for release only with every bound flushed, checked after the close: a writer
   * whose newer bound arrived first keeps it open (the review's interleaving, made sequential).
   */
  @Test
  void aZoneStaysOpenWhileABoundIsUnflushed() {
    WaltzLog.LogZone z = new WaltzLog.LogZone(1, new long[] {1, 2});
    assertTrue(z.enter());
    z.exit(100); // a writer applied at RocksDB sequence 100
    assertTrue(!z.closeIfFlushed(50)); // flushed to 50 only: stays open
    assertTrue(z.enter()); // and writers may still enter
    z.exit(40);
    assertTrue(z.closeIfFlushed(100));
    assertTrue(!z.enter()); // closed: nobody enters again
  }

  /** A give-back that fails keeps its zone at the head: no newer zone goes back past it. */
  @Test
  void aFailedGiveBackHoldsBackEveryNewerZone() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 32 << 10, 4096);
    AtomicLong flushed = new AtomicLong();
    WaltzLog log = new WaltzLog(leases, BLOCK, 2, flushed::get, Long.MAX_VALUE, () -> {});
    WaltzWriter w = new WaltzWriter(log, DB, BLOCK, 16 << 10, 0);
    int first = leases.leased()[0]; // the first current zone: the oldest once left behind
    leases.failGiveBack = first;
    for (int i = 0; i < 8 * 3; i++) {
      w.write(List.of(WaltzOp.put(key(0, i), new byte[10])), ops -> 1);
    }
    flushed.set(Long.MAX_VALUE);
    log.releaseFlushed();
    assertEquals(0, log.stats().releases());
    assertTrue(log.stats().giveBackFailures() >= 1);
    leases.failGiveBack = -1; // the device recovered
    log.releaseFlushed();
    assertEquals(3, log.stats().releases());
    synchronized (leases) {
      assertEquals(first, leases.givenBack.get(0)); // the one that failed went first after all
    }
    log.close(false);
  }

  /** Zones left behind beyond the budget make the manager ask for a flush, and only then. */
  @Test
  void aLogOverItsBudgetAsksForAFlush() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 32 << 10, 4096);
    java.util.concurrent.atomic.AtomicInteger asked =
        new java.util.concurrent.atomic.AtomicInteger();
    WaltzLog log = new WaltzLog(leases, BLOCK, 2, () -> 0, 3L * (32 << 10), asked::incrementAndGet);
    WaltzWriter w = new WaltzWriter(log, DB, BLOCK, 16 << 10, 0);
    for (int i = 0; i < 8 * 3; i++) { // three zones left behind: at the budget, not over it
      w.write(List.of(WaltzOp.put(key(0, i), new byte[10])), ops -> 1);
    }
    assertEquals(3, log.stats().switches());
    // ten whole rounds of the manager (each checks the budget after this hook), counted rather
    // than slept for: a loaded host runs fewer in a fixed time, up to none
    java.util.concurrent.atomic.AtomicInteger rounds =
        new java.util.concurrent.atomic.AtomicInteger();
    log.afterEachRound(flushed -> rounds.incrementAndGet());
    for (int ms = 0; rounds.get() < 11 && ms < 60_000; ms += 5) {
      Thread.sleep(5);
    }
    assertTrue(rounds.get() >= 11, "manager rounds: " + rounds.get());
    assertEquals(0, asked.get());
    for (int i = 0; i < 8; i++) { // a fourth
      w.write(List.of(WaltzOp.put(key(1, i), new byte[10])), ops -> 1);
    }
    for (int ms = 0; asked.get() == 0 && ms < 30_000; ms += 5) {
      Thread.sleep(5);
    }
    assertTrue(asked.get() >= 1);
    assertEquals(asked.get(), log.stats().flushRequests());
    log.close(false);
  }

  /**
   * The reserve: never written while the log has another zone, not even when the device fills up
   * and writes fail with NoSpace; a clean close keeps it (and only it); a log started on a full
   * device with it adopted writes there.
   */
  @Test
  void theReserveZoneOutlivesAFullDeviceAndStartsTheNextLog() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 64 << 10, 3); // 3 zones
    // nothing is ever flushed (-1): no zone goes back while the test fills the device
    WaltzLog log =
        new WaltzLog(
            leases, WaltzLog.Inherited.NONE, BLOCK, 1, 1, () -> -1, Long.MAX_VALUE, () -> {});
    int reserve = leases.leased()[0]; // leased first
    WaltzWriter w = new WaltzWriter(log, DB, BLOCK, 16 << 10, 0);
    WaltzLogException full = null;
    int written = 0;
    for (int i = 0; i < 1000 && full == null; i++) {
      try {
        w.write(List.of(WaltzOp.put(key(0, i), new byte[3000])), ops -> 0);
        written++;
      } catch (WaltzLogException e) {
        full = e;
      }
    }
    assertTrue(full != null && full.noSpace(), "the device's 2 other zones fill up: " + full);
    assertEquals(2 * 16, written, "two zones of 16 one-block records");
    assertEquals(0, leases.written(reserve), "the reserve is never written");
    log.close(true); // flushed: the written zones go back, the reserve stays
    assertEquals(List.of(reserve), java.util.Arrays.stream(leases.leased()).boxed().toList());

    // Another owner takes every other zone: the next log starts in its reserve.
    int other1 = leases.lease();
    int other2 = leases.lease();
    assertTrue(other1 >= 0 && other2 >= 0);
    WaltzLog next =
        new WaltzLog(
            leases,
            new WaltzLog.Inherited(new int[] {reserve}, new int[0], 0),
            BLOCK,
            1,
            1,
            () -> 0,
            Long.MAX_VALUE,
            () -> {});
    new WaltzWriter(next, DB, BLOCK, 16 << 10, written)
        .write(List.of(WaltzOp.put(key(0, 0), new byte[10])), ops -> 0);
    assertEquals(BLOCK, leases.written(reserve), "a start without a free zone writes its reserve");
    next.close(false);
    // Without a reserve or a free zone there is nothing to start in.
    leases.giveBack(other1);
    leases.lease(); // taken again
    WaltzLogException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            WaltzLogException.class,
            () ->
                new WaltzLog(
                    leases,
                    WaltzLog.Inherited.NONE,
                    BLOCK,
                    1,
                    1,
                    () -> 0,
                    Long.MAX_VALUE,
                    () -> {}));
    assertTrue(e.noSpace(), e.toString());
  }

  /**
   * Zones a start replayed (their order unknown) wait as the oldest for a flush that covers the
   * replay, then go back together.
   */
  @Test
  void replayedZonesGoBackTogetherOnceAFlushCoversThem() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 64 << 10, 16);
    int a = leases.lease();
    int b = leases.lease();
    AtomicLong flushed = new AtomicLong();
    WaltzLog log =
        new WaltzLog(
            leases,
            new WaltzLog.Inherited(new int[0], new int[] {a, b}, 100),
            BLOCK,
            1,
            1,
            flushed::get,
            Long.MAX_VALUE,
            () -> {});
    assertEquals(2 + 1 + 1 + 1, log.stats().zonesHeld()); // replayed, current, spare, reserve
    flushed.set(99);
    log.releaseFlushed();
    assertTrue(contains(leases.leased(), a) && contains(leases.leased(), b), "not yet flushed");
    flushed.set(100);
    log.releaseFlushed();
    assertTrue(!contains(leases.leased(), a) && !contains(leases.leased(), b), "flushed: gone");
    assertEquals(2, log.stats().releases());
    log.close(false);
  }

  private static boolean contains(int[] zones, int z) {
    return java.util.Arrays.stream(zones).anyMatch(x -> x == z);
  }

  /**
   * A flushed-through mark: written once a flush covers a run of records, it makes recovery skip
   * them; the next writer starts above every sequence found, the mark's included.
   */
  @Test
  void recoverySkipsWhatAMarkSaysIsFlushed() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 1 << 20, 64);
    WaltzLog log = new WaltzLog(leases, BLOCK, 1, () -> -1, Long.MAX_VALUE, () -> {});
    WaltzWriter w = new WaltzWriter(log, DB, BLOCK, 16 << 10, 0);
    AtomicLong rocks = new AtomicLong();
    for (int i = 1; i <= 6; i++) {
      w.write(List.of(WaltzOp.put(key(0, i), new byte[10])), ops -> rocks.incrementAndGet());
    }
    w.markFlushed(0); // nothing flushed: no mark (records 1-6 are now one run, bounded by 6)
    for (int i = 7; i <= 10; i++) {
      w.write(List.of(WaltzOp.put(key(0, i), new byte[10])), ops -> rocks.incrementAndGet());
    }
    w.markFlushed(6); // a flush persisted RocksDB's 6: records 1-6 are in SSTs
    w.markFlushed(6); // nothing new: no second mark
    w.markFlushed(6); // nor a mark of the last mark (an idle log must stay idle)
    WaltzRecovery.Result mid = WaltzRecovery.scan(leases, DB);
    assertEquals(6, mid.flushedThrough());
    assertEquals(
        List.of(7L, 8L, 9L, 10L), mid.records().stream().map(WaltzRecovery.Record::seq).toList());
    assertEquals(11, mid.maxSeq(), "the mark took sequence 11");
    w.markFlushed(100);
    assertEquals(2, log.stats().marks(), "one for 1-6, one for 7-10 once 10 is flushed");
    w.markFlushed(100);
    w.markFlushed(100);
    assertEquals(2, log.stats().marks());
    assertEquals(10, log.stats().appends());
    log.close(false);
    WaltzRecovery.Result r = WaltzRecovery.scan(leases, DB);
    assertEquals(11, r.flushedThrough(), "through the first mark's own sequence");
    assertEquals(List.of(), r.records(), "all in SSTs");
    assertEquals(12, r.maxSeq(), "the marks took sequences 11 and 12");
    assertTrue(r.problems().isEmpty(), r.problems().toString());
  }

  /** Damage in the middle: reported with zone and offset, every valid record after it kept. */
  @Test
  void recoveryKeepsEveryValidRecordPastDamage() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 1 << 20, 64);
    WaltzLog log = new WaltzLog(leases, BLOCK, 1, () -> 0, Long.MAX_VALUE, () -> {});
    WaltzWriter w = new WaltzWriter(log, DB, BLOCK, 16 << 10, 0);
    java.util.Random random = new java.util.Random(1);
    for (int i = 0; i < 20; i++) {
      byte[] v =
          new byte[i == 7 ? 40_000 : 100]; // record 8 has three parts: blocks 7-10, 11-14, 15-16
      random.nextBytes(v);
      w.write(List.of(WaltzOp.put(key(0, i), v)), ops -> 0);
    }
    log.close(false);
    int zone = leases.leased()[0];
    leases.flip(zone, 3 * BLOCK + 50); // record 4's payload
    leases.zero(zone, 5 * BLOCK, BLOCK); // record 6: lost in a power cut
    leases.flip(zone, 11 * BLOCK + 20); // record 8's second part's header (its sequence)
    WaltzRecovery.Result r = WaltzRecovery.scan(leases, DB);
    Map<Long, Boolean> seen = new HashMap<>();
    r.records().forEach(rec -> seen.put(rec.seq(), true));
    assertEquals(20 - 3, r.records().size(), r.problems().toString());
    for (long s : new long[] {4, 6, 8}) {
      assertTrue(!seen.containsKey(s), "record " + s + " is damaged");
    }
    for (long s = 9; s <= 20; s++) {
      assertTrue(seen.containsKey(s), "record " + s + " after the damage");
    }
    assertEquals(1, r.zeroBlocks());
    String all = String.join("\n", r.problems());
    assertTrue(
        all.contains("zone " + zone + " offset " + (3 * BLOCK) + ": checksum mismatch"), all);
    assertTrue(all.contains("record 8: 2 of 3 parts found"), all);
    assertEquals(20, r.maxSeq());
    assertEquals(0, r.flushedThrough());
  }

  @Test
  void aForeignDatabasesRecordIsSkippedAndReported() throws Exception {
    MemoryZoneLeases leases = new MemoryZoneLeases(BLOCK, 16 << 10, 1 << 20, 64);
    WaltzLog log = new WaltzLog(leases, BLOCK, 1, () -> 0, Long.MAX_VALUE, () -> {});
    new WaltzWriter(log, DB + 1, BLOCK, 16 << 10, 0)
        .write(List.of(WaltzOp.put(key(0, 0), new byte[1])), ops -> 0);
    new WaltzWriter(log, DB, BLOCK, 16 << 10, 5)
        .write(List.of(WaltzOp.put(key(0, 1), new byte[1])), ops -> 0);
    log.close(false);
    WaltzRecovery.Result r = WaltzRecovery.scan(leases, DB);
    assertEquals(1, r.records().size());
    assertEquals(6, r.records().get(0).seq());
    assertTrue(r.problems().get(0).contains("database id " + (DB + 1)), r.problems().toString());
  }
}
