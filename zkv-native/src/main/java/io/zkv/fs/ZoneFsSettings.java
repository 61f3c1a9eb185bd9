package io.zkv.fs;

import io.zkv.placement.GcTrigger;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.VictimPolicy;
import io.zkv.wal.WalOptions;
import java.util.Objects;

/**
 * How {@code ZkvEnv.onZones} mounts a zone file system: format first or mount, and the policies
 * that make every decision (the file system has no rule of its own that chooses by lifetime or
 * garbage: without these, its safety rule decides and every decision counts as an override).
 * Defaults: mount, {@link LizaPolicy} placement, {@link GreedyVictimPolicy} victims, ZenFS's GC
 * trigger at 20% free ({@link GcTrigger#zenFsDefault()}). Immutable.
 *
 * <pre>{@code
 * ZkvEnv env = ZkvEnv.onZones(device, ZoneFsSettings.format());
 * ZkvEnv env = ZkvEnv.onZones(device, ZoneFsSettings.builder().gcTrigger(GcTrigger.off()).build());
 * }</pre>
 */
public final class ZoneFsSettings {
  private final boolean format;
  private final PlacementPolicy placement;
  private final ZoneAllocator allocator;
  private final VictimPolicy victims;
  private final GcTrigger gcTrigger;
  private final WalOptions wal;
  private final boolean writeBehind;
  private final int opZones;
  private final boolean noSpaceFallback;

  private ZoneFsSettings(Builder b) {
    this.opZones = b.opZones;
    this.noSpaceFallback = b.noSpaceFallback;
    this.format = b.format;
    this.placement = b.placement;
    this.allocator = b.allocator;
    this.victims = b.victims;
    this.gcTrigger = b.gcTrigger;
    this.wal = b.wal;
    this.writeBehind = b.writeBehind;
  }

  /** Mount the device's file system with the default policies. */
  public static ZoneFsSettings mount() {
    return builder().build();
  }

  /** Format the device first (erasing it), then mount with the default policies. */
  public static ZoneFsSettings format() {
    return builder().format(true).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.format = format;
    b.placement = placement;
    b.opZones = opZones;
    b.noSpaceFallback = noSpaceFallback;
    b.allocator = allocator;
    b.victims = victims;
    b.gcTrigger = gcTrigger;
    b.wal = wal;
    b.writeBehind = writeBehind;
    return b;
  }

  /** Whether the device is formatted (erased) before mounting. */
  public boolean formatFirst() {
    return format;
  }

  /** The placement policy deciding every zone allocation. */
  public PlacementPolicy placement() {
    return placement;
  }

  /**
   * The raw placement call-out installed in place of {@link #placement()}'s adapter, or null (see
   * {@link Builder#allocator}).
   */
  public ZoneAllocator allocator() {
    return allocator;
  }

  /** The victim policy choosing the zone GC empties next. */
  public VictimPolicy victims() {
    return victims;
  }

  /** When background GC runs ({@link GcTrigger#off()}: never, only a writer without room does). */
  public GcTrigger gcTrigger() {
    return gcTrigger;
  }

  /** How RocksDB's WAL files are written (their buffer: the device bytes of one write-out). */
  public WalOptions wal() {
    return wal;
  }

  /**
   * Whether SST files are written behind their writer (see {@link Builder#writeBehind}); where the
   * device cannot, they are written synchronously whatever this says.
   */
  public boolean writeBehind() {
    return writeBehind;
  }

  /** Empty zones kept for garbage collection's copies (see {@link Builder#opZones}). */
  public int opZones() {
    return opZones;
  }

  /**
   * Whether the safety rule places a data file's write the policy found no zone for (see {@link
   * Builder#noSpaceFallback}).
   */
  public boolean noSpaceFallback() {
    return noSpaceFallback;
  }

  @Override
  public String toString() {
    return "ZoneFsSettings{format="
        + format
        + ", placement="
        + (allocator != null ? allocator : placement.name())
        + ", victims="
        + victims.name()
        + ", gcTrigger="
        + gcTrigger.name()
        + ", wal="
        + wal
        + ", writeBehind="
        + writeBehind
        + (opZones > 0 ? ", opZones=" + opZones : "")
        + (noSpaceFallback ? "" : ", noSpaceFallback=false")
        + "}";
  }

  /** Builds {@link ZoneFsSettings}. */
  public static final class Builder {
    private boolean format;
    private PlacementPolicy placement = new LizaPolicy();
    private ZoneAllocator allocator;
    private VictimPolicy victims = new GreedyVictimPolicy();
    private GcTrigger gcTrigger = GcTrigger.zenFsDefault();
    private WalOptions wal = WalOptions.defaults();
    private boolean writeBehind = true;
    private int opZones;
    private boolean noSpaceFallback = true;

    private Builder() {}

    /**
     * Where the placement policy finds no zone for a data file's write (it answers NoSpace, or
     * NeedGc and garbage collection then finds nothing to collect): true (default), the file
     * system's safety rule places the write in a zone with room, counted as a {@code NO_SPACE}
     * override; false, the write fails with NoSpace, as ZenFS's allocator does. For comparisons
     * against ZenFS's behaviour. Garbage collection's copies, RocksDB's metadata files and the
     * flush that replays a WAL at open keep the safety rule either way, so a full device stays
     * recoverable.
     */
    public Builder noSpaceFallback(boolean on) {
      this.noSpaceFallback = on;
      return this;
    }

    /**
     * Over-provisioning (CAZA's OP zones; default 0): {@code zones} empty zones no writer but
     * garbage collection may start, beyond the file system's own two reserved empty zones, so that
     * cleaning always has room to copy into. RocksDB's metadata files and the flush that replays a
     * WAL at open may still use them (a full device reopens). Mounting refuses a reserve that
     * leaves data writers fewer than 4 zones.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder opZones(int zones) {
      if (zones < 0) {
        throw new IllegalArgumentException("op-zones must be >= 0, not " + zones);
      }
      this.opZones = zones;
      return this;
    }

    /**
     * Write SST files behind their writer (default true): each write-out of 512 KiB stays in flight
     * on the file's own device queue while RocksDB's flush or compaction fills the next, so the
     * device's write time overlaps the CPU time of building the table; a sync waits for it. False
     * writes each 1 MiB synchronously, as ZenFS does. Only where the device's queues keep requests
     * in flight: on {@code plmarray:} (its queues complete each request at submission) SST files
     * are written synchronously either way.
     */
    public Builder writeBehind(boolean writeBehind) {
      this.writeBehind = writeBehind;
      return this;
    }

    /** How RocksDB's WAL files are written; default a 1 MiB buffer. */
    public Builder wal(WalOptions wal) {
      this.wal = Objects.requireNonNull(wal, "wal must not be null");
      return this;
    }

    /** Format (erase) the device before mounting; default false (mount). */
    public Builder format(boolean format) {
      this.format = format;
      return this;
    }

    /** The placement policy (any zkv-placement {@link PlacementPolicy}, your own too). */
    public Builder placement(PlacementPolicy policy) {
      this.placement = Objects.requireNonNull(policy, "placement must not be null");
      this.allocator = null;
      return this;
    }

    /**
     * The raw placement call-out, reading the zone view's buffer itself (docs/formats/
     * native-boundary.md), in place of a {@link PlacementPolicy}: for tools and tests that watch or
     * wrap the crossing. Most users want {@link #placement}.
     */
    public Builder allocator(ZoneAllocator allocator) {
      this.allocator = Objects.requireNonNull(allocator, "allocator must not be null");
      return this;
    }

    /** The GC victim policy (any zkv-placement {@link VictimPolicy}). */
    public Builder victims(VictimPolicy policy) {
      this.victims = Objects.requireNonNull(policy, "victims must not be null");
      return this;
    }

    /** When background GC runs; {@link GcTrigger#off()} for never. */
    public Builder gcTrigger(GcTrigger trigger) {
      this.gcTrigger = Objects.requireNonNull(trigger, "gcTrigger must not be null");
      return this;
    }

    public ZoneFsSettings build() {
      return new ZoneFsSettings(this);
    }
  }
}
