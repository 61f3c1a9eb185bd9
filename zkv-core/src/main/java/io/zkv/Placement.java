package io.zkv;

/**
 * The built-in placement policies by name (configuration files, the CLI, {@code zkv bench
 * --placement}). The file system takes policy objects ({@link
 * ZonedEnvOptions.Builder#placement(io.zkv.placement.PlacementPolicy)}); {@link #newPolicy()} makes
 * the one a name stands for, with its default settings. Placement is per device.
 *
 * <p>Today only {@link #LIZA} is available (zkv-placement's {@code LizaPolicy}, ZenFS's rules).
 * {@link #CAZA} and {@link #ZONEKV} are listed so that configurations can name them; the builders
 * refuse them until zkv-placement has their policies.
 */
public enum Placement {
  /** ZenFS's lifetime-based zone allocation (the default). */
  LIZA(true),
  /** Compaction-aware zone allocation (CAZA, HotStorage '22). Not available yet. */
  CAZA(false),
  /** Level-specific lifetime zone allocation (ZoneKV). Not available yet. */
  ZONEKV(false);

  private final boolean available;

  Placement(boolean available) {
    this.available = available;
  }

  /**
   * A new policy of this kind with its default settings.
   *
   * @throws IllegalArgumentException for a placement that is not available yet
   */
  public io.zkv.placement.PlacementPolicy newPolicy() {
    requireAvailable(this);
    return new io.zkv.placement.LizaPolicy(); // the only available one (checked above)
  }

  /** The name its policy reports ({@link io.zkv.placement.PlacementPolicy#name()}). */
  public String policyName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether the zone file system can use this placement today. */
  public boolean isAvailable() {
    return available;
  }

  /**
   * Returns {@code p} if it is available.
   *
   * @throws IllegalArgumentException for a placement that is not available yet
   */
  static Placement requireAvailable(Placement p) {
    java.util.Objects.requireNonNull(p, "placement must not be null");
    if (!p.available) {
      throw new IllegalArgumentException(
          "placement "
              + p
              + " is not available yet: zkv-placement has no "
              + p
              + " policy yet. Use Placement.LIZA");
    }
    return p;
  }
}
