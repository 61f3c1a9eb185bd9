package io.zkv.fs;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.VictimPolicy;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connects a {@link VictimPolicy} (zkv-placement, pure Java) to the zone file system's GC call-out
 * ({@link GcVictimChooser}): projects the native zone table with {@link
 * ZoneTableProjection#forVictimChoice}, so the policy sees the bytes each zone would cost to copy
 * and only the zones the file system offers.
 */
public final class VictimPolicyChooser implements GcVictimChooser {
  private final VictimPolicy policy;
  private final DeviceGeometry geometry;
  private final AtomicLong calls = new AtomicLong();

  public VictimPolicyChooser(VictimPolicy policy, DeviceGeometry geometry) {
    this.policy = policy;
    this.geometry = geometry;
  }

  public VictimPolicy policy() {
    return policy;
  }

  /** How many victims the policy was asked for. */
  public long calls() {
    return calls.get();
  }

  @Override
  public int chooseVictim(ByteBuffer view) {
    calls.incrementAndGet();
    return policy
        .chooseVictim(ZoneTableProjection.forVictimChoice(ZoneView.wrap(view), geometry))
        .orElse(-1);
  }
}
