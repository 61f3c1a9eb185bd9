package io.zkv;

import io.zkv.device.plm.WindowSchedulerProvider;
import io.zkv.fs.ZoneFsSettings;
import io.zkv.placement.CazaGcTrigger;
import io.zkv.placement.GcTrigger;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.LizaPolicy;
import io.zkv.placement.PlacementPolicy;
import io.zkv.placement.PolicyClass;
import io.zkv.placement.VictimPolicy;
import io.zkv.placement.ZenFsGcTrigger;
import io.zkv.wal.WalOptions;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * How a {@link ZonedEnv}'s zone file system places and reclaims data: an immutable value built with
 * {@link #builder()}. These are per device, shared by every database on it.
 *
 * <p>Policies are objects: any zkv-placement {@link PlacementPolicy} and {@link VictimPolicy} (your
 * own too), handed straight to the file system's call-outs. Defaults: {@link LizaPolicy} (ZenFS's
 * allocation, finish threshold off as in ZenFS's mkfs; {@code new LizaPolicy(10)} finishes zones
 * with less than 10% left before each non-WAL allocation), the {@link GreedyVictimPolicy} for
 * garbage collection, and background GC by ZenFS's trigger from {@value
 * GcTrigger#ZENFS_START_PERCENT}% free space ({@link GcTrigger#zenFsDefault()}). The file system
 * itself chooses nothing by lifetime or garbage: these policies make every such decision. Policies
 * are per device: every database on it shares them, so a policy object must be safe to call from
 * several threads at once (the file system calls them without its lock).
 *
 * <p>Settings given as text (configuration files, the Kafka Streams config, {@code zkv bench}) name
 * a built-in policy or a class of the user's own, {@code class:com.example.MyPolicy} ({@link
 * PolicyClass}: loaded by the calling thread's context class loader, one instance made with its
 * public constructor without arguments; docs/writing-a-policy.md).
 *
 * <p>On a {@code plmarray:} device (docs/plm.md), {@link Builder#windowScheduler(String)} names the
 * window scheduler a driver thread applies to its NVM Sets while the env is open; none by default
 * (the sets' windows stay as they are: PLM off unless someone turned it on).
 */
public final class ZonedEnvOptions {
  /** The built-in GC triggers {@link Builder#gcTrigger(String)} knows by name. */
  public static final java.util.List<String> GC_TRIGGERS =
      java.util.List.of("zenfs", "caza", "off");

  private static final ZonedEnvOptions DEFAULTS = builder().build();

  // The file system's settings are one model: these options are a ZoneFsSettings (mounting, never
  // formatting) plus what the env adds on top of the file system (the window scheduler).
  private final ZoneFsSettings fs;
  private final String windowScheduler;

  private ZonedEnvOptions(Builder b) {
    this.fs = b.fs.build();
    this.windowScheduler = b.windowScheduler;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The defaults (see the class comment). */
  public static ZonedEnvOptions defaults() {
    return DEFAULTS;
  }

  /** The placement policy deciding every zone allocation. */
  public PlacementPolicy placement() {
    return fs.placement();
  }

  /** The policy choosing which zone garbage collection empties next. */
  public VictimPolicy victimPolicy() {
    return fs.victims();
  }

  /** When background GC runs ({@link GcTrigger#off()}: never; a writer without room still does). */
  public GcTrigger gcTrigger() {
    return fs.gcTrigger();
  }

  /**
   * The start level of the default trigger, percent free: that of a {@link ZenFsGcTrigger}, 0 when
   * background GC is off.
   *
   * @throws IllegalStateException if the trigger is another one ({@link #gcTrigger()})
   */
  public int gcStartPercent() {
    GcTrigger gcTrigger = fs.gcTrigger();
    if (gcTrigger == GcTrigger.off()) {
      return 0;
    }
    if (gcTrigger instanceof ZenFsGcTrigger zenFs) {
      return zenFs.startPercent();
    }
    throw new IllegalStateException("the GC trigger is " + gcTrigger.name() + ", not ZenFS's");
  }

  /** The file system settings these options mount with ({@code ZkvEnv.onZones}). */
  public ZoneFsSettings toZoneFsSettings(boolean format) {
    return format ? fs.toBuilder().format(true).build() : fs;
  }

  /**
   * The window scheduler ({@code base}, {@code r-vigil}, {@code o-vigil}) driving a {@code
   * plmarray:} device's NVM Sets, or null for none.
   */
  public String windowScheduler() {
    return windowScheduler;
  }

  /** How RocksDB's WAL files are written on the device (their buffer). */
  public WalOptions wal() {
    return fs.wal();
  }

  /** Empty zones kept for garbage collection's copies ({@link Builder#opZones}). */
  public int opZones() {
    return fs.opZones();
  }

  /**
   * Whether the safety rule places a data file's write the policy found no zone for ({@link
   * Builder#noSpaceFallback}).
   */
  public boolean noSpaceFallback() {
    return fs.noSpaceFallback();
  }

  /** Whether SST files are written behind their writer ({@link Builder#writeBehind}). */
  public boolean writeBehind() {
    return fs.writeBehind();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ZonedEnvOptions other
        && placement().name().equals(other.placement().name())
        && victimPolicy().name().equals(other.victimPolicy().name())
        && gcTrigger().name().equals(other.gcTrigger().name())
        && Objects.equals(windowScheduler, other.windowScheduler)
        && wal().equals(other.wal())
        && writeBehind() == other.writeBehind()
        && opZones() == other.opZones()
        && noSpaceFallback() == other.noSpaceFallback();
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        placement().name(),
        victimPolicy().name(),
        gcTrigger().name(),
        windowScheduler,
        wal(),
        writeBehind(),
        opZones(),
        noSpaceFallback());
  }

  @Override
  public String toString() {
    return "ZonedEnvOptions{placement="
        + placement().name()
        + ", victimPolicy="
        + victimPolicy().name()
        + ", gcTrigger="
        + gcTrigger().name()
        + (windowScheduler != null ? ", windowScheduler=" + windowScheduler : "")
        + (wal().equals(WalOptions.defaults()) ? "" : ", wal=" + wal())
        + (writeBehind() ? "" : ", writeBehind=false")
        + (opZones() == 0 ? "" : ", opZones=" + opZones())
        + (noSpaceFallback() ? "" : ", noSpaceFallback=false")
        + "}";
  }

  /** Builder of {@link ZonedEnvOptions}; starts from the defaults. */
  public static final class Builder {
    private final ZoneFsSettings.Builder fs = ZoneFsSettings.builder(); // its defaults are ours
    private String windowScheduler;

    private Builder() {}

    /**
     * The window scheduler for a {@code plmarray:} device: {@code base} (PLM off), {@code plm} (the
     * ablation ladder's simple driver), {@code r-vigil} or {@code o-vigil}, or a class of your own
     * ({@code class:com.example.MyScheduler}, a zkv-plm {@code WindowScheduler}: a new instance
     * each time the env opens, as schedulers keep state); null for none. Opening any other device
     * with one set fails before anything is mounted, saying why (an {@code nvme:} device without
     * Predictable Latency Mode, such as QEMU's, among them; docs/plm.md). The schedulers are {@code
     * io.zkv:zkv-plm}'s: add it as a dependency.
     *
     * @throws IllegalArgumentException for an unknown name, listing the known ones, a class that
     *     does not load or implement the interface, or when zkv-plm is not on the class path
     */
    public Builder windowScheduler(String name) {
      if (name != null) {
        WindowSchedulerProvider.forName(name); // validates, with the message users see
      }
      this.windowScheduler = name;
      return this;
    }

    /** The placement policy (any zkv-placement {@link PlacementPolicy}, your own too). */
    public Builder placement(PlacementPolicy policy) {
      fs.placement(policy);
      return this;
    }

    /**
     * A built-in placement by name, with its default settings: {@code placement(Placement.LIZA)} is
     * {@code placement(new LizaPolicy())}.
     */
    public Builder placement(Placement placement) {
      return placement(Objects.requireNonNull(placement, "placement must not be null").newPolicy());
    }

    /**
     * A placement by its setting: a built-in's name ({@code liza}; {@link Placement}) or a class of
     * your own, {@code class:com.example.MyPolicy} implementing {@link PlacementPolicy} ({@link
     * PolicyClass}).
     *
     * @throws IllegalArgumentException for an unknown name, or a class that does not load or
     *     implement the interface, saying which
     */
    public Builder placement(String setting) {
      Objects.requireNonNull(setting, "placement must not be null");
      if (PolicyClass.isClassSetting(setting)) {
        return placement(PolicyClass.instantiate(setting, PlacementPolicy.class));
      }
      Placement p;
      try {
        p = Placement.valueOf(setting.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "unknown placement '"
                + setting
                + "' (known: "
                + String.join(
                    ", ", Arrays.stream(Placement.values()).map(Placement::policyName).toList())
                + ", or class:com.example.MyPolicy)");
      }
      return placement(p);
    }

    /** The garbage collection victim policy (any zkv-placement {@link VictimPolicy}). */
    public Builder victimPolicy(VictimPolicy policy) {
      fs.victims(Objects.requireNonNull(policy, "victimPolicy must not be null"));
      return this;
    }

    /**
     * A victim policy by its setting: {@code greedy} ({@link GreedyVictimPolicy}) or a class of
     * your own, {@code class:com.example.MyVictims} implementing {@link VictimPolicy}.
     *
     * @throws IllegalArgumentException for an unknown name or a class that does not load or
     *     implement the interface
     */
    public Builder victimPolicy(String setting) {
      Objects.requireNonNull(setting, "victimPolicy must not be null");
      if (PolicyClass.isClassSetting(setting)) {
        return victimPolicy(PolicyClass.instantiate(setting, VictimPolicy.class));
      }
      VictimPolicy greedy = new GreedyVictimPolicy();
      if (!setting.trim().equalsIgnoreCase(greedy.name())) {
        throw new IllegalArgumentException(
            "unknown victim policy '"
                + setting
                + "' (known: "
                + greedy.name()
                + ", or class:com.example.MyVictims)");
      }
      return victimPolicy(greedy);
    }

    /**
     * Background GC by ZenFS's trigger from {@code percent} free space on (0 turns background GC
     * off; GC on a full device and {@link ZkvDb#resume()} still run).
     *
     * @throws IllegalArgumentException if {@code percent} is not 0..100
     */
    public Builder gcStartPercent(int percent) {
      GcTrigger trigger = GcTrigger.zenFs(percent); // validates, with the message users see
      return gcTrigger(percent == 0 ? GcTrigger.off() : trigger);
    }

    /** When background GC runs: any {@link GcTrigger} (your own too), {@link GcTrigger#off()}. */
    public Builder gcTrigger(GcTrigger trigger) {
      fs.gcTrigger(trigger);
      return this;
    }

    /**
     * A GC trigger by its setting: {@code zenfs} (ZenFS's, from {@value
     * GcTrigger#ZENFS_START_PERCENT}% free), {@code caza} (CAZA's cleaning, to {@value
     * CazaGcTrigger#DEFAULT_THS}% free; {@link GcTrigger#caza} for another threshold), {@code off}
     * (no background GC) or a class of your own, {@code class:com.example.MyTrigger} implementing
     * {@link GcTrigger}.
     *
     * @throws IllegalArgumentException for an unknown name or a class that does not load or
     *     implement the interface
     */
    public Builder gcTrigger(String setting) {
      Objects.requireNonNull(setting, "gcTrigger must not be null");
      if (PolicyClass.isClassSetting(setting)) {
        return gcTrigger(PolicyClass.instantiate(setting, GcTrigger.class));
      }
      return switch (setting.trim().toLowerCase(Locale.ROOT)) {
        case "zenfs" -> gcTrigger(GcTrigger.zenFsDefault());
        case "caza" -> gcTrigger(GcTrigger.caza(CazaGcTrigger.DEFAULT_THS));
        case "off" -> gcTrigger(GcTrigger.off());
        default ->
            throw new IllegalArgumentException(
                "unknown GC trigger '"
                    + setting
                    + "' (known: "
                    + String.join(", ", GC_TRIGGERS)
                    + ", or class:com.example.MyTrigger)");
      };
    }

    /** How RocksDB's WAL files are written on this device: {@link ZoneFsSettings.Builder#wal}. */
    public Builder wal(WalOptions wal) {
      fs.wal(wal);
      return this;
    }

    /** Write SST files behind their writer: {@link ZoneFsSettings.Builder#writeBehind}. */
    public Builder writeBehind(boolean writeBehind) {
      fs.writeBehind(writeBehind);
      return this;
    }

    /**
     * Over-provisioning (CAZA's OP zones; its evaluation kept 10 of 100): {@link
     * ZoneFsSettings.Builder#opZones}.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder opZones(int zones) {
      fs.opZones(zones);
      return this;
    }

    /**
     * Where the placement policy finds no zone for a data file's write: {@link
     * ZoneFsSettings.Builder#noSpaceFallback}.
     */
    public Builder noSpaceFallback(boolean on) {
      fs.noSpaceFallback(on);
      return this;
    }

    public ZonedEnvOptions build() {
      return new ZonedEnvOptions(this);
    }
  }
}
