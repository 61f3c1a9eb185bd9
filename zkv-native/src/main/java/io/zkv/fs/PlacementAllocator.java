package io.zkv.fs;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.Allocation;
import io.zkv.placement.AllocationPurpose;
import io.zkv.placement.AllocationRequest;
import io.zkv.placement.FileKind;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.WriteLifetime;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connects a {@link PlacementPolicy} (zkv-placement, pure Java) to the zone file system's
 * allocation call-out ({@link ZoneAllocator}): turns the native {@link ZoneView} into the request
 * (with the LSM hints) and a {@code ZoneTable}, asks the policy, and writes its {@link Allocation}
 * back into the view.
 *
 * <p>How the native view becomes a table: {@link ZoneTableProjection}.
 */
public final class PlacementAllocator implements ZoneAllocator {
  private final PlacementPolicy policy;
  private final DeviceGeometry geometry;
  private final AtomicLong calls = new AtomicLong();
  private final CompactionInputZones inputZones = new CompactionInputZones();
  private final HintOverlaps hintOverlaps = new HintOverlaps();

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

  /** Compactions whose inputs' zones were counted ({@link #compactionInputZones()}). */
  public long compactionsCounted() {
    return inputZones.compactions();
  }

  /**
   * The zones holding each counted compaction's input SSTs, summed (CAZA's Fig. 6(a): divide by
   * {@link #compactionsCounted()}); counted at each compaction's first output allocation.
   */
  public long compactionInputZones() {
    return inputZones.zones();
  }

  /** Compaction outputs' key-range hints against their own ranges ({@link HintOverlaps}). */
  public HintOverlapCounts hintOverlaps() {
    return hintOverlaps.counts();
  }

  @Override
  public void allocate(ByteBuffer buffer) {
    calls.incrementAndGet();
    ZoneView view = ZoneView.wrap(buffer);
    inputZones.count(view);
    hintOverlaps.observe(view);
    encode(policy.allocate(request(view), ZoneTableProjection.forAllocation(view, geometry)), view);
  }

  /** The request with every hint the file system has: level, job, key range, inputs. */
  static AllocationRequest request(ZoneView view) {
    String name = view.requestFileName();
    boolean walReserve = view.requestForWalReserve(); // for a WAL's next zone: no name
    AllocationRequest.Builder r =
        AllocationRequest.builder(view.requestFileId(), walReserve ? FileKind.WAL : kindOf(name))
            .lifetime(WriteLifetime.fromValue(view.requestLifetime()))
            .purpose(
                walReserve
                    ? AllocationPurpose.WAL_RESERVE
                    : view.requestForGc()
                        ? AllocationPurpose.GC_MIGRATION
                        : AllocationPurpose.FILE_WRITE);
    if (view.requestExpectedSize() > 0) {
      r.expectedSize(view.requestExpectedSize());
    }
    if (view.requestLevel() >= 0) {
      r.level(view.requestLevel());
    }
    if (view.requestJob() >= 0 && view.requestJob() <= Integer.MAX_VALUE) {
      r.jobId((int) view.requestJob());
    }
    ZoneTableProjection.keyRange(view.requestSmallest(), view.requestLargest())
        .ifPresent(r::keyRange);
    long[] inputs = view.requestInputs();
    if (inputs.length > 0) {
      r.compactionInputs(Arrays.stream(inputs).boxed().toList());
    }
    return r.build();
  }

  /**
   * The kind of a file from its name; a file with no name left (deleted while RocksDB still reads
   * it, its data migrated by GC) is {@link FileKind#UNKNOWN}.
   */
  static FileKind kindOf(String fileName) {
    return fileName.isEmpty() ? FileKind.UNKNOWN : FileKind.fromName(fileName);
  }

  static void encode(Allocation a, ZoneView view) {
    int action;
    int zone = -1;
    int tag = -1;
    int lifetime = -1;
    if (a instanceof Allocation.UseZone u) {
      action = USE_ZONE;
      zone = u.target();
    } else if (a instanceof Allocation.OpenEmptyZone e) {
      action = OPEN_EMPTY_ZONE;
      zone = e.target();
      tag = e.tag().orElse(-1);
      lifetime = e.lifetime().value();
    } else if (a instanceof Allocation.Wait) {
      action = WAIT;
    } else if (a instanceof Allocation.NeedGc) {
      action = NEED_GC;
    } else {
      action = NO_SPACE;
    }
    view.decide(action, zone, a.finishFirst(), tag, lifetime);
  }
}
