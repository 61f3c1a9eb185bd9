package io.zkv;

/**
 * How the zone file system chooses zones for files (see {@code io.zkv.placement}).
 *
 * <p>Today only {@link #LIZA} is available: the native zone file system allocates with its built-in
 * LIZA rule (ZenFS's lifetime-based allocation) and does not consult the Java placement policies
 * yet. {@link #CAZA} and {@link #ZONEKV} are listed so that configurations can name them, but
 * {@link ZkvOptions.Builder#placement} refuses them until the native file system is bridged to the
 * Java policies.
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
}
