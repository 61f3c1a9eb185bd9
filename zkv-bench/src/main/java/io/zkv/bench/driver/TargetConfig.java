package io.zkv.bench.driver;

import io.zkv.ZkvOptions;
import io.zkv.ZonedEnvOptions;
import io.zkv.cli.Arguments;
import io.zkv.cli.Arguments.UsageException;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ProfileGeometry;
import io.zkv.device.plm.WindowSchedulerProvider;
import io.zkv.placement.CazaGcTrigger;
import io.zkv.placement.CazaPolicy;
import io.zkv.placement.GcTrigger;
import io.zkv.placement.PolicyClass;
import io.zkv.wal.WalMode;
import io.zkv.wal.WalOptions;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One configuration to benchmark: a target and its storage settings. Written on the command line as
 * {@code zkv[:key=value,...]} or {@code rocksdb-default[:key=value,...]}; keys that are not given
 * come from the command's global options.
 *
 * <p>Keys for {@code zkv}: {@code profile} (timing profile of the scratch emulated device), {@code
 * zones}, {@code zone-size}, {@code zone-cap}, {@code geometry} (its geometry: a zone size or
 * capacity not given comes from the profile's default geometry, or from the named one, e.g. {@code
 * geometry=caza}; {@link ProfileGeometry}), {@code device} (an existing device URI instead of a
 * scratch device; it is formatted), {@code placement} ({@code liza}, {@code caza}: CAZA for the
 * configuration's {@code target-file-size}, or {@code class:} and a {@code PlacementPolicy} of your
 * own), {@code victim} ({@code greedy} or {@code class:...}, a {@code VictimPolicy}), {@code
 * trigger} ({@code zenfs}, {@code caza}, {@code off} or {@code class:...}, a {@code GcTrigger}),
 * {@code gc} (the same as {@code trigger} for the built-in ones: {@code zenfs}, {@code caza} or
 * {@code off}), {@code ths} (with {@code gc=caza}: cleaning goes on until THS% of the capacity is
 * free, 1-50, default 5), {@code op-zones} (empty zones kept for GC's copies; with {@code gc=caza}
 * default a tenth of the zones, CAZA's 10 of 100; else 0), {@code sync}, {@code label}, {@code
 * windows} (a rung of Vigil-KV's ablation ladder, {@link LadderRung}: {@code base}, {@code plm},
 * {@code i-plm}, {@code r-vigil} or {@code o-vigil}, or {@code class:...}, a {@code
 * WindowScheduler} of your own run with O-Vigil's mechanisms: the scratch device becomes a {@code
 * plmarray:} over an emulated {@code plm} device of 4 NVM Sets, without open or active limits, with
 * that rung's mechanisms and window scheduler; docs/plm.md), {@code timescale} (with {@code
 * windows}: the PLM windows run that many times faster), {@code wal} ({@code file}, ZenFS's; {@code
 * file+r}, with WALTZ's two reserved WAL zones; {@code file+r+a}, those and zone appends at queue
 * depth 1; {@code zwal}, ZWAL's; {@code waltz}, WALTZ's per-writer log above RocksDB; without it
 * the library's default, FILE mode with two reserved zones), {@code wal-reserve} (empty zones kept
 * for WAL files, 0-8), {@code wal-buffer} (the device bytes of one WAL write-out, 4K-1M, default
 * 1M), {@code wal-qd} (ZWAL's queue depth, 1-64, default 32), {@code wal-barrier} (ZWAL's barrier,
 * default the zone capacity): {@link WalOptions}; {@code write-behind} ({@code true}, the default:
 * SST files written behind their writer where the device can; {@code false}: synchronously, as
 * ZenFS). Keys for {@code rocksdb-default}: {@code dir} (where the database lives; default the
 * scratch directory), {@code sync}, {@code label}. Keys for both: {@code threads}, {@code bloom},
 * and the LSM tree's shape ({@link LsmShape#KEYS}: {@code target-file-size}, {@code level-base},
 * {@code dynamic-levels}, {@code compression}, {@code background-jobs}, {@code subcompactions},
 * {@code compaction-pri}).
 *
 * @param spec the configuration as written on the command line
 * @param label the name in tables and plots (the spec as written unless {@code label=} is given)
 * @param target which store
 * @param profile emulated device timing profile (zkv)
 * @param device device URI, or null for a scratch emulated device (zkv)
 * @param zones zone count of the scratch device (zkv)
 * @param zoneSize zone size in bytes (zkv; 0 in the global defaults: the geometry's)
 * @param zoneCapacity zone capacity in bytes (zkv; 0 in the global defaults: the geometry's)
 * @param geometry the default geometry the scratch device follows: the profile's name, or another
 *     {@link ProfileGeometry} name (zkv)
 * @param placement zone placement policy: a built-in's name or {@code class:...} (zkv)
 * @param victim GC victim policy: {@code greedy} or {@code class:...} (zkv)
 * @param trigger background GC trigger: {@code zenfs}, {@code caza}, {@code off} or {@code
 *     class:...} (zkv)
 * @param ths CAZA's cleaning threshold in percent with {@code trigger} {@code caza}, else 0 (zkv)
 * @param opZones the over-provisioning reserve in zones (zkv)
 * @param dir database directory, or null for the scratch directory (rocksdb-default)
 * @param sync sync the WAL on every write
 * @param windows the ablation-ladder rung on a plmarray: device ({@link LadderRung}) or a {@code
 *     class:} setting naming a window scheduler, or null (zkv)
 * @param timescale the PLM windows' speed-up with {@code windows} (zkv)
 * @param threads client threads of this configuration, 0 for the global {@code --threads}
 * @param bloomBitsPerKey this configuration's Bloom filter bits per key (0: none), or -1 for the
 *     global {@code --bloom-bits}
 * @param wal how the WAL is written (zkv): mode, buffer, ZWAL's queue depth and barrier
 * @param writeBehind SST files written behind their writer (zkv;
 *     ZoneFsSettings.Builder#writeBehind)
 * @param lsm the LSM tree's shape (both targets)
 * @param noSpaceFallback the safety rule places a data write the policy found no zone for (zkv;
 *     {@code fallback=}, ZonedEnvOptions.Builder#noSpaceFallback)
 */
public record TargetConfig(
    String spec,
    String label,
    Target target,
    String profile,
    String device,
    int zones,
    long zoneSize,
    long zoneCapacity,
    String geometry,
    String placement,
    String victim,
    String trigger,
    int ths,
    int opZones,
    String dir,
    boolean sync,
    String windows,
    int timescale,
    int threads,
    double bloomBitsPerKey,
    WalOptions wal,
    boolean writeBehind,
    LsmShape lsm,
    boolean noSpaceFallback,
    boolean waltz) {

  /** The stores the driver can measure. */
  public enum Target {
    /** {@link io.zkv.ZkvDb} on zkv's zone file system. */
    ZKV("zkv"),
    /** RocksJava with its default Env (the host file system). */
    ROCKSDB_DEFAULT("rocksdb-default");

    private final String spec;

    Target(String spec) {
      this.spec = spec;
    }

    public String spec() {
      return spec;
    }

    static Target parse(String s) {
      for (Target t : values()) {
        if (t.spec.equals(s)) {
          return t;
        }
      }
      throw new UsageException("unknown target '" + s + "' (known: zkv, rocksdb-default)");
    }
  }

  /** The defaults a spec starts from (the global options); label and target are replaced. */
  public static TargetConfig defaults(
      String profile,
      String device,
      int zones,
      long zoneSize,
      long zoneCapacity,
      String placement,
      boolean sync,
      LsmShape lsm) {
    checkProfile(profile);
    return new TargetConfig(
        "zkv",
        "zkv",
        Target.ZKV,
        profile,
        device,
        zones,
        zoneSize,
        zoneCapacity,
        null,
        placement,
        "greedy",
        "zenfs",
        0,
        0,
        null,
        sync,
        null,
        1,
        0,
        -1,
        WalOptions.defaults(),
        true,
        lsm,
        true,
        false);
  }

  /**
   * The database's options with this configuration's WAL mode: WALTZ's log for {@code wal=waltz}.
   */
  public io.zkv.ZkvOptions withWalMode(io.zkv.ZkvOptions o) {
    return waltz ? o.toBuilder().walMode(WalMode.WALTZ).build() : o;
  }

  /** The scratch device's geometry: the default geometry's, with what this configuration sets. */
  public DeviceGeometry deviceGeometry() {
    return ProfileGeometry.of(geometry, zones, zoneSize, zoneCapacity);
  }

  /** Parses {@code target[:key=value,...]}; bad specs throw {@link UsageException}. */
  public static TargetConfig parse(String spec, TargetConfig defaults) {
    String s = spec.trim();
    int colon = s.indexOf(':');
    Target target = Target.parse(colon < 0 ? s : s.substring(0, colon));
    SpecParser parser = new SpecParser(spec, s, target, defaults);
    if (colon >= 0) {
      for (String kv : s.substring(colon + 1).split(",")) {
        parser.setting(kv);
      }
    }
    return parser.build();
  }

  /**
   * One spec being parsed: it starts from the defaults, takes each {@code key=value} in turn, then
   * settles what depends on several keys (the WAL preset and reserve, CAZA's threshold and reserve,
   * the zone geometry) and checks them together.
   */
  private static final class SpecParser {
    /** The keys {@code rocksdb-default} takes besides the LSM tree's shape. */
    private static final List<String> ROCKSDB_KEYS =
        List.of("sync", "threads", "bloom", "label", "dir");

    private final String spec; // as written, for the error messages
    private final String trimmed;
    private final Target target;
    private final TargetConfig defaults;
    private final WalOptions.Builder wal;
    private String label;
    private String profile;
    private String device;
    private int zones;
    private long zoneSize;
    private long zoneCap;
    private String geometry;
    private String placement;
    private String victim;
    private String trigger;
    private int ths;
    private int opZones = -1; // not given
    private String dir;
    private boolean sync;
    private String windows;
    private int threads;
    private double bloom;
    private int timescale;
    private WalPreset walPreset;
    private int walReserve = -1; // not given
    private boolean walQdGiven;
    private boolean writeBehind;
    private boolean noSpaceFallback;
    private LsmShape lsm;

    SpecParser(String spec, String trimmed, Target target, TargetConfig defaults) {
      this.spec = spec;
      this.trimmed = trimmed;
      this.target = target;
      this.defaults = defaults;
      this.wal = walBuilder(defaults.wal);
      label = trimmed;
      profile = defaults.profile;
      device = defaults.device;
      zones = defaults.zones;
      zoneSize = defaults.zoneSize;
      zoneCap = defaults.zoneCapacity;
      geometry = defaults.geometry;
      placement = defaults.placement;
      victim = defaults.victim;
      trigger = defaults.trigger;
      ths = defaults.ths;
      sync = defaults.sync;
      windows = defaults.windows;
      threads = defaults.threads;
      bloom = defaults.bloomBitsPerKey;
      timescale = defaults.timescale;
      writeBehind = defaults.writeBehind;
      noSpaceFallback = defaults.noSpaceFallback;
      lsm = defaults.lsm;
    }

    private static WalOptions.Builder walBuilder(WalOptions d) {
      return WalOptions.builder()
          .mode(d.mode())
          .buffer(d.bufferBytes())
          .queueDepth(d.queueDepth())
          .barrier(d.barrierBytes())
          .reservedZones(d.reservedZones())
          .switchRoom(d.switchRoom());
    }

    /** One {@code key=value} of the spec. */
    void setting(String kv) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw usage("expected key=value, not '" + kv + "'");
      }
      String key = kv.substring(0, eq).trim();
      String value = kv.substring(eq + 1).trim();
      checkTargetTakes(key);
      if (LsmShape.KEYS.contains(key)) {
        lsm = lsmKey(spec, lsm, key, value);
      } else {
        set(key, value);
      }
    }

    private void checkTargetTakes(String key) {
      if (target == Target.ROCKSDB_DEFAULT
          && !ROCKSDB_KEYS.contains(key)
          && !LsmShape.KEYS.contains(key)) {
        throw usage(
            "rocksdb-default takes dir, sync, threads, bloom, label and "
                + String.join(", ", LsmShape.KEYS)
                + ", not "
                + key);
      }
    }

    private void set(String key, String value) {
      switch (key) {
        case "profile" -> profile = checkProfile(value);
        case "device" -> device = value;
        case "zones" -> zones = (int) size(spec, key, value, 4, 1 << 20);
        case "zone-size" -> zoneSize = size(spec, key, value, 1 << 20, 1L << 40);
        case "zone-cap" -> zoneCap = size(spec, key, value, 1 << 20, 1L << 40);
        case "geometry" -> geometry = checkGeometry(spec, value);
        case "placement" -> placement = policy(spec, key, value, b -> b.placement(value));
        case "victim" -> victim = policy(spec, key, value, b -> b.victimPolicy(value));
        case "trigger" -> trigger = policy(spec, key, value, b -> b.gcTrigger(value));
        case "gc" -> trigger = gcName(spec, value);
        case "ths" ->
            ths = (int) size(spec, key, value, CazaGcTrigger.MIN_THS, CazaGcTrigger.MAX_THS);
        case "op-zones" -> opZones = (int) size(spec, key, value, 0, 1 << 20);
        case "dir" -> dir = value;
        case "sync" -> sync = bool(spec, value);
        case "label" -> label = value;
        case "threads" -> threads = (int) size(spec, key, value, 1, 256);
        case "bloom" -> bloom = bloomBits(spec, value);
        case "windows" -> windows = windows(spec, value);
        case "timescale" -> timescale = (int) size(spec, key, value, 1, 1000);
        case "wal" -> walPreset = walPreset(spec, value);
        case "wal-reserve" ->
            walReserve = (int) size(spec, key, value, 0, WalOptions.MAX_RESERVED_ZONES);
        case "wal-buffer" ->
            walSetting(spec, () -> wal.buffer((int) size(spec, key, value, 1, 1 << 30)));
        case "wal-qd" -> {
          walSetting(spec, () -> wal.queueDepth((int) size(spec, key, value, 0, 1 << 20)));
          walQdGiven = true;
        }
        case "wal-barrier" ->
            walSetting(spec, () -> wal.barrier(size(spec, key, value, 0, 1L << 40)));
        case "write-behind" -> writeBehind = bool(spec, value);
        case "fallback" -> noSpaceFallback = onOff(spec, key, value);
        default -> throw unknownKey(key);
      }
    }

    private UsageException unknownKey(String key) {
      return usage(
          "unknown key '"
              + key
              + "' (known: profile, zones, zone-size, zone-cap, geometry, device, placement,"
              + " victim, trigger, gc, ths, op-zones, dir, sync, threads, bloom, label,"
              + " windows, timescale,"
              + " wal, wal-buffer, wal-reserve, target-file-size, level-base,"
              + " dynamic-levels,"
              + " compression, background-jobs, subcompactions, compaction-pri,"
              + " wal-qd, wal-barrier, write-behind, fallback)");
    }

    /** The configuration, once every key is set: what depends on several keys settled first. */
    TargetConfig build() {
      settleWal();
      if (geometry == null) {
        geometry = profile;
      }
      settleGc();
      checkDataZones();
      settleZoneGeometry();
      return new TargetConfig(
          trimmed,
          label,
          target,
          profile,
          device,
          zones,
          zoneSize,
          zoneCap,
          geometry,
          placement,
          victim,
          trigger,
          ths,
          opZones,
          dir,
          sync,
          windows,
          timescale,
          threads,
          bloom,
          wal.build(),
          writeBehind,
          lsm,
          noSpaceFallback,
          walPreset == WalPreset.WALTZ);
    }

    /** The {@code wal=} preset, then {@code wal-reserve=} over its reserve. */
    private void settleWal() {
      if (walPreset != null) {
        walPreset.applyTo(wal, walQdGiven);
      }
      if (walReserve >= 0) {
        wal.reservedZones(walReserve);
      }
    }

    /** CAZA's threshold and the over-provisioning reserve: checked, or their defaults. */
    private void settleGc() {
      boolean caza = trigger.equalsIgnoreCase("caza");
      if (ths != 0 && !caza) {
        throw usage("ths is CAZA's cleaning threshold: give gc=caza with it");
      }
      if (caza && ths == 0) {
        ths = CazaGcTrigger.DEFAULT_THS;
      }
      if (opZones < 0 && caza && device != null) {
        throw usage(
            "gc=caza on device= needs op-zones= (the default, a tenth of the zones, is"
                + " the scratch device's)");
      }
      if (opZones < 0) {
        opZones = caza ? zones / 10 : defaults.opZones; // CAZA kept 10 of its 100 zones
      }
    }

    /** The scratch device keeps data writers at least 4 zones beside the reserves. */
    private void checkDataZones() {
      if (target == Target.ZKV && device == null && opZones > 0 && opZones + 2 + 4 > zones - 3) {
        throw usage(
            "op-zones "
                + opZones
                + " leaves data writers fewer than 4 of the "
                + zones
                + " zones (3 hold the file system's metadata, 2 more are kept empty for GC and"
                + " RocksDB's metadata files)");
      }
    }

    /** A zone size or capacity not given comes from the geometry; the capacity fits the size. */
    private void settleZoneGeometry() {
      if (target == Target.ZKV && (zoneSize == 0 || zoneCap == 0)) {
        DeviceGeometry g = ProfileGeometry.of(geometry, zones, zoneSize, zoneCap);
        zoneSize = g.zoneSize();
        zoneCap = g.zoneCapacity();
      }
      if (target == Target.ZKV && zoneCap > zoneSize) {
        throw usage("zone capacity " + zoneCap + " exceeds zone size " + zoneSize);
      }
    }

    private UsageException usage(String problem) {
      return new UsageException("configuration '" + spec + "': " + problem);
    }
  }

  /** The WAL's settings where they are not the defaults, and SST writes, for the description. */
  private String walNote() {
    String sst = writeBehind ? "" : ", SST writes synchronous (write-behind off)";
    if (waltz) {
      return ", WAL WALTZ (per-writer zone appends to leased zones, RocksDB's WAL off)" + sst;
    }
    if (wal.equals(WalOptions.defaults())) {
      return sst;
    }
    String note = ", WAL " + wal.mode() + " buffer " + (wal.bufferBytes() >> 10) + " KiB";
    if (wal.mode() == WalMode.ZWAL) {
      note += " QD " + wal.queueDepth();
      note += wal.barrierBytes() == 0 ? "" : " barrier " + (wal.barrierBytes() >> 10) + " KiB";
    }
    note += ", " + wal.reservedZones() + " reserved WAL zones";
    return note + sst;
  }

  /**
   * The {@code wal=} values: the WAL write modes the papers compare (WALTZ's ablation, Fig. 14),
   * each with the reserve it had. {@code file}: ZenFS's (FILE mode, no reserved WAL zones); {@code
   * file+r}: FILE mode with WALTZ's two reserved zones; {@code file+r+a}: the chunks written by
   * zone append at queue depth 1 (ZWAL's path) with the reserve; {@code zwal}: ZWAL's (queue depth
   * {@code wal-qd}, no reserve, as ZWAL's paper ran it); {@code waltz}: WALTZ's log above RocksDB
   * (per-writer zone appends to leased zones, RocksDB's WAL off, no reserved WAL zones). Without
   * {@code wal=} the library's defaults hold (FILE mode, two reserved zones); {@code wal-reserve=}
   * overrides any of them.
   */
  private enum WalPreset {
    FILE(WalMode.FILE, 0, 0),
    FILE_R(WalMode.FILE, WalOptions.DEFAULT_RESERVED_ZONES, 0),
    FILE_R_A(WalMode.ZWAL, WalOptions.DEFAULT_RESERVED_ZONES, 1),
    ZWAL(WalMode.ZWAL, 0, 0),
    // RocksDB writes no WAL file: the file system's mode is moot, and reserved WAL zones would
    // only hold active tokens the log's leased zones need
    WALTZ(WalMode.FILE, 0, 0);

    final WalMode mode;
    final int reservedZones;
    final int queueDepth; // 0: as wal-qd or the default

    WalPreset(WalMode mode, int reservedZones, int queueDepth) {
      this.mode = mode;
      this.reservedZones = reservedZones;
      this.queueDepth = queueDepth;
    }

    void applyTo(WalOptions.Builder wal, boolean queueDepthGiven) {
      wal.mode(mode).reservedZones(reservedZones);
      if (queueDepth > 0 && !queueDepthGiven) {
        wal.queueDepth(queueDepth);
      }
    }
  }

  private static WalPreset walPreset(String spec, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "file" -> WalPreset.FILE;
      case "file+r" -> WalPreset.FILE_R;
      case "file+r+a" -> WalPreset.FILE_R_A;
      case "zwal" -> WalPreset.ZWAL;
      case "waltz" -> WalPreset.WALTZ;
      default ->
          throw new UsageException(
              "configuration '"
                  + spec
                  + "': wal must be file, file+r, file+r+a, zwal or waltz, not "
                  + v);
    };
  }

  /** A WAL setting, its range refused as a usage error naming the configuration. */
  private static void walSetting(String spec, Runnable set) {
    try {
      set.run();
    } catch (IllegalArgumentException e) {
      throw new UsageException("configuration '" + spec + "': " + e.getMessage());
    }
  }

  private static double bloomBits(String spec, String value) {
    try {
      double bits = Double.parseDouble(value);
      if (bits >= 0 && bits <= ZkvOptions.MAX_BLOOM_BITS_PER_KEY) {
        return bits;
      }
    } catch (NumberFormatException e) {
      // the message below
    }
    throw new UsageException(
        "configuration '"
            + spec
            + "': bloom must be bits per key from 0 (no filter) to "
            + JsonReport.num(ZkvOptions.MAX_BLOOM_BITS_PER_KEY)
            + ", not '"
            + value
            + "'");
  }

  /** What the configuration runs on, for the report's conditions. */
  public String describe() {
    if (target == Target.ROCKSDB_DEFAULT) {
      return "RocksJava default Env in "
          + (dir != null ? dir : "the scratch directory")
          + (sync ? ", sync writes" : "")
          + settingsNote();
    }
    String dev =
        device != null
            ? device + " (its geometry: see the notes)"
            : String.format(
                Locale.ROOT,
                "scratch emulated device, profile %s, %d zones x %d MiB (%d MiB capacity)",
                profile,
                zones,
                zoneSize >> 20,
                zoneCapacity >> 20);
    if (windows != null && device == null) {
      dev =
          String.format(
              Locale.ROOT,
              "scratch plmarray: over an emulated plm device of 4 NVM Sets (timescale %d), %d zones"
                  + " x %d MiB (%d MiB capacity) in all",
              timescale,
              zones,
              zoneSize >> 20,
              zoneCapacity >> 20);
    }
    return "zkv on "
        + dev
        + ", placement "
        + placement
        + (victim.equals("greedy") ? "" : ", GC victims " + victim)
        + (trigger.equals("zenfs") ? "" : ", GC trigger " + trigger)
        + (ths > 0 ? " THS " + ths + "%" : "")
        + (opZones > 0 ? ", " + opZones + " zones of over-provisioning" : "")
        + (noSpaceFallback ? "" : ", NoSpace fallback off")
        + (windows != null ? ", windows " + windows : "")
        + walNote()
        + (sync ? ", sync writes" : "")
        + settingsNote();
  }

  /** The configuration's own settings (client threads, Bloom filters), for its description. */
  private String settingsNote() {
    String t = threads > 0 ? ", " + threads + " client thread" + (threads > 1 ? "s" : "") : "";
    return t
        + (bloomBitsPerKey >= 0 ? ", " + BenchSettings.bloomNote(bloomBitsPerKey) : "")
        + "; "
        + lsm.describe();
  }

  /** The settings this configuration runs with: its own client threads and Bloom filters if set. */
  BenchSettings settingsFor(BenchSettings global) {
    BenchSettings s = threads > 0 ? global.withThreads(threads) : global;
    return bloomBitsPerKey >= 0 ? s.withBloomBitsPerKey(bloomBitsPerKey) : s;
  }

  /** A plmarray: URI over {@code file} for the {@code windows} key: the rung's mechanisms. */
  String plmArrayUri(java.nio.file.Path file) {
    return "plmarray:"
        + mechanisms().arrayOptions()
        + "@"
        + EmulatedDevice.uri(file, "plm", "sets=4", "timescale=" + timescale);
  }

  /** The window scheduler the {@code windows} key runs, or null. */
  String windowScheduler() {
    if (windows == null) {
      return null;
    }
    return PolicyClass.isClassSetting(windows) ? windows : LadderRung.of(windows).scheduler();
  }

  /** The rung whose array mechanisms run: a scheduler of the user's own runs with O-Vigil's. */
  private LadderRung mechanisms() {
    return PolicyClass.isClassSetting(windows) ? LadderRung.O_VIGIL : LadderRung.of(windows);
  }

  /** The env options of this configuration's policies (each a new instance). */
  ZonedEnvOptions.Builder policies() {
    ZonedEnvOptions.Builder b = ZonedEnvOptions.builder();
    if (placement.equalsIgnoreCase("caza") && lsm.targetFileSize() > 0) {
      b.placement(new CazaPolicy(lsm.targetFileSize())); // room for the SSTs this run writes
    } else {
      b.placement(placement);
    }
    b.victimPolicy(victim)
        .opZones(opZones)
        .noSpaceFallback(noSpaceFallback)
        .windowScheduler(windowScheduler());
    return ths > 0 ? b.gcTrigger(GcTrigger.caza(ths)) : b.gcTrigger(trigger);
  }

  /** {@code on} or {@code off}, for a switch such as {@code fallback=}. */
  private static boolean onOff(String spec, String key, String v) {
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "on" -> true;
      case "off" -> false;
      default ->
          throw new UsageException(
              "configuration '" + spec + "': " + key + " is on or off, not '" + v + "'");
    };
  }

  /** A built-in GC by name ({@code gc=}): ZenFS's trigger, CAZA's cleaning, or none. */
  private static String gcName(String spec, String v) {
    String name = v.trim().toLowerCase(Locale.ROOT);
    if (!ZonedEnvOptions.GC_TRIGGERS.contains(name)) {
      throw new UsageException(
          "configuration '"
              + spec
              + "': gc must be one of "
              + String.join(", ", ZonedEnvOptions.GC_TRIGGERS)
              + ", not "
              + v);
    }
    return name;
  }

  private static String windows(String spec, String v) {
    try {
      if (PolicyClass.isClassSetting(v)) {
        WindowSchedulerProvider.forName(v.trim()); // loads and instantiates it once: refused now
        return v.trim();
      }
      return LadderRung.of(v).label();
    } catch (IllegalArgumentException e) {
      throw new UsageException("configuration '" + spec + "': " + e.getMessage());
    }
  }

  /**
   * A policy setting ({@code placement}, {@code victim}, {@code trigger}), checked by making the
   * policy once (a class that does not load or implement the interface is a bad command line).
   */
  private static String policy(
      String spec, String key, String value, Consumer<ZonedEnvOptions.Builder> set) {
    try {
      set.accept(ZonedEnvOptions.builder());
      return value.trim();
    } catch (IllegalArgumentException e) {
      throw refused(spec, key, e);
    }
  }

  /** {@code lsm} with an LSM shape key set; a bad value is a usage error naming the setting. */
  static LsmShape lsmKey(String spec, LsmShape lsm, String key, String value) {
    try {
      return lsm.with(key, value);
    } catch (IllegalArgumentException e) {
      throw refused(spec, key, e);
    }
  }

  /** A refused setting as a usage error naming where it was given (a configuration or --key). */
  private static UsageException refused(String spec, String key, IllegalArgumentException e) {
    return new UsageException(
        (spec == null ? "--" + key : "configuration '" + spec + "'") + ": " + e.getMessage());
  }

  /** The global {@code --placement}, checked as the key is. */
  static String placement(String v) {
    return policy(null, "placement", v, b -> b.placement(v));
  }

  private static String checkProfile(String p) {
    if (!Arrays.asList(EmulatedDevice.PROFILES).contains(p)) {
      throw new UsageException(
          "unknown timing profile '"
              + p
              + "' (known: "
              + String.join(", ", EmulatedDevice.PROFILES)
              + ")");
    }
    return p;
  }

  private static String checkGeometry(String spec, String name) {
    if (!ProfileGeometry.known(name)) {
      throw new UsageException(
          "configuration '"
              + spec
              + "': unknown geometry '"
              + name
              + "' (known: "
              + String.join(", ", ProfileGeometry.names())
              + ")");
    }
    return name;
  }

  private static long size(String spec, String key, String v, long min, long max) {
    long n;
    try {
      n = Arguments.parseSize(v);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new UsageException(
          "configuration '" + spec + "': " + key + " needs a number, not " + v);
    }
    if (n < min || n > max) {
      throw new UsageException(
          "configuration '" + spec + "': " + key + " must be between " + min + " and " + max);
    }
    return n;
  }

  private static boolean bool(String spec, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1", "on" -> true;
      case "false", "no", "0", "off" -> false;
      default ->
          throw new UsageException(
              "configuration '" + spec + "': sync needs true or false, not " + v);
    };
  }
}
