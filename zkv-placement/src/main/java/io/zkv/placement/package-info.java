/**
 * Zone placement and GC policies (pure Java): the SPI the zone file system consults at each zone
 * allocation, and the policies behind it.
 *
 * <p>The SPI: the file system describes the file that needs a zone ({@link
 * io.zkv.placement.AllocationRequest}: {@link io.zkv.placement.FileKind}, {@link
 * io.zkv.placement.WriteLifetime}, level, job, key range, compaction inputs), shows the zones read
 * only ({@link io.zkv.placement.ZoneTableView}), and carries out the {@link
 * io.zkv.placement.Allocation} a {@link io.zkv.placement.PlacementPolicy} returns. GC asks a {@link
 * io.zkv.placement.VictimPolicy} which zone to empty once a {@link io.zkv.placement.GcTrigger}
 * fires. Policies decide; mechanism (append, finish, reset, copy) stays in the file system.
 *
 * <p>Policies: {@link io.zkv.placement.LizaPolicy} (ZenFS's default, reproduced exactly), {@link
 * io.zkv.placement.CazaPolicy}, {@link io.zkv.placement.ZoneKvPolicy}, {@link
 * io.zkv.placement.GreedyVictimPolicy}; ZenFS's token and reserve rules every policy needs are
 * {@link io.zkv.placement.ZenFsZoneRules}. {@link io.zkv.placement.ZoneTable} is an in-memory,
 * validated zone table for tests and simulations.
 */
package io.zkv.placement;
