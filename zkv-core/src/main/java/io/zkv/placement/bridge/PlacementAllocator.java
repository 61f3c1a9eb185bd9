package io.zkv.placement.bridge;

import io.zkv.device.DeviceGeometry;
import io.zkv.fs.ZoneAllocator;
import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationPurpose;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.FileKind;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneCondition;
import io.zkv.placement.ZoneReservation;
import io.zkv.placement.ZoneTable;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connects a {@link PlacementPolicy} (zkv-placement, pure Java) to the zone file system's
 * allocation call-out ({@link ZoneAllocator}): turns the native zone table into a {@link ZoneTable}
 * view, asks the policy, and encodes its {@link Allocation}.
 *
 * <p>Projection choices: a zone being written is OPEN, a partly written idle one CLOSED (it still
 * holds an active resource); metadata zones are reserved and shown empty, because the file system
 * keeps their resources out of the I/O tokens (as ZenFS's two reserved tokens do); live bytes are
 * per zone, attributed to no particular file (the native table does not list files per zone yet).
 */
public final class PlacementAllocator implements ZoneAllocator {
  private final PlacementPolicy policy;
  private final DeviceGeometry geometry;
  private final AtomicLong calls = new AtomicLong();

  public PlacementAllocator(PlacementPolicy policy, DeviceGeometry geometry) {
    this.policy = policy;
    this.geometry = geometry;
  }

  public PlacementPolicy policy() {
    return policy;
  }

  /** How many allocations the policy decided. */
  public long calls() {
    return calls.get();
  }

  @Override
  public void allocate(
      long fileId,
      String fileName,
      int lifetime,
      boolean forGc,
      long[] zones,
      int activeLimit,
      long[] decision) {
    calls.incrementAndGet();
    ZoneTable table = view(zones);
    AllocationRequest request =
        AllocationRequest.builder(fileId, FileKind.fromName(fileName))
            .lifetime(WriteLifetime.fromValue(lifetime))
            .purpose(forGc ? AllocationPurpose.GC_MIGRATION : AllocationPurpose.FILE_WRITE)
            .build();
    encode(policy.allocate(request, table), decision);
  }

  ZoneTable view(long[] zones) {
    int n = zones.length / ZONE_FIELDS;
    ZoneTable.Builder b =
        ZoneTable.builder(n, geometry.zoneCapacity())
            .deviceLimits(geometry.maxOpen(), geometry.maxActive());
    for (int i = 0; i < n; i++) {
      int o = i * ZONE_FIELDS;
      long capacity = zones[o + 1];
      long written = zones[o + 2] - zones[o];
      long live = zones[o + 3];
      boolean meta = zones[o + 5] != 0;
      boolean busy = zones[o + 6] != 0;
      b.capacity(i, capacity);
      if (meta) {
        b.reserve(i, ZoneReservation.METADATA);
        continue;
      }
      ZoneCondition cond =
          written == 0
              ? ZoneCondition.EMPTY
              : written >= capacity
                  ? ZoneCondition.FULL
                  : busy ? ZoneCondition.OPEN : ZoneCondition.CLOSED;
      b.zone(i, cond, written, WriteLifetime.fromValue((int) zones[o + 4]));
      if (live > 0) {
        // per-zone live bytes under a synthetic file id (far above real ids): no file attribution
        b.live(i, Long.MAX_VALUE - i, Math.min(live, written));
      }
      if (busy) {
        b.busy(i);
      }
    }
    return b.build();
  }

  static void encode(Allocation a, long[] decision) {
    int action;
    int zone = -1;
    if (a instanceof Allocation.UseZone u) {
      action = USE_ZONE;
      zone = u.target();
    } else if (a instanceof Allocation.OpenEmptyZone e) {
      action = OPEN_EMPTY_ZONE;
      zone = e.target();
    } else if (a instanceof Allocation.Wait) {
      action = WAIT;
    } else if (a instanceof Allocation.NeedGc) {
      action = NEED_GC;
    } else {
      action = NO_SPACE;
    }
    List<Integer> finish = a.finishFirst();
    if (finish.size() > MAX_FINISH) {
      throw new IllegalStateException("policy asked to finish " + finish.size() + " zones at once");
    }
    decision[0] = action;
    decision[1] = zone;
    decision[2] = finish.size();
    for (int i = 0; i < finish.size(); i++) {
      decision[3 + i] = finish.get(i);
    }
  }
}
