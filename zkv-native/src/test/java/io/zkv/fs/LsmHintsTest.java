package io.zkv.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import io.zkv.placement.LizaPolicy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.FlushOptions;
import org.rocksdb.LiveFileMetaData;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.ZkvEnv;

/**
 * The LSM hints (native listener, rocks/lsm_hints.cc) checked against RocksDB's own live-file
 * metadata after a run with concurrent compactions: every SST allocation carries a level and a job;
 * each compaction output's key-range hint (its inputs' union) contains the file's real range; and
 * the zone view hands policies every live SST with exactly the level and key range RocksDB lists.
 */
class LsmHintsTest {
  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(64, 8L << 20, 6L << 20, 14, 14, 1 << 20);

  @TempDir Path dir;

  record Hint(int level, long job, byte[] lo, byte[] hi, int inputs) {}

  record Known(int level, byte[] lo, byte[] hi) {}

  /** LIZA deciding; records each SST's first allocation request and the last view's files. */
  static final class Recorder implements ZoneAllocator {
    final PlacementAllocator liza = new PlacementAllocator(new LizaPolicy(), GEOMETRY);
    final Map<String, Hint> firstRequest = new HashMap<>();
    Map<String, Known> lastView = Map.of();
    int sstRequests, withLevelAndJob;

    @Override
    public synchronized void allocate(ByteBuffer buffer) {
      ZoneView v = ZoneView.wrap(buffer);
      String name = v.requestFileName();
      if (name.endsWith(".sst") && !v.requestForGc()) {
        sstRequests++;
        if (v.requestLevel() >= 0 && v.requestJob() >= 0) {
          withLevelAndJob++;
        }
        firstRequest.putIfAbsent(
            name,
            new Hint(
                v.requestLevel(),
                v.requestJob(),
                v.requestSmallest(),
                v.requestLargest(),
                v.requestInputs().length));
      }
      Map<String, Known> files = new HashMap<>();
      for (int f = 0; f < v.fileCount(); f++) {
        files.put(v.fileName(f), new Known(v.fileLevel(f), v.fileSmallest(f), v.fileLargest(f)));
      }
      lastView = files;
      liza.allocate(buffer);
    }
  }

  @Test
  void hintsAgreeWithRocksDbsLiveFileMetadata() throws Exception {
    Path file = dir.resolve("hints.zkvemu");
    EmulatedDevice.format(file, GEOMETRY);
    Recorder recorder = new Recorder();
    List<LiveFileMetaData> live;
    Map<String, Known> view;
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "instant"));
        ZkvEnv env =
            ZkvEnv.onZones(dev, ZoneFsSettings.builder().format(true).allocator(recorder).build());
        AbstractEventListener hints = env.newLsmHintListener();
        Options o =
            new Options()
                .setCreateIfMissing(true)
                .setEnv(env)
                .setListeners(List.of(hints))
                .setWriteBufferSize(256 << 10)
                .setMaxBackgroundJobs(4)
                .setMaxSubcompactions(2)
                .setLevel0FileNumCompactionTrigger(2)
                .setMaxBytesForLevelBase(1 << 20)
                .setTargetFileSizeBase(256 << 10);
        FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      try (RocksDB db = RocksDB.open(o, "/hints/db")) {
        env.refreshLsmHints(db);
        Random r = new Random(7);
        byte[] value = new byte[400];
        for (int i = 0; i < 60_000; i++) {
          r.nextBytes(value);
          db.put(String.format("key%07d", r.nextInt(40_000)).getBytes(), value);
        }
        db.flush(flush);
        db.compactRange();
        waitForCompactions(db);
        // One more flush: its allocation's view shows every file after all the jobs above.
        db.put("zz-last".getBytes(), value);
        db.flush(flush);
        synchronized (recorder) {
          view = recorder.lastView;
        }
        live = db.getLiveFilesMetaData();
      }
    }
    int sst = recorder.sstRequests;
    assertTrue(sst > 20, "too few SST allocations to say anything: " + sst);
    assertEquals(sst, recorder.withLevelAndJob, "SST allocations without level and job");

    int compared = 0, sameLevel = 0, movedDown = 0, rangesChecked = 0;
    for (LiveFileMetaData m : live) {
      String name = "/hints/db" + m.fileName();
      Hint h = recorder.firstRequest.get(name);
      assertNotNull(h, "no allocation seen for " + name);
      compared++;
      if (h.level() == m.level()) {
        sameLevel++;
      } else {
        // a trivial move takes a file to a lower level without rewriting it
        assertTrue(
            h.level() < m.level(), name + " written to L" + h.level() + ", now L" + m.level());
        movedDown++;
      }
      if (h.inputs() > 0 && h.lo() != null) { // a compaction output: inside its inputs' range
        assertTrue(Arrays.compareUnsigned(h.lo(), m.smallestKey()) <= 0, name);
        assertTrue(Arrays.compareUnsigned(h.hi(), m.largestKey()) >= 0, name);
        rangesChecked++;
      }
      if (m.fileName().equals(lastFile(live))) {
        continue; // the final flush's own file: not in the view taken at its allocation
      }
      Known k = view.get(name);
      assertNotNull(k, "the zone view lacks " + name);
      assertEquals(m.level(), k.level(), name);
      assertTrue(Arrays.equals(m.smallestKey(), k.lo()) && Arrays.equals(m.largestKey(), k.hi()));
    }
    assertTrue(rangesChecked > 0, "no compaction output among the live files");
    System.out.printf(
        "LSM hints: %d SST allocations, all with level and job; of %d live SSTs %d were written to"
            + " the level they are at now, %d moved down later by trivial moves; %d compaction"
            + " outputs lie within their inputs' key range; the zone view's level and key range"
            + " equal RocksDB's for every live SST%n",
        sst, compared, sameLevel, movedDown, rangesChecked);
  }

  private static String lastFile(List<LiveFileMetaData> live) {
    return live.stream()
        .max((a, b) -> a.fileName().compareTo(b.fileName())) // zero-padded numbers
        .orElseThrow()
        .fileName();
  }

  /** Waits up to 2 minutes (a loaded host delays RocksDB's jobs) until none runs or waits. */
  private static void waitForCompactions(RocksDB db) throws Exception {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (db.getLongProperty("rocksdb.num-running-compactions") == 0
          && db.getLongProperty("rocksdb.compaction-pending") == 0
          && db.getLongProperty("rocksdb.num-running-flushes") == 0) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("compactions still running after 2 minutes");
  }
}
