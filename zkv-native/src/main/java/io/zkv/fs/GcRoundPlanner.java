package io.zkv.fs;

import java.nio.ByteBuffer;

/**
 * The zone file system's call-out at each round of its background garbage collector (every 100 ms,
 * never per write): whether to collect now, and which full zones qualify, as the most live bytes a
 * victim may hold. Called from the GC thread on a snapshot of the zones, without the file system's
 * lock (writers go on meanwhile). A thrown exception skips the round (GC when a write finds no
 * space still runs).
 */
@FunctionalInterface
public interface GcRoundPlanner {
  /**
   * @param view the zones and files as a {@link ZoneView}; native memory valid only during the call
   * @return the most live bytes a full zone may hold to be collected this round; 0 for none
   */
  long maxLiveBytes(ByteBuffer view);
}
