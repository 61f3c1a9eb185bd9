package io.zkv;

/**
 * The built-in placement policies by name (configuration files, the CLI, {@code zkv bench
 * --placement}). The file system takes policy objects ({@link
 * ZonedEnvOptions.Builder#placement(io.zkv.placement.PlacementPolicy)}); {@link #newPolicy()} makes
 * the one a name stands for, with its default settings. Placement is per device.
 *
 * <p>Available: {@link #LIZA} (zkv-placement's {@code LizaPolicy}, ZenFS's rules) and {@link #CAZA}
 * ({@code CazaPolicy}, for RocksDB's default 64 MiB target files; {@code new CazaPolicy(bytes)} for
 * another size). {@link #ZONEKV} is listed so that configurations can name it; the builders refuse
 * it until zkv-placement has its policy.
 */
public enum Placement {
  /** ZenFS's lifetime-based zone allocation (the default). */
  LIZA(true),
  /** Compaction-aware zone allocation (CAZA, HotStorage '22). */
  CAZA(true),
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
    return this == CAZA
        ? new io.zkv.placement.CazaPolicy()
        : new io.zkv.placement.LizaPolicy(); // the only others available (checked above)
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
              + " policy yet. Use Placement.LIZA or Placement.CAZA");
    }
    return p;
  }
}
