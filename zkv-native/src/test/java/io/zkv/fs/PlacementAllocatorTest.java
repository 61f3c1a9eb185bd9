package io.zkv.fs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.FileKind;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneTableView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.ZkvEnv;

/** The zone file system asks the Java placement policy at every allocation. */
class PlacementAllocatorTest {
  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(32, 8L << 20, 6L << 20, 14, 14, 1 << 20);

  @TempDir Path dir;

  private ZonedDevice device() throws Exception {
    Path file = dir.resolve("dev.zkvemu");
    EmulatedDevice.format(file, GEOMETRY);
    return ZonedDevice.open(EmulatedDevice.uri(file, "instant"));
  }

  /** LIZA wrapped to record what it was asked and what it decided. */
  static final class Recording implements PlacementPolicy {
    final LizaPolicy liza = new LizaPolicy();
    final List<AllocationRequest> requests = new ArrayList<>();
    final List<Allocation> decisions = new ArrayList<>();

    /** Per call, the request's kind and the reserves its view showed ("WAL kept 6 op 4"). */
    final List<String> reserves = new ArrayList<>();

    @Override
    public String name() {
      return "recording LIZA";
    }

    @Override
    public synchronized Allocation allocate(AllocationRequest request, ZoneTableView zones) {
      Allocation a = liza.allocate(request, zones);
      requests.add(request);
      decisions.add(a);
      reserves.add(request.kind() + " kept " + zones.emptyZonesKept() + " op " + zones.opZones());
      return a;
    }
  }

  @Test
  void rocksDbRunsWithLizaDecidingEveryAllocation() throws Exception {
    Recording policy = new Recording();
    PlacementAllocator allocator = new PlacementAllocator(policy, GEOMETRY);
    try (ZonedDevice dev = device()) {
      try (ZkvEnv env =
              ZkvEnv.onZones(
                  dev, ZoneFsSettings.builder().format(true).allocator(allocator).build());
          Options o =
              new Options().setCreateIfMissing(true).setEnv(env).setWriteBufferSize(1 << 20);
          RocksDB db = RocksDB.open(o, "/placed/db");
          FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        for (int i = 0; i < 200_000; i++) {
          db.put(("key" + i).getBytes(), ("value-" + i).getBytes());
        }
        db.flush(f);
        db.compactRange();
      }
      assertTrue(allocator.calls() > 5, "allocations decided by the policy: " + allocator.calls());
      synchronized (policy) {
        assertEquals(allocator.calls(), policy.requests.size());
        assertTrue(policy.requests.stream().anyMatch(r -> r.kind().name().equals("WAL")));
        assertTrue(policy.requests.stream().anyMatch(r -> r.kind().name().equals("SST")));
        assertTrue(
            policy.decisions.stream()
                .allMatch(
                    a -> a instanceof Allocation.UseZone || a instanceof Allocation.OpenEmptyZone),
            policy.decisions.toString());
        // RocksDB's write-lifetime hints reach the policy (this test runs on every supported
        // RocksJava release; 10.x also passes them in FileOptions at creation).
        assertTrue(
            policy.requests.stream()
                .filter(r -> r.kind() == FileKind.WAL)
                .allMatch(r -> r.lifetime() == WriteLifetime.SHORT),
            policy.requests.toString());
        assertTrue(
            policy.requests.stream()
                .filter(r -> r.kind() == FileKind.SST)
                .allMatch(r -> r.lifetime().value() >= WriteLifetime.MEDIUM.value()),
            policy.requests.toString());
      }
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount());
          Options o = new Options().setEnv(env);
          RocksDB db = RocksDB.open(o, "/placed/db")) {
        for (int i = 0; i < 200_000; i += 333) {
          assertArrayEquals(("value-" + i).getBytes(), db.get(("key" + i).getBytes()));
        }
      }
    }
  }

  @Test
  void aPolicyThatThrowsIsOverriddenAndCounted() throws Exception {
    ZoneAllocator broken =
        view -> {
          throw new IllegalStateException("policy bug (expected by the test)");
        };
    try (ZonedDevice dev = device();
        ZkvEnv env =
            ZkvEnv.onZones(dev, ZoneFsSettings.builder().format(true).allocator(broken).build());
        Options o = new Options().setCreateIfMissing(true).setEnv(env);
        FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
      // the safety rule places every file instead: the database works, each override counted
      try (RocksDB db = RocksDB.open(o, "/broken/db")) {
        db.put("k".getBytes(), "v".getBytes());
        db.flush(flush);
        assertArrayEquals("v".getBytes(), db.get("k".getBytes()));
      }
      io.zkv.fs.ZoneStats s = env.zoneFs().stats();
      long failed = s.overrides().get(PolicyOverride.POLICY_FAILED);
      assertTrue(failed >= 2, "WAL, SST, MANIFEST...: " + s);
      assertEquals(failed, s.fallbackAllocations());
      assertEquals(failed, s.policyOverrides());
    }
  }

  /** LIZA wrapped to record each request's kind with the reserves its view showed. */
  @Test
  void theViewShowsTheEmptyZonesKeptFromEachWriterAndCompactionInputZonesAreCounted()
      throws Exception {
    Recording policy = new Recording();
    PlacementAllocator allocator = new PlacementAllocator(policy, GEOMETRY);
    try (ZonedDevice dev = device()) {
      ZoneFsSettings settings =
          ZoneFsSettings.builder().format(true).allocator(allocator).opZones(4).build();
      try (ZkvEnv env = ZkvEnv.onZones(dev, settings);
          AbstractEventListener hints = env.newLsmHintListener(); // compaction inputs and jobs
          Options o =
              new Options()
                  .setCreateIfMissing(true)
                  .setEnv(env)
                  .setListeners(List.of(hints))
                  .setWriteBufferSize(1 << 20);
          RocksDB db = RocksDB.open(o, "/kept/db");
          FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        for (int round = 0; round < 3; round++) {
          for (int i = 0; i < 20_000; i++) {
            db.put(("key" + i).getBytes(), ("value-" + round + "-" + i).getBytes());
          }
          db.flush(f);
        }
        db.compactRange();
        io.zkv.fs.CompactionZones c = env.zoneFs().compactionZones();
        assertTrue(c.compactions() >= 1 && c.zones() >= c.compactions(), c.toString());
      }
      synchronized (policy) {
        // data writers: the file system's two and the four of over-provisioning; metadata one
        assertTrue(policy.reserves.contains("WAL kept 6 op 4"), policy.reserves.toString());
        assertTrue(policy.reserves.contains("SST kept 6 op 4"), policy.reserves.toString());
        assertTrue(policy.reserves.contains("MANIFEST kept 1 op 4"), policy.reserves.toString());
      }
      // a reserve leaving data writers fewer than 4 of the 29 I/O zones is refused at mount
      ZoneFsSettings tooMany = ZoneFsSettings.builder().opZones(24).build();
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> ZkvEnv.onZones(dev, tooMany));
      assertTrue(e.getMessage().contains("op-zones 24"), e.getMessage());
      try (ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.builder().opZones(23).build())) {
        assertEquals(0, env.zoneFs().compactionZones().compactions()); // since this mount
      }
    }
  }

  @Test
  void anUnnamedFileIsOfUnknownKind() {
    assertEquals(FileKind.UNKNOWN, PlacementAllocator.kindOf(""));
    assertEquals(FileKind.WAL, PlacementAllocator.kindOf("/db/000012.log"));
  }

  private static ZoneViewWriter twoZonesAndARequest() {
    ZoneViewWriter w = new ZoneViewWriter();
    long mib = 1 << 20;
    w.zones.add(new ZoneViewWriter.Zone(0, 6 * mib, mib, mib, mib, 0, true, false, false, -1));
    w.zones.add(
        new ZoneViewWriter.Zone(
            8 * mib, 6 * mib, 2 * mib, 2 * mib, 2 * mib, 3, false, false, false, 9));
    w.files.add(
        new ZoneViewWriter.File(12, "/db/000012.sst", 3, 1, 4, "a".getBytes(), "m".getBytes()));
    w.files.add(
        new ZoneViewWriter.File(13, "/db/000013.sst", 3, 1, 4, "n".getBytes(), "z".getBytes()));
    w.placements.add(new ZoneViewWriter.Placement(1, 12, mib));
    w.placements.add(new ZoneViewWriter.Placement(1, 13, mib));
    w.request =
        new ZoneViewWriter.Request(
            20,
            "/db/000020.sst",
            4,
            ZoneView.PURPOSE_FILE_WRITE,
            2,
            7,
            "a".getBytes(),
            "z".getBytes(),
            new long[] {12, 13});
    return w;
  }

  @Test
  void theRequestCarriesTheLsmHintsAndTheViewRealFiles() {
    ZoneView view = ZoneView.wrap(twoZonesAndARequest().build());
    AllocationRequest r = PlacementAllocator.request(view);
    assertEquals(20, r.fileId());
    assertEquals(FileKind.SST, r.kind());
    assertEquals(2, r.level().getAsInt());
    assertEquals(7, r.jobId().getAsInt());
    assertEquals(List.of(12L, 13L), r.compactionInputs());
    assertArrayEquals("a".getBytes(), r.keyRange().orElseThrow().smallest());
    ZoneTableView table = ZoneTableProjection.forAllocation(view, GEOMETRY);
    assertEquals(java.util.Set.of(12L, 13L), table.filesIn(1));
    assertEquals(1, table.file(13).orElseThrow().level().getAsInt());
    assertArrayEquals(
        "n".getBytes(), table.file(13).orElseThrow().keyRange().orElseThrow().smallest());
    assertEquals(9, table.zone(1).tag().getAsInt());
  }

  @Test
  void fullZonesTheFileSystemHoldsCountAgainstNoLimit() {
    // 14 active zones on the device (12 tokens for files, 2 reserved); 13 partly written zones
    // and three full ones whose reset is pending (busy, no owner): the view must not count those
    // (it did, and the table refused the view: the policy's allocation failed, overridden)
    ZoneViewWriter w = new ZoneViewWriter();
    long mib = 1 << 20;
    for (int z = 0; z < 20; z++) {
      long written = z < 13 ? mib : z < 16 ? 6 * mib : 0;
      boolean busy = z >= 13 && z < 16;
      w.zones.add(
          new ZoneViewWriter.Zone(z * 8 * mib, 6 * mib, written, 0, 0, 0, false, busy, false, -1));
    }
    ZoneTableView table = ZoneTableProjection.forAllocation(ZoneView.wrap(w.build()), GEOMETRY);
    assertEquals(13, table.tokens().activeIo());
    assertEquals(0, table.tokens().openIo());
    assertTrue(table.zone(14).busy());
  }

  @Test
  void decisionsAreWrittenBackWithTagAndLifetime() {
    ZoneView view = ZoneView.wrap(twoZonesAndARequest().build());
    PlacementAllocator.encode(new Allocation.UseZone(7, List.of(4, 5), "test"), view);
    assertArrayEquals(new int[] {ZoneAllocator.USE_ZONE, 7, 2, -1, -1}, view.decision());
    PlacementAllocator.encode(
        new Allocation.OpenEmptyZone(
            3, WriteLifetime.LONG, java.util.OptionalInt.of(42), List.of(), "test"),
        view);
    assertArrayEquals(
        new int[] {ZoneAllocator.OPEN_EMPTY_ZONE, 3, 0, 42, WriteLifetime.LONG.value()},
        view.decision());
  }

  @Test
  void aBufferOfAnotherLayoutOrVersionIsRefused() {
    java.nio.ByteBuffer b = twoZonesAndARequest().build();
    b.putShort(6, (short) (ZoneView.VERSION + 1));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> ZoneView.wrap(b));
    assertTrue(e.getMessage().contains("different zkv builds"), e.getMessage());
    java.nio.ByteBuffer c = twoZonesAndARequest().build();
    c.putInt(16 + 4, ZoneView.ZONE_SIZE + 8); // the zones' record size
    assertThrows(IllegalStateException.class, () -> ZoneView.wrap(c));
  }
}
