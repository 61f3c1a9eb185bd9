package io.zkv;

import static io.zkv.TestDevices.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkv.device.FaultInjector;
import io.zkv.device.ZonedDevice;
import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.FileKind;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.ZoneTableView;
import io.zkv.wal.WalOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WAL a database's open creates takes its first zone at the tier of the space reserve of the
 * flush that replays the old WAL, so that a database stopped on a full device reopens. An open that
 * finds a torn record at the old WAL's end writes and syncs a record into its new WAL before the
 * old one is deleted (RocksDB's DB::Open); on a device full to the WAL's tier that sync found no
 * zone, and the reopen failed with NoSpace (CI: FullDeviceRecoveryTest, a fill whose last synced
 * put crossed a WAL zone's end; 1 of 2 loaded runs of its 36 cases). Seen here through what the
 * placement policy is told: with two over-provisioning zones a WAL's request keeps 4 empty zones
 * from it, the replaying flush's 2 (docs/zone-fs.md, "Reserves").
 */
class ReopenAfterTheWalRanOutTest {
  @TempDir Path dir;

  /** LIZA, recording how many empty zones each WAL request's view keeps from the writer. */
  static final class RecordingPolicy implements PlacementPolicy {
    private final LizaPolicy liza = new LizaPolicy();
    final List<Integer> walKept = new ArrayList<>();

    @Override
    public String name() {
      return "recording-liza";
    }

    @Override
    public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
      if (request.kind() == FileKind.WAL) {
        synchronized (walKept) {
          walKept.add(zones.emptyZonesKept());
        }
      }
      return liza.allocate(request, zones);
    }

    List<Integer> walKept() {
      synchronized (walKept) {
        return List.copyOf(walKept);
      }
    }
  }

  static ZonedEnvOptions options(PlacementPolicy policy) {
    return ZonedEnvOptions.builder()
        .placement(policy)
        .opZones(2)
        .wal(WalOptions.builder().reservedZones(0).build()) // every WAL zone from the policy
        .build();
  }

  /** 8 MiB memtables: nothing is flushed before the power cut. */
  static ZkvOptions dbOptions() {
    return ZkvOptions.builder().writeBufferSize(8L << 20).build();
  }

  static byte[] value(int k) {
    byte[] v = new byte[4000];
    new java.util.SplittableRandom(k).nextBytes(v);
    return v;
  }

  @Test
  void theOpensWalTakesItsFirstZoneAtTheReplayingFlushsTier() throws Exception {
    String uri = TestDevices.medium(dir);
    // Unsynced puts: the WAL's 1 MiB buffer is written out once (1 MiB less its 32-byte chunk
    // header: mid-record), the rest is lost with the power, so the WAL ends in a torn record.
    int puts = 400;
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      ZonedEnv env = ZonedEnv.open(dev, ZonedEnv.Mode.FORMAT, options(new LizaPolicy()));
      ZkvDb db = ZkvDb.open(env, "/db", dbOptions());
      for (int k = 0; k < puts; k++) {
        db.put(b("k" + k), value(k));
      }
      dev.faults().powerCut(FaultInjector.PowerCut.DROP_ALL, 1);
      assertThrows(ZkvException.class, db::close);
      env.close();
    }
    RecordingPolicy replay = new RecordingPolicy();
    int kept;
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, options(replay));
        ZkvDb db = ZkvDb.open(env, "/db", dbOptions())) {
      // the open wrote its record: its WAL's one request, at the replaying flush's tier
      assertEquals(List.of(2), replay.walKept(), "the open's WAL, asking during the open");
      kept = countKept(db, puts);
      db.put(b("after"), b("the open"));
    }
    assertFalse(kept == 0, "no put survived the power cut: the WAL was not torn mid-way");
    RecordingPolicy clean = new RecordingPolicy();
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT, options(clean));
        ZkvDb db = ZkvDb.open(env, "/db", dbOptions().toBuilder().syncWrites(true).build())) {
      assertEquals(List.of(), clean.walKept(), "a clean open writes nothing into its WAL");
      db.put(b("first"), b("after a clean open")); // synced: its write-out asks for a zone
      // the open ended (its OPTIONS file): the WAL's first zone is a WAL's
      assertEquals(List.of(4), clean.walKept(), "the open's WAL, asking after the open");
      assertArrayEquals(b("the open"), db.get(b("after")));
    }
  }

  /** The puts the replay recovered: a prefix of those written, each with its value. */
  static int countKept(ZkvDb db, int puts) {
    int kept = 0;
    while (kept < puts && db.get(b("k" + kept)) != null) {
      assertArrayEquals(value(kept), db.get(b("k" + kept)), "k" + kept);
      kept++;
    }
    for (int k = kept; k < puts; k++) {
      assertEquals(null, db.get(b("k" + k)), "k" + k + " after a lost one");
    }
    return kept;
  }
}
