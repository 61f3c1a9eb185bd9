package io.zkv;

import io.zkv.placement.GcTrigger;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.VictimPolicy;
import java.util.Objects;

/**
 * How a {@link ZonedEnv}'s zone file system places and reclaims data: an immutable value built with
 * {@link #builder()}. These are per device, shared by every database on it.
 *
 * <p>Defaults: {@link Placement#LIZA} (ZenFS's allocation, zkv-placement's {@code LizaPolicy}), the
 * {@link GreedyVictimPolicy} for garbage collection, and background GC from {@value
 * GcTrigger#ZENFS_START_PERCENT}% free space (ZenFS's level).
 */
public final class ZonedEnvOptions {
  private static final ZonedEnvOptions DEFAULTS = builder().build();

  private final Placement placement;
  private final VictimPolicy victimPolicy;
  private final int gcStartPercent;

  private ZonedEnvOptions(Builder b) {
    this.placement = b.placement;
    this.victimPolicy = b.victimPolicy;
    this.gcStartPercent = b.gcStartPercent;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The defaults (see the class comment). */
  public static ZonedEnvOptions defaults() {
    return DEFAULTS;
  }

  /** The zone placement deciding every zone allocation. */
  public Placement placement() {
    return placement;
  }

  /** The policy choosing which zone garbage collection empties next. */
  public VictimPolicy victimPolicy() {
    return victimPolicy;
  }

  /**
   * Background GC starts when free space falls to this percentage (0 = never in the background).
   */
  public int gcStartPercent() {
    return gcStartPercent;
  }

  /** Equal settings: same placement, victim policy (by name) and GC level. */
  @Override
  public boolean equals(Object o) {
    return o instanceof ZonedEnvOptions other
        && placement == other.placement
        && victimPolicy.name().equals(other.victimPolicy.name())
        && gcStartPercent == other.gcStartPercent;
  }

  @Override
  public int hashCode() {
    return Objects.hash(placement, victimPolicy.name(), gcStartPercent);
  }

  @Override
  public String toString() {
    return "ZonedEnvOptions{placement="
        + placement
        + ", victimPolicy="
        + victimPolicy.name()
        + ", gcStartPercent="
        + gcStartPercent
        + "}";
  }

  /** Builder of {@link ZonedEnvOptions}; starts from the defaults. */
  public static final class Builder {
    private Placement placement = Placement.LIZA;
    private VictimPolicy victimPolicy = new GreedyVictimPolicy();
    private int gcStartPercent = GcTrigger.ZENFS_START_PERCENT;

    private Builder() {}

    /**
     * Zone placement; only {@link Placement#LIZA} is available today.
     *
     * @throws IllegalArgumentException if the placement is not available yet
     */
    public Builder placement(Placement placement) {
      this.placement = Placement.requireAvailable(placement);
      return this;
    }

    /** The garbage collection victim policy (any zkv-placement {@link VictimPolicy}). */
    public Builder victimPolicy(VictimPolicy policy) {
      this.victimPolicy = Objects.requireNonNull(policy, "victimPolicy must not be null");
      return this;
    }

    /**
     * Background GC starts when free space falls to {@code percent} (0 turns it off; GC on a full
     * device and {@link ZkvDb#resume()} still run).
     *
     * @throws IllegalArgumentException if {@code percent} is not 0..100
     */
    public Builder gcStartPercent(int percent) {
      new GcTrigger(percent); // validates, with the message users see
      this.gcStartPercent = percent;
      return this;
    }

    public ZonedEnvOptions build() {
      return new ZonedEnvOptions(this);
    }
  }
}
