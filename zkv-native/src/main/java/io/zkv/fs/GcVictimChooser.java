package io.zkv.fs;

import java.nio.ByteBuffer;

/**
 * The zone file system's call-out when garbage collection needs a victim (once per zone to empty,
 * never per write): a policy picks the zone whose live data is migrated before it is reset. Called
 * on a snapshot of the zones without the file system's lock (one collection at a time), from a
 * RocksDB writer that ran out of space, the background GC thread or {@code ZoneFs.reclaim}.
 *
 * <p>Only zones with {@link ZoneView#zoneVictimOk} set are collected. Choosing another full zone
 * that nobody writes declines this collection (e.g. background GC only takes zones at least half
 * garbage); choosing any other zone is a policy bug and fails the collection (the file system never
 * resets a zone on a policy's mistake). A thrown exception fails it too.
 */
@FunctionalInterface
public interface GcVictimChooser {
  /**
   * The zone to collect next, or -1 if none should be.
   *
   * @param view the zones and files as a {@link ZoneView} (read it with {@link ZoneView#wrap});
   *     native memory valid only during the call
   */
  int chooseVictim(ByteBuffer view);
}
