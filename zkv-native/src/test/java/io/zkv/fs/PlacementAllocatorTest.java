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
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
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

    @Override
    public String name() {
      return "recording LIZA";
    }

    @Override
    public synchronized Allocation allocate(AllocationRequest request, ZoneTableView zones) {
      Allocation a = liza.allocate(request, zones);
      requests.add(request);
      decisions.add(a);
      return a;
    }
  }

  @Test
  void rocksDbRunsWithLizaDecidingEveryAllocation() throws Exception {
    Recording policy = new Recording();
    PlacementAllocator allocator = new PlacementAllocator(policy, GEOMETRY);
    try (ZonedDevice dev = device()) {
      try (ZkvEnv env = ZkvEnv.onZones(dev, true, allocator);
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
      try (ZkvEnv env = ZkvEnv.onZones(dev, false);
          Options o = new Options().setEnv(env);
          RocksDB db = RocksDB.open(o, "/placed/db")) {
        for (int i = 0; i < 200_000; i += 333) {
          assertArrayEquals(("value-" + i).getBytes(), db.get(("key" + i).getBytes()));
        }
      }
    }
  }

  @Test
  void aPolicyThatFailsFailsTheWriteNotTheProcess() throws Exception {
    ZoneAllocator broken =
        (id, name, lifetime, gc, zones, limit, decision) -> {
          throw new IllegalStateException("policy bug (expected by the test)");
        };
    try (ZonedDevice dev = device();
        ZkvEnv env = ZkvEnv.onZones(dev, true, broken);
        Options o = new Options().setCreateIfMissing(true).setEnv(env)) {
      RocksDBException e =
          assertThrows(
              RocksDBException.class,
              () -> {
                try (RocksDB db = RocksDB.open(o, "/broken/db")) {
                  db.put("k".getBytes(), "v".getBytes());
                }
              });
      assertTrue(e.getMessage().contains("Input/output error"), e.getMessage());
    }
  }

  @Test
  void anUnnamedFileIsOfUnknownKind() {
    assertEquals(FileKind.UNKNOWN, PlacementAllocator.kindOf(""));
    assertEquals(FileKind.WAL, PlacementAllocator.kindOf("/db/000012.log"));
  }

  @Test
  void decisionsAreEncodedForTheFileSystem() {
    long[] d = new long[3 + ZoneAllocator.MAX_FINISH];
    PlacementAllocator.encode(new Allocation.UseZone(7, List.of(4, 5), "test"), d);
    assertArrayEquals(
        new long[] {ZoneAllocator.USE_ZONE, 7, 2, 4, 5}, java.util.Arrays.copyOf(d, 5));
  }
}
