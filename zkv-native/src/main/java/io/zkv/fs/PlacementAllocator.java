package io.zkv.fs;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationPurpose;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.FileKind;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneTable;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connects a {@link PlacementPolicy} (zkv-placement, pure Java) to the zone file system's
 * allocation call-out ({@link ZoneAllocator}): turns the native zone table into a {@link ZoneTable}
 * view, asks the policy, and encodes its {@link Allocation}.
 *
 * <p>How the native table becomes a view: {@link ZoneTableProjection}.
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
        AllocationRequest.builder(fileId, kindOf(fileName))
            .lifetime(WriteLifetime.fromValue(lifetime))
            .purpose(forGc ? AllocationPurpose.GC_MIGRATION : AllocationPurpose.FILE_WRITE)
            .build();
    encode(policy.allocate(request, table), decision);
  }

  /**
   * The kind of a file from its name; a file with no name left (deleted while RocksDB still reads
   * it, its data migrated by GC) is {@link FileKind#UNKNOWN}.
   */
  static FileKind kindOf(String fileName) {
    return fileName.isEmpty() ? FileKind.UNKNOWN : FileKind.fromName(fileName);
  }

  ZoneTable view(long[] zones) {
    return ZoneTableProjection.forAllocation(zones, geometry);
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
