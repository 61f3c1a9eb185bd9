package io.zkv.placement;

import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Test plumbing: a {@link ZoneTable} that changes as a simulated device and file system would move
 * it (ZenFS's token rules, extent accounting), each change checked, for the policies' unit tests
 * and simulations. Test-only (zkv-placement's test sources): the library never changes a table once
 * built. It changes the wrapped table's package-private state in place.
 */
final class SimulatedZoneTable implements ZoneTableView {
  private final ZoneTable table;

  private SimulatedZoneTable(ZoneTable table) {
    this.table = table;
  }

  /** A simulation starting from {@code table} (changed in place). */
  static SimulatedZoneTable of(ZoneTable table) {
    return new SimulatedZoneTable(Objects.requireNonNull(table, "table"));
  }

  /** The table as it stands. */
  ZoneTable table() {
    return table;
  }

  @Override
  public int zoneCount() {
    return table.zoneCount();
  }

  @Override
  public ZoneInfo zone(int index) {
    return table.zone(index);
  }

  @Override
  public ZoneTokens tokens() {
    return table.tokens();
  }

  @Override
  public Set<Long> filesIn(int index) {
    return table.filesIn(index);
  }

  @Override
  public Set<Integer> zonesOf(long fileId) {
    return table.zonesOf(fileId);
  }

  @Override
  public Optional<FileInfo> file(long fileId) {
    return table.file(fileId);
  }

  @Override
  public Collection<FileInfo> files() {
    return table.files();
  }

  /** Live bytes of file {@code fileId} in zone {@code index}. */
  long liveBytes(int index, long fileId) {
    return table.liveBytes(index, fileId);
  }

  private void addLive(int index, long fileId, long bytes) {
    table.addLive(index, fileId, bytes);
  }

  /**
   * A writer takes zone {@code index} (ZenFS: {@code Acquire} plus the open token, and the active
   * token if the zone was empty). An empty zone gets {@code lifetime} and {@code tag}; a written
   * zone keeps its own.
   *
   * @throws IllegalArgumentException if the zone is reserved, offline, not writable or held
   * @throws IllegalStateException if the device's open or active limit would be exceeded
   */
  void acquire(int index, WriteLifetime lifetime, OptionalInt tag) {
    Objects.requireNonNull(lifetime, "lifetime");
    Objects.requireNonNull(tag, "tag");
    ZoneInfo z = zone(index);
    if (!z.isIoZone()) {
      throw new IllegalArgumentException(
          "zone " + index + " is " + describe(z) + ", not an I/O zone a file can take");
    }
    if (!z.isWritable()) {
      throw new IllegalArgumentException(
          "zone " + index + " is " + z.condition() + ", not writable");
    }
    if (z.busy()) {
      throw new IllegalArgumentException("zone " + index + " is already held by a writer");
    }
    ZoneTokens t = tokens();
    if (t.openIo() + 1 > table.maxOpenIo + table.reservedTokens) {
      throw new IllegalStateException(
          "acquiring zone " + index + " exceeds the device's open limit (" + t.openIo() + " open)");
    }
    if (!z.holdsActiveToken() && t.activeIo() + 1 > table.maxActiveIo + table.reservedTokens) {
      throw new IllegalStateException(
          "acquiring zone "
              + index
              + " exceeds the device's active limit ("
              + t.activeIo()
              + " active)");
    }
    if (z.isEmpty()) {
      table.lifetime[index] = lifetime;
      table.tag[index] = tag;
    }
    table.busy[index] = true;
  }

  /** {@link #acquire(int, WriteLifetime, OptionalInt)} without a tag. */
  void acquire(int index, WriteLifetime lifetime) {
    acquire(index, lifetime, OptionalInt.empty());
  }

  /**
   * The writer holding zone {@code index} appends {@code bytes} of file {@code fileId}: the write
   * pointer moves, the bytes are live, and the zone turns FULL when it reaches capacity.
   *
   * @throws IllegalArgumentException if the zone is not held or the bytes do not fit
   */
  void append(int index, long fileId, long bytes) {
    ZoneInfo z = zone(index);
    if (!z.busy()) {
      throw new IllegalArgumentException(
          "zone " + index + " is not held by a writer; acquire it before appending");
    }
    if (bytes <= 0) {
      throw new IllegalArgumentException("append of " + bytes + " bytes; must be > 0");
    }
    if (bytes > z.remaining()) {
      throw new IllegalArgumentException(
          "append of " + bytes + " bytes to zone " + index + " with " + z.remaining() + " left");
    }
    if (fileId < 0) {
      throw new IllegalArgumentException("file id must be >= 0, not " + fileId);
    }
    table.written[index] += bytes;
    table.condition[index] =
        table.written[index] == table.capacity[index] ? ZoneCondition.FULL : ZoneCondition.OPEN;
    addLive(index, fileId, bytes);
  }

  /**
   * The writer gives zone {@code index} back and returns its open token; a partly written zone is
   * closed (still active), as ZenFS's {@code CloseActiveZone} does.
   *
   * @throws IllegalArgumentException if no writer holds the zone
   */
  void release(int index) {
    ZoneInfo z = zone(index);
    if (!z.busy()) {
      throw new IllegalArgumentException("zone " + index + " is not held by a writer");
    }
    table.busy[index] = false;
    table.owner[index] = -1;
    if (table.condition[index] == ZoneCondition.OPEN) {
      table.condition[index] =
          table.written[index] == 0 ? ZoneCondition.EMPTY : ZoneCondition.CLOSED;
    }
  }

  /**
   * Finishes zone {@code index}: no more writes until reset, its active token returns.
   *
   * @throws IllegalArgumentException if the zone is held by a writer or not writable
   */
  void finish(int index) {
    ZoneInfo z = zone(index);
    if (z.busy()) {
      throw new IllegalArgumentException(
          "zone " + index + " is held by a writer; release it first");
    }
    if (!z.isWritable()) {
      throw new IllegalArgumentException(
          "zone " + index + " is " + z.condition() + ", cannot finish");
    }
    table.condition[index] = ZoneCondition.FULL;
  }

  /**
   * Resets zone {@code index} to empty: write pointer to the start, lifetime NOT_SET, tag cleared.
   *
   * @throws IllegalArgumentException if the zone is held, read-only or offline
   * @throws IllegalStateException if files still have live bytes in it
   */
  void reset(int index) {
    ZoneInfo z = zone(index);
    if (z.busy()) {
      throw new IllegalArgumentException(
          "zone " + index + " is held by a writer; release it first");
    }
    if (z.condition() == ZoneCondition.READ_ONLY || z.condition() == ZoneCondition.OFFLINE) {
      throw new IllegalArgumentException(
          "zone " + index + " is " + z.condition() + ", cannot reset");
    }
    if (z.liveBytes() > 0) {
      throw new IllegalStateException(
          "zone "
              + index
              + " still holds "
              + z.liveBytes()
              + " live bytes of files "
              + filesIn(index)
              + "; migrate or delete them first");
    }
    table.written[index] = 0;
    table.condition[index] = ZoneCondition.EMPTY;
    table.lifetime[index] = WriteLifetime.NOT_SET;
    table.tag[index] = OptionalInt.empty();
    table.ioClass[index] = ZoneIoClass.NONE;
  }

  /**
   * {@code bytes} of file {@code fileId} in zone {@code index} stop being live, e.g. because GC
   * copied that extent elsewhere.
   *
   * @throws IllegalArgumentException if the file has fewer live bytes there
   */
  void invalidate(int index, long fileId, long bytes) {
    long have = liveBytes(index, fileId);
    if (bytes <= 0 || bytes > have) {
      throw new IllegalArgumentException(
          "cannot invalidate "
              + bytes
              + " bytes of file "
              + fileId
              + " in zone "
              + index
              + ": it has "
              + have
              + " live there");
    }
    removeLive(index, fileId, bytes);
  }

  /**
   * File {@code fileId} is deleted: all its bytes become garbage and its information is dropped.
   *
   * @return the live bytes freed
   */
  long deleteFile(long fileId) {
    long freed = 0;
    for (int index : zonesOf(fileId)) {
      long bytes = liveBytes(index, fileId);
      removeLive(index, fileId, bytes);
      freed += bytes;
    }
    table.files.remove(fileId);
    return freed;
  }

  /** Records (or replaces) what is known about a file: its hints, later its exact key range. */
  void putFile(FileInfo info) {
    Objects.requireNonNull(info, "info");
    table.files.put(info.fileId(), info);
  }

  /**
   * The device turned zone {@code index} read-only: readable, never writable again.
   *
   * @throws IllegalArgumentException if a writer holds it
   */
  void markReadOnly(int index) {
    requireNotHeld(index);
    table.condition[index] = ZoneCondition.READ_ONLY;
  }

  /**
   * The device took zone {@code index} offline; files with data there have lost it.
   *
   * @throws IllegalArgumentException if a writer holds it
   */
  void markOffline(int index) {
    requireNotHeld(index);
    table.condition[index] = ZoneCondition.OFFLINE;
  }

  private void removeLive(int index, long fileId, long bytes) {
    TreeMap<Long, Long> zoneLive = table.live.get(index);
    long left = zoneLive.get(fileId) - bytes;
    if (left > 0) {
      zoneLive.put(fileId, left);
      return;
    }
    zoneLive.remove(fileId);
    TreeSet<Integer> zones = table.zonesByFile.get(fileId);
    zones.remove(index);
    if (zones.isEmpty()) {
      table.zonesByFile.remove(fileId);
    }
  }

  private static String describe(ZoneInfo z) {
    return z.reservation() != ZoneReservation.NONE
        ? "reserved for " + z.reservation()
        : z.condition().toString();
  }

  private void requireNotHeld(int index) {
    if (zone(index).busy()) {
      throw new IllegalArgumentException(
          "zone " + index + " is held by a writer; release it first");
    }
  }
}
