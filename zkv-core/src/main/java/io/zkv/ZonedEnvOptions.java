package io.zkv;

import io.zkv.placement.GcTrigger;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.VictimPolicy;
import io.zkv.plm.driver.WindowSchedulers;
import java.util.Objects;

/**
 * How a {@link ZonedEnv}'s zone file system places and reclaims data: an immutable value built with
 * {@link #builder()}. These are per device, shared by every database on it.
 *
 * <p>Policies are objects: any zkv-placement {@link PlacementPolicy} and {@link VictimPolicy} (your
 * own too), handed straight to the file system's call-outs. Defaults: {@link LizaPolicy} (ZenFS's
 * allocation, finish threshold off as in ZenFS's mkfs; {@code new LizaPolicy(10)} finishes zones
 * with less than 10% left before each non-WAL allocation), the {@link GreedyVictimPolicy} for
 * garbage collection, and background GC from {@value GcTrigger#ZENFS_START_PERCENT}% free space
 * (ZenFS's level). Policies are per device: every database on it shares them, so a policy object
 * must be safe to call from several threads (the file system serialises the calls of one device).
 *
 * <p>On a {@code plmarray:} device (docs/plm.md), {@link Builder#windowScheduler(String)} names the
 * window scheduler a driver thread applies to its NVM Sets while the env is open; none by default
 * (the sets' windows stay as they are: PLM off unless someone turned it on).
 */
public final class ZonedEnvOptions {
  private static final ZonedEnvOptions DEFAULTS = builder().build();

  private final PlacementPolicy placement;
  private final VictimPolicy victimPolicy;
  private final int gcStartPercent;
  private final String windowScheduler;

  private ZonedEnvOptions(Builder b) {
    this.placement = b.placement;
    this.victimPolicy = b.victimPolicy;
    this.gcStartPercent = b.gcStartPercent;
    this.windowScheduler = b.windowScheduler;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The defaults (see the class comment). */
  public static ZonedEnvOptions defaults() {
    return DEFAULTS;
  }

  /** The placement policy deciding every zone allocation. */
  public PlacementPolicy placement() {
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

  /** Equal settings: same placement and victim policy (by name) and GC level. */
  /**
   * The window scheduler ({@code base}, {@code r-vigil}, {@code o-vigil}) driving a {@code
   * plmarray:} device's NVM Sets, or null for none.
   */
  public String windowScheduler() {
    return windowScheduler;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ZonedEnvOptions other
        && placement.name().equals(other.placement.name())
        && victimPolicy.name().equals(other.victimPolicy.name())
        && gcStartPercent == other.gcStartPercent
        && Objects.equals(windowScheduler, other.windowScheduler);
  }

  @Override
  public int hashCode() {
    return Objects.hash(placement.name(), victimPolicy.name(), gcStartPercent, windowScheduler);
  }

  @Override
  public String toString() {
    return "ZonedEnvOptions{placement="
        + placement.name()
        + ", victimPolicy="
        + victimPolicy.name()
        + ", gcStartPercent="
        + gcStartPercent
        + (windowScheduler != null ? ", windowScheduler=" + windowScheduler : "")
        + "}";
  }

  /** Builder of {@link ZonedEnvOptions}; starts from the defaults. */
  public static final class Builder {
    private PlacementPolicy placement = new LizaPolicy();
    private VictimPolicy victimPolicy = new GreedyVictimPolicy();
    private int gcStartPercent = GcTrigger.ZENFS_START_PERCENT;
    private String windowScheduler;

    private Builder() {}

    /**
     * The window scheduler for a {@code plmarray:} device: {@code base} (PLM off), {@code plm} (the
     * ablation ladder's simple driver), {@code r-vigil} or {@code o-vigil}; null for none. Opening
     * any other device with one set fails before anything is mounted, saying why (an {@code nvme:}
     * device without Predictable Latency Mode, such as QEMU's, among them; docs/plm.md).
     *
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public Builder windowScheduler(String name) {
      if (name != null) {
        WindowSchedulers.create(name, 0); // validates, with the message users see
      }
      this.windowScheduler = name;
      return this;
    }

    /** The placement policy (any zkv-placement {@link PlacementPolicy}, your own too). */
    public Builder placement(PlacementPolicy policy) {
      this.placement = Objects.requireNonNull(policy, "placement must not be null");
      return this;
    }

    /**
     * A built-in placement by name, with its default settings: {@code placement(Placement.LIZA)} is
     * {@code placement(new LizaPolicy())}.
     *
     * @throws IllegalArgumentException if the placement is not available yet
     */
    public Builder placement(Placement placement) {
      return placement(Placement.requireAvailable(placement).newPolicy());
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
