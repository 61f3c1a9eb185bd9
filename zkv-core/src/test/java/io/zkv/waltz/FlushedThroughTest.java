package io.zkv.waltz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The point through which every record is in an SST: it moves over sequences in order, only where
 * their bounds are flushed; a record logged but not applied holds it until a replay; a replay at
 * open holds it at the recovered mark until a flush covers the replay.
 */
class FlushedThroughTest {
  @Test
  void itMovesOverEndedSequencesInOrderWhereFlushed() {
    FlushedThrough f = new FlushedThrough(0, 0, 0);
    f.done(2, 20);
    f.done(3, 30);
    assertEquals(0, f.advance(100), "1 has not ended");
    f.done(1, 10);
    assertEquals(0, f.advance(9));
    // 1-3 ended by this advance form one run (one per manager round), bounded by its largest, 30
    assertEquals(0, f.advance(25));
    assertEquals(3, f.advance(30));
    f.done(4, 0); // its append failed: nothing to flush
    f.done(5, 50);
    assertEquals(3, f.advance(40));
    assertEquals(5, f.advance(50));
    f.done(6, 0);
    assertEquals(6, f.advance(50), "a failed append alone passes at once");
  }

  /** Marks are due only for logged records: runs of marks or failed appends alone do not count. */
  @Test
  void recordsThroughMovesOnlyOverLoggedRecords() {
    FlushedThrough f = new FlushedThrough(0, 0, 0);
    f.done(1, 0); // a mark, or an append that failed
    assertEquals(1, f.advance(0));
    assertEquals(0, f.recordsThrough());
    f.done(2, 5);
    assertEquals(2, f.advance(5));
    assertEquals(2, f.recordsThrough());
    FlushedThrough replayed = new FlushedThrough(40, 25, 500);
    replayed.advance(499);
    assertEquals(25, replayed.recordsThrough());
    replayed.advance(500);
    assertEquals(40, replayed.recordsThrough(), "the replayed records, flushed");
  }

  @Test
  void anUnappliedRecordHoldsItUntilAReplay() {
    FlushedThrough f = new FlushedThrough(0, 0, 0);
    f.done(1, 10);
    f.done(2, Long.MAX_VALUE); // logged, apply failed
    f.done(3, 12);
    assertEquals(0, f.advance(11), "1-3 are one run, bounded by 2's");
    assertEquals(0, f.advance(Long.MAX_VALUE - 1));
    f.replayed(7); // resume: the reopened database holds them all up to its sequence 7
    assertEquals(0, f.advance(6));
    assertEquals(3, f.advance(7));
  }

  @Test
  void aReplayAtOpenHoldsItAtTheRecoveredMarkUntilFlushed() {
    FlushedThrough f = new FlushedThrough(40, 25, 500); // 26-40 replayed up to RocksDB's 500
    f.done(41, 510);
    assertEquals(25, f.advance(499));
    assertEquals(40, f.advance(500));
    assertEquals(41, f.advance(510));
    FlushedThrough nothingReplayed = new FlushedThrough(40, 40, 0);
    assertEquals(40, nothingReplayed.advance(0));
  }
}
