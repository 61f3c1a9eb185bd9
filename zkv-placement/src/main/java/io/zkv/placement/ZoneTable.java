package io.zkv.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An in-memory zone table: the state a placement policy reads, built from a description ({@link
 * Builder}; the zone file system's view is projected into one per decision) and checked against the
 * rules of NVMe ZNS and of extent accounting: a state the device could not be in fails with a
 * specific message. The library never changes a table once built; the tests' simulations change
 * theirs through a test-only class in this package (zkv-placement's test sources), with the same
 * checks, which is why the state below is package-private.
 *
 * <p>Live bytes are kept per (zone, file), so {@link #filesIn} and {@link #zonesOf} are exact and a
 * zone's {@link ZoneInfo#liveBytes()} is always their sum. Token counts are derived from zone state
 * the way ZenFS's counters move: a writer holds one open and one active token while it holds a zone
 * and gives the open one back when it releases it; an OPEN or CLOSED zone keeps its active token
 * until it is finished or reset.
 */
public final class ZoneTable implements ZoneTableView {
  final int zoneCount;
  final long[] capacity;
  final long[] written;
  final ZoneCondition[] condition;
  final WriteLifetime[] lifetime;
  final ZoneReservation[] reservation;
  final boolean[] busy;
  final boolean[] claimed; // full, held by the file system itself: no token
  final OptionalInt[] tag;
  final ZoneIoClass[] ioClass;
  final long[] owner; // file id of the writer holding the zone, -1 none
  final List<TreeMap<Long, Long>> live;
  final TreeMap<Long, TreeSet<Integer>> zonesByFile = new TreeMap<>();
  final TreeMap<Long, FileInfo> files = new TreeMap<>();
  final int reservedTokens;
  final int emptyZonesKept;
  final int opZones;
  final int maxOpenIo;
  final int maxActiveIo;

  private ZoneTable(Builder b) {
    zoneCount = b.zoneCount;
    capacity = b.capacity.clone();
    written = b.written.clone();
    condition = b.condition.clone();
    lifetime = b.lifetime.clone();
    reservation = b.reservation.clone();
    busy = b.busy.clone();
    claimed = b.claimed.clone();
    ioClass = b.ioClass.clone();
    owner = b.owner.clone();
    tag = b.tag.clone();
    live = new ArrayList<>(zoneCount);
    for (int i = 0; i < zoneCount; i++) {
      live.add(new TreeMap<>());
    }
    reservedTokens = b.reservedTokens;
    emptyZonesKept = b.emptyZonesKept;
    opZones = b.opZones;
    maxOpenIo = ioLimit("open", b.deviceMaxOpen, b.reservedTokens, zoneCount);
    maxActiveIo = ioLimit("active", b.deviceMaxActive, b.reservedTokens, zoneCount);
    if (b.deviceMaxOpen != 0 && maxOpenIo < 2) {
      throw new IllegalArgumentException(
          "device max open "
              + b.deviceMaxOpen
              + " leaves "
              + maxOpenIo
              + " open token(s) after "
              + b.reservedTokens
              + " reserved; need 2 (one kept for the WAL, one for other files)");
    }
    for (long[] l : b.lives) {
      addLive((int) l[0], l[1], l[2]);
    }
    for (FileInfo f : b.files) {
      files.put(f.fileId(), f);
    }
    for (int i = 0; i < zoneCount; i++) {
      zone(i); // ZoneInfo's constructor checks each zone's invariants.
    }
    checkTokens();
  }

  private static int ioLimit(String what, int deviceMax, int reserved, int zones) {
    if (deviceMax == 0) {
      return zones; // "no limit" in ZNS; ZenFS uses the zone count.
    }
    int io = deviceMax - reserved;
    if (io < 1) {
      throw new IllegalArgumentException(
          "device max "
              + what
              + " "
              + deviceMax
              + " leaves no token after "
              + reserved
              + " reserved");
    }
    return io;
  }

  /** A builder for a table of {@code zoneCount} empty zones of {@code zoneCapacity} bytes each. */
  public static Builder builder(int zoneCount, long zoneCapacity) {
    return new Builder(zoneCount, zoneCapacity);
  }

  // ---------------------------------------------------------------- view

  @Override
  public int zoneCount() {
    return zoneCount;
  }

  @Override
  public ZoneInfo zone(int index) {
    Objects.checkIndex(index, zoneCount);
    return new ZoneInfo(
        index,
        capacity[index],
        written[index],
        liveBytes(index),
        condition[index],
        lifetime[index],
        reservation[index],
        busy[index] || claimed[index],
        tag[index],
        ioClass[index],
        owner[index] < 0 ? OptionalLong.empty() : OptionalLong.of(owner[index]));
  }

  @Override
  public int emptyZonesKept() {
    return emptyZonesKept;
  }

  @Override
  public int opZones() {
    return opZones;
  }

  @Override
  public ZoneTokens tokens() {
    int open = 0;
    int active = 0;
    for (int i = 0; i < zoneCount; i++) {
      if (reservation[i] != ZoneReservation.NONE || condition[i] == ZoneCondition.OFFLINE) {
        continue;
      }
      if (busy[i]) {
        open++;
      }
      if (busy[i] || condition[i] == ZoneCondition.OPEN || condition[i] == ZoneCondition.CLOSED) {
        active++;
      }
    }
    return new ZoneTokens(maxOpenIo, maxActiveIo, open, active, reservedTokens);
  }

  @Override
  public Set<Long> filesIn(int index) {
    Objects.checkIndex(index, zoneCount);
    return Collections.unmodifiableSortedSet(new TreeSet<>(live.get(index).keySet()));
  }

  @Override
  public Set<Integer> zonesOf(long fileId) {
    TreeSet<Integer> zones = zonesByFile.get(fileId);
    return zones == null
        ? Collections.emptySortedSet()
        : Collections.unmodifiableSortedSet(new TreeSet<>(zones));
  }

  @Override
  public Optional<FileInfo> file(long fileId) {
    return Optional.ofNullable(files.get(fileId));
  }

  @Override
  public Collection<FileInfo> files() {
    return List.copyOf(files.values());
  }

  /** Live bytes of file {@code fileId} in zone {@code index}. */
  public long liveBytes(int index, long fileId) {
    Objects.checkIndex(index, zoneCount);
    return live.get(index).getOrDefault(fileId, 0L);
  }

  private long liveBytes(int index) {
    long sum = 0;
    for (long bytes : live.get(index).values()) {
      sum += bytes;
    }
    return sum;
  }

  void addLive(int index, long fileId, long bytes) {
    live.get(index).merge(fileId, bytes, Long::sum);
    zonesByFile.computeIfAbsent(fileId, k -> new TreeSet<>()).add(index);
  }

  void checkTokens() {
    ZoneTokens t = tokens();
    if (t.openIo() > maxOpenIo + reservedTokens) {
      throw new IllegalArgumentException(
          t.openIo()
              + " zones held by writers exceed the device's open limit "
              + (maxOpenIo + reservedTokens));
    }
    if (t.activeIo() > maxActiveIo + reservedTokens) {
      throw new IllegalArgumentException(
          t.activeIo()
              + " active zones exceed the device's active limit "
              + (maxActiveIo + reservedTokens));
    }
  }

  /** Describes the initial state of a {@link ZoneTable}; {@link #build()} checks it all. */
  public static final class Builder {
    private final int zoneCount;
    private final long[] capacity;
    private final long[] written;
    private final ZoneCondition[] condition;
    private final WriteLifetime[] lifetime;
    private final ZoneReservation[] reservation;
    private final boolean[] busy;
    private final boolean[] claimed;
    private final OptionalInt[] tag;
    private final ZoneIoClass[] ioClass;
    private final long[] owner;
    private final List<long[]> lives = new ArrayList<>();
    private final List<FileInfo> files = new ArrayList<>();
    private int deviceMaxOpen;
    private int deviceMaxActive;
    private int reservedTokens = 2;
    private int emptyZonesKept;
    private int opZones;

    private Builder(int zoneCount, long zoneCapacity) {
      if (zoneCount < 1) {
        throw new IllegalArgumentException("need at least one zone, not " + zoneCount);
      }
      if (zoneCapacity <= 0) {
        throw new IllegalArgumentException("zone capacity must be > 0 bytes, not " + zoneCapacity);
      }
      this.zoneCount = zoneCount;
      capacity = new long[zoneCount];
      written = new long[zoneCount];
      condition = new ZoneCondition[zoneCount];
      lifetime = new WriteLifetime[zoneCount];
      reservation = new ZoneReservation[zoneCount];
      busy = new boolean[zoneCount];
      claimed = new boolean[zoneCount];
      tag = new OptionalInt[zoneCount];
      ioClass = new ZoneIoClass[zoneCount];
      owner = new long[zoneCount];
      for (int i = 0; i < zoneCount; i++) {
        ioClass[i] = ZoneIoClass.NONE;
        owner[i] = -1;
        capacity[i] = zoneCapacity;
        condition[i] = ZoneCondition.EMPTY;
        lifetime[i] = WriteLifetime.NOT_SET;
        reservation[i] = ZoneReservation.NONE;
        tag[i] = OptionalInt.empty();
      }
    }

    /**
     * The device's max open and max active zones; 0 means no limit (as ZNS reports it). Default: no
     * limits.
     */
    public Builder deviceLimits(int maxOpen, int maxActive) {
      if (maxOpen < 0 || maxActive < 0) {
        throw new IllegalArgumentException(
            "device limits must be >= 0 (0 = none), not open "
                + maxOpen
                + " / active "
                + maxActive);
      }
      deviceMaxOpen = maxOpen;
      deviceMaxActive = maxActive;
      return this;
    }

    /** Tokens of each kind kept back for metadata and GC migration; default 2, as ZenFS. */
    public Builder reservedTokens(int reserved) {
      if (reserved < 0) {
        throw new IllegalArgumentException("reserved tokens must be >= 0, not " + reserved);
      }
      reservedTokens = reserved;
      return this;
    }

    /**
     * The empty zones the file system keeps from the view's writer ({@link
     * ZoneTableView#emptyZonesKept()}), of them {@code opZones} over-provisioning; default none.
     */
    public Builder emptyZonesKept(int kept, int opZones) {
      if (kept < 0 || opZones < 0) {
        throw new IllegalArgumentException(
            "kept empty zones must be >= 0, not " + kept + " (op " + opZones + ")");
      }
      this.emptyZonesKept = kept;
      this.opZones = opZones;
      return this;
    }

    /** Sets zone {@code index} aside. */
    public Builder reserve(int index, ZoneReservation kind) {
      reservation[Objects.checkIndex(index, zoneCount)] = Objects.requireNonNull(kind, "kind");
      return this;
    }

    /** Gives zone {@code index} its own capacity. */
    public Builder capacity(int index, long bytes) {
      capacity[Objects.checkIndex(index, zoneCount)] = bytes;
      return this;
    }

    /** Sets zone {@code index}'s condition, bytes written and assigned lifetime. */
    public Builder zone(int index, ZoneCondition cond, long bytesWritten, WriteLifetime lt) {
      Objects.checkIndex(index, zoneCount);
      condition[index] = Objects.requireNonNull(cond, "condition");
      written[index] = bytesWritten;
      lifetime[index] = Objects.requireNonNull(lt, "lifetime");
      return this;
    }

    /** Adds {@code bytes} live bytes of file {@code fileId} to zone {@code index}. */
    public Builder live(int index, long fileId, long bytes) {
      Objects.checkIndex(index, zoneCount);
      if (fileId < 0 || bytes <= 0) {
        throw new IllegalArgumentException(
            "live bytes need a file id >= 0 and bytes > 0, not file "
                + fileId
                + ", "
                + bytes
                + " bytes");
      }
      lives.add(new long[] {index, fileId, bytes});
      return this;
    }

    /** Marks zone {@code index} as held by a writer. */
    public Builder busy(int index) {
      busy[Objects.checkIndex(index, zoneCount)] = true;
      return this;
    }

    /**
     * Marks full zone {@code index} as held by the file system itself (its reset pending, or GC
     * emptying it): shown busy (nobody may take it, nor choose it as a victim) but holding no open
     * or active token, as no writer has it open.
     *
     * @throws IllegalStateException if the zone is not full
     */
    public Builder claimed(int index) {
      Objects.checkIndex(index, zoneCount);
      if (condition[index] != ZoneCondition.FULL) {
        throw new IllegalStateException(
            "zone " + index + " is " + condition[index] + ": only a full zone is claimed");
      }
      claimed[index] = true;
      return this;
    }

    /** Marks zone {@code index} as held by the writer of file {@code fileId}. */
    public Builder owner(int index, long fileId) {
      if (fileId < 0) {
        throw new IllegalArgumentException("owner file id must be >= 0, not " + fileId);
      }
      busy(index);
      owner[index] = fileId;
      return this;
    }

    /** Sets the I/O class zone {@code index}'s writes carry. */
    public Builder ioClass(int index, ZoneIoClass value) {
      ioClass[Objects.checkIndex(index, zoneCount)] = Objects.requireNonNull(value, "ioClass");
      return this;
    }

    /** Sets the policy tag of zone {@code index}. */
    public Builder tag(int index, int value) {
      tag[Objects.checkIndex(index, zoneCount)] = OptionalInt.of(value);
      return this;
    }

    /** Records what is known about a file. */
    public Builder file(FileInfo info) {
      files.add(Objects.requireNonNull(info, "info"));
      return this;
    }

    /**
     * The table.
     *
     * @throws IllegalArgumentException naming the first inconsistency found
     */
    public ZoneTable build() {
      return new ZoneTable(this);
    }
  }
}
