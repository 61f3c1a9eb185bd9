package io.zkv.placement;

/**
 * Chooses the zone for a file's next extent. The zone file system calls it each time a file needs a
 * zone (first write, or its zone filled up) and when GC needs a zone to copy live extents into
 * (purpose {@code GC_MIGRATION}, once per target zone: GC keeps writing into it while it has room),
 * never per write.
 *
 * <p>The call gets typed hints about the file ({@link AllocationRequest}) and a read-only view of
 * the zones, their tokens and which files live where ({@link ZoneTableView}), and returns a
 * decision ({@link Allocation}) the file system carries out. The view is a snapshot taken for the
 * call, which runs without any file system lock: other files go on writing meanwhile, and several
 * writers may ask at once, so a policy must be safe to call from several threads (the built-in ones
 * hold no mutable state). The file system checks the decision against the zones when it commits it:
 * one the snapshot already forbids is refused as a bug, one that went stale meanwhile (another
 * writer took that zone) is asked again on a fresh view (docs/zone-fs.md, "Locks and decisions").
 *
 * <p>A policy should be a pure function of its arguments: all the state it needs is in the view,
 * which the file system rebuilds from its metadata at mount, so a policy holds nothing that a crash
 * could lose and needs no hooks for file deletion or zone resets. That is why there are none.
 *
 * <p>How the planned policies fit this interface without changing it:
 *
 * <ul>
 *   <li>{@link LizaPolicy} (ZenFS's default): file kind and lifetime hint, zone lifetimes, tokens.
 *   <li>{@link CazaPolicy}: the request's {@code level} and {@code keyRange} (or its {@code
 *       compactionInputs}' ranges) give S and L; {@link ZoneTableView#files()} gives the SSTs of
 *       level L+1 that overlap S and {@link ZoneTableView#zonesOf} their zones, ranked by count;
 *       ZC1/ZC2 return {@link Allocation.OpenEmptyZone}, Fallback 1 the zone of the nearest
 *       same-level SST, Fallback 2 delegates to a {@link LizaPolicy}; cleaning is {@link
 *       Allocation.NeedGc}.
 *   <li>{@link ZoneKvPolicy}: the request's absolute {@code level} and {@code kind} give the
 *       lifetime class, kept on the zone as {@link Allocation.OpenEmptyZone#tag()} and read back
 *       from {@link ZoneInfo#tag()}; "close at the active limit" is an {@link
 *       Allocation.OpenEmptyZone} whose {@code finishFirst} names the victim, so the active
 *       resource is really freed.
 * </ul>
 */
public interface PlacementPolicy {

  /** Short, stable name for configuration and metrics, e.g. {@code "liza"}. */
  String name();

  /**
   * Decides where {@code request}'s file writes next.
   *
   * @param request hints about the file and why it needs a zone
   * @param zones the zones as a snapshot taken for this call; must not be retained after it
   * @return the decision; never null
   */
  Allocation allocate(AllocationRequest request, ZoneTableView zones);

  /**
   * Checks, before the policy is installed, that the device can serve it: a policy that needs zones
   * of several classes open at once refuses a device whose active-zone limit is too low. Default:
   * any device.
   *
   * @param maxActiveIo the active zones file writes may hold at once ({@link
   *     ZoneTokens#maxActiveIo()}: the device's limit less the file system's reserved ones)
   * @throws IllegalArgumentException saying why the device does not do
   */
  default void checkDevice(int maxActiveIo) {}
}
