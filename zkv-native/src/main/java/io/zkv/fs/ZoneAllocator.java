package io.zkv.fs;

import java.nio.ByteBuffer;

/**
 * The zone file system's call-out at every zone allocation (never per write): a placement policy
 * decides which zone a file's next data goes to. Called from the writing thread (a RocksDB
 * background thread, attached to the JVM) on a snapshot of the zones, without the file system's
 * lock: other files go on writing meanwhile, and several writers may call at once, so it must be
 * thread-safe. A thrown exception fails that allocation (RocksDB sees an I/O error); a decision the
 * snapshot does not allow fails it too; one that went stale meanwhile (another writer took the
 * zone) is asked again on a fresh snapshot.
 *
 * <p>The request, zones and files come as a {@link ZoneView} (read it with {@link ZoneView#wrap});
 * the decision goes back through {@link ZoneView#decide} (action, zone, zones to finish first, at
 * most {@link #MAX_FINISH}, the tag and lifetime of a zone it opens).
 */
@FunctionalInterface
public interface ZoneAllocator {
  int MAX_FINISH = ZoneView.MAX_FINISH;
  int USE_ZONE = 1;
  int OPEN_EMPTY_ZONE = 2;
  int WAIT = 3;
  int NEED_GC = 4;
  int NO_SPACE = 5;

  /**
   * @param view the request and the zone view; native memory valid only during the call
   */
  void allocate(ByteBuffer view);
}
