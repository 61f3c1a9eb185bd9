package io.zkv.bench.driver;

/**
 * How WAL files got their zones (WALTZ's reservation, docs/wal.md "Reserved WAL zones"): zones
 * taken from the WAL reserve under the lock with no policy call, zones taken any other way (the
 * policy's answer on the put path: ZenFS's stall the reservation removes), and the longest of those
 * takes.
 *
 * @param switches zones WAL files took from the reserve
 * @param waits zones WAL files took any other way
 * @param waitMaxNanos the longest of those takes since the file system was mounted (a maximum has
 *     no difference between two snapshots: a phase reports the one at its end)
 * @param returns reserved zones given back to writers that found no other zone
 * @param declined fills of the reserve that found no zone (the policy kept none, or the reserves or
 *     the active limit left none)
 */
public record WalZoneCounts(
    long switches, long waits, long waitMaxNanos, long returns, long declined) {
  /** No zoned device (the default Env). */
  public static final WalZoneCounts NONE = new WalZoneCounts(0, 0, 0, 0, 0);

  /** The counts since {@code before}, with the maximum since mount. */
  WalZoneCounts since(WalZoneCounts before) {
    return new WalZoneCounts(
        switches - before.switches,
        waits - before.waits,
        waitMaxNanos,
        returns - before.returns,
        declined - before.declined);
  }
}
