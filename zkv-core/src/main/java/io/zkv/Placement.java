package io.zkv;

/**
 * The built-in placement policies by name (configuration files, the CLI, {@code zkv bench
 * --placement}). The file system takes policy objects ({@link
 * ZonedEnvOptions.Builder#placement(io.zkv.placement.PlacementPolicy)}); {@link #newPolicy()} makes
 * the one a name stands for, with its default settings. Placement is per device.
 *
 * <p>{@link #LIZA} (zkv-placement's {@code LizaPolicy}, ZenFS's rules), {@link #CAZA} ({@code
 * CazaPolicy}, for RocksDB's default 64 MiB target files; {@code new CazaPolicy(bytes)} for another
 * size) and {@link #ZONEKV} ({@code ZoneKvPolicy}: it needs three active zones for file writes).
 */
public enum Placement {
  /** ZenFS's lifetime-based zone allocation (the default). */
  LIZA,
  /** Compaction-aware zone allocation (CAZA, HotStorage '22). */
  CAZA,
  /** Level-specific lifetime zone allocation (ZoneKV, IEEE 2023). */
  ZONEKV;

  /** A new policy of this kind with its default settings. */
  public io.zkv.placement.PlacementPolicy newPolicy() {
    return switch (this) {
      case CAZA -> new io.zkv.placement.CazaPolicy();
      case ZONEKV -> new io.zkv.placement.ZoneKvPolicy();
      case LIZA -> new io.zkv.placement.LizaPolicy();
    };
  }

  /** The name its policy reports ({@link io.zkv.placement.PlacementPolicy#name()}). */
  public String policyName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
