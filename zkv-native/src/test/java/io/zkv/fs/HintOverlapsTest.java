package io.zkv.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Compaction outputs' hints against their own ranges, in next-level SSTs overlapped. */
class HintOverlapsTest {
  private static final long OUTPUT = 100;

  private static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Three written L2 SSTs: [a, c], [d, f], [g, i]. */
  private static ZoneViewWriter levelTwo() {
    ZoneViewWriter w = new ZoneViewWriter();
    w.zones.add(new ZoneViewWriter.Zone(0, 1 << 20, 0, 0, 0, 0, false, false, false, -1));
    w.files.add(new ZoneViewWriter.File(1, "/db/000001.sst", 0, 2, -1, k("a"), k("c")));
    w.files.add(new ZoneViewWriter.File(2, "/db/000002.sst", 0, 2, -1, k("d"), k("f")));
    w.files.add(new ZoneViewWriter.File(3, "/db/000003.sst", 0, 2, -1, k("g"), k("i")));
    return w;
  }

  private static ZoneViewWriter.Request output(long id, int level, String lo, String hi) {
    return new ZoneViewWriter.Request(
        id,
        "/db/000" + id + ".sst",
        0,
        ZoneView.PURPOSE_FILE_WRITE,
        level,
        7,
        k(lo),
        k(hi),
        new long[] {10, 11});
  }

  private static ZoneView view(ZoneViewWriter w) {
    return ZoneView.wrap(w.build());
  }

  @Test
  void anOutputIsCountedAgainstTheNextLevelOnceRocksDbListsItsOwnRange() {
    HintOverlaps h = new HintOverlaps();
    ZoneViewWriter first = levelTwo();
    first.request = output(OUTPUT, 1, "b", "h"); // the inputs' union: all three L2 SSTs
    h.observe(view(first));
    h.observe(view(first)); // the same output's next zone: counted once
    assertEquals(new HintOverlapCounts(0, 0, 0, 0, 1), h.counts());

    ZoneViewWriter writing = levelTwo(); // still being written: the view shows the hint
    writing.files.add(new ZoneViewWriter.File(OUTPUT, "/db/000100.sst", 0, 1, 7, k("b"), k("h")));
    writing.request = output(101, 3, "x", "y"); // no L4: not an output to count
    h.observe(view(writing));
    assertEquals(new HintOverlapCounts(0, 0, 0, 0, 1), h.counts());

    ZoneViewWriter written = levelTwo(); // installed: its own range, job -1
    written.files.add(new ZoneViewWriter.File(OUTPUT, "/db/000100.sst", 0, 1, -1, k("e"), k("e")));
    h.observe(view(written));
    HintOverlapCounts c = h.counts();
    assertEquals(new HintOverlapCounts(1, 3, 1, 1, 0), c);
    assertEquals(3.0, c.ratio());
    assertEquals(new HintOverlapCounts(0, 0, 0, 0, 0), c.minus(c));
  }

  @Test
  void theNextLevelIsTheSstsWrittenWhenTheZoneWasChosen() {
    HintOverlaps h = new HintOverlaps();
    ZoneViewWriter w = levelTwo();
    // an L2 SST another compaction is still writing is not part of L2 yet
    w.files.add(new ZoneViewWriter.File(4, "/db/000004.sst", 0, 2, 9, k("a"), k("z")));
    w.request = output(OUTPUT, 1, "a", "d");
    h.observe(view(w));
    ZoneViewWriter later = new ZoneViewWriter(); // L2 compacted away meanwhile: still counted
    later.zones.add(new ZoneViewWriter.Zone(0, 1 << 20, 0, 0, 0, 0, false, false, false, -1));
    later.files.add(new ZoneViewWriter.File(OUTPUT, "/db/000100.sst", 0, 1, -1, k("a"), k("b")));
    h.observe(view(later));
    assertEquals(new HintOverlapCounts(1, 2, 1, 1, 0), h.counts());
  }

  @Test
  void flushesGcMigrationsAndTheBottomLevelAreNotCounted() {
    HintOverlaps h = new HintOverlaps();
    ZoneViewWriter w = levelTwo();
    w.request =
        new ZoneViewWriter.Request(
            OUTPUT,
            "/db/000100.sst",
            0,
            ZoneView.PURPOSE_FILE_WRITE,
            0,
            7,
            null,
            null,
            new long[0]); // a flush
    h.observe(view(w));
    w.request =
        new ZoneViewWriter.Request(
            OUTPUT,
            "/db/000100.sst",
            0,
            ZoneView.PURPOSE_GC_MIGRATION,
            1,
            7,
            k("a"),
            k("z"),
            new long[] {1});
    h.observe(view(w));
    w.request = output(OUTPUT, 2, "a", "z"); // no L3
    h.observe(view(w));
    assertEquals(HintOverlapCounts.NONE, h.counts());
    assertEquals(Double.NaN, h.counts().ratio());
  }
}
