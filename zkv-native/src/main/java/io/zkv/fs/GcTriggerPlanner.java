package io.zkv.fs;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.GcTrigger;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connects a {@link GcTrigger} (zkv-placement: ZenFS's start level and slope) to the background
 * GC's call-out ({@link GcRoundPlanner}): the trigger reads the zone view as a victim policy does
 * and answers the bound on a victim's live bytes for this round.
 */
public final class GcTriggerPlanner implements GcRoundPlanner {
  private final GcTrigger trigger;
  private final DeviceGeometry geometry;
  private final AtomicLong rounds = new AtomicLong();
  private final AtomicLong collectingRounds = new AtomicLong();

  public GcTriggerPlanner(GcTrigger trigger, DeviceGeometry geometry) {
    this.trigger = trigger;
    this.geometry = geometry;
  }

  public GcTrigger trigger() {
    return trigger;
  }

  /** Rounds the trigger was asked about, and of those the ones it answered with a collection. */
  public long rounds() {
    return rounds.get();
  }

  public long collectingRounds() {
    return collectingRounds.get();
  }

  @Override
  public long maxLiveBytes(ByteBuffer view) {
    rounds.incrementAndGet();
    long bound =
        trigger.maxLiveBytes(
            ZoneTableProjection.forAllocation(ZoneView.wrap(view), geometry),
            geometry.zoneCapacity());
    if (bound > 0) {
      collectingRounds.incrementAndGet();
    }
    return bound;
  }
}
