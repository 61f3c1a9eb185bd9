package io.zkv;

/**
 * How the zone file system chooses zones for files (see {@code io.zkv.placement}): a Java placement
 * policy decides every zone allocation. Placement is per device: {@link ZonedEnvOptions} chooses
 * it.
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
