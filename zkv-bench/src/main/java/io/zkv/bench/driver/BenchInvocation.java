package io.zkv.bench.driver;

import io.zkv.ZkvOptions;
import io.zkv.cli.Arguments;
import io.zkv.cli.Arguments.UsageException;
import io.zkv.cli.Option;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A parsed {@code zkv bench} command line: the configurations, the settings and where to write.
 *
 * @param compare whether this is {@code zkv bench compare}
 * @param defaults the global options every configuration starts from
 * @param configs configurations in order (the first is the reference of the ratios)
 * @param settings workload settings
 * @param outDir where the report goes, or null for a new directory under the temp directory
 * @param scratchDir where scratch devices and databases go, or null for a new one on tmpfs
 * @param progress whether to show progress on stderr
 * @param plots whether to draw the PNG plots
 * @param classPath where policies named {@code class:...} were found ({@code --classpath} or {@code
 *     ZKV_CLASSPATH}), or null
 */
public record BenchInvocation(
    boolean compare,
    TargetConfig defaults,
    List<TargetConfig> configs,
    BenchSettings settings,
    Path outDir,
    Path scratchDir,
    boolean progress,
    boolean plots,
    String classPath) {

  /** The emulated devices' timing profile, an option of every command that makes them. */
  public static final Option PROFILE =
      Option.of("profile", "NAME", "instant", "the emulated device's timing profile");

  /** The options of {@code zkv bench} (its help prints one line each). */
  public static final List<Option> OPTIONS =
      List.of(
          Option.of(
              "target",
              "zkv|rocksdb-default",
              "zkv",
              "what one run measures (or give --config, once per configuration)"),
          Option.of(
              "config",
              "SPEC",
              null,
              "a configuration, repeatable: zkv[:key=value,...] or rocksdb-default[:...]"
                  + " (keys in docs/benchmarks.md: profile, placement, gc, windows, bloom, label,"
                  + " ...)"),
          Option.of(
              "workload",
              "LIST",
              "fillrandom,readrandom",
              "phases, comma-separated; NAME*K: over K times the keys and ops"),
          Option.of("threads", "N", "1", "client threads (1-256)"),
          Option.of("keys", "N", "100000", "key space"),
          Option.of("key-size", "BYTES", "16", "key size (8-1024)"),
          Option.of("value-size", "BYTES", "100", "value size"),
          Option.of("ycsb-field-length", "BYTES", "100", "YCSB field length (10 fields a record)"),
          Option.of("ops", "N", "the key count", "operations per phase"),
          Option.of("duration", "SECONDS", "none", "run each phase this long instead of --ops"),
          Option.of("distribution", "uniform|zipfian", "uniform", "key choice"),
          Option.flag("sync", "synced writes (WriteOptions.sync)"),
          PROFILE,
          Option.of("zones", "N", "64", "zones of the emulated device"),
          Option.of("zone-size", "S", "the profile's geometry", "zone size (K/M/G suffixes)"),
          Option.of("zone-cap", "C", "the profile's geometry", "zone capacity"),
          Option.of(
              "placement",
              "NAME",
              "liza",
              "zone placement policy (liza, caza, zonekv, or class:com.x.MyPolicy)"),
          Option.of("device", "URI", "a scratch emulated device", "run on this device (formatted)"),
          Option.of(
              "classpath",
              "PATHS",
              "$ZKV_CLASSPATH",
              "where policies named class:... are found (directories, jars, dir/*; ':'-separated)"),
          Option.of("write-buffer", "BYTES", "64M", "RocksDB write buffer size"),
          Option.of(
              "target-file-size", "BYTES", "RocksDB's (64M)", "SST target size (both targets)"),
          Option.of("level-base", "BYTES", "RocksDB's (256M)", "max bytes for the level base"),
          Option.of("dynamic-levels", "true|false", "RocksDB's (true)", "dynamic level bytes"),
          Option.of("compression", "none|snappy|lz4|zstd", "snappy", "SST compression"),
          Option.of("background-jobs", "N", "RocksDB's (2)", "flush and compaction jobs (1-64)"),
          Option.of("subcompactions", "N", "RocksDB's (1)", "max subcompactions (1-64)"),
          Option.of(
              "compaction-pri",
              "NAME",
              "RocksDB's (min-overlapping-ratio)",
              "which SSTs a level compacts first (round-robin: in key order)"),
          Option.of(
              "bloom-bits", "BITS", "0", "Bloom filter bits per key, 0 for RocksDB's default"),
          Option.of("repeat", "N", "1 (compare: 3)", "runs of each configuration"),
          Option.of("interval", "SECONDS", "1", "throughput timeline interval"),
          Option.of("seed", "N", "1", "workload seed"),
          Option.of("out", "DIR", "none", "write JSON and Markdown reports and PNG plots to DIR"),
          Option.of("dir", "DIR", "a scratch directory", "where databases and devices go"),
          Option.of("progress", "true|false", "true", "print progress while running"),
          Option.of("plots", "true|false", "true", "write PNG plots with the reports"));

  /** The LSM shape of the global options ({@code --target-file-size}, ...; {@link LsmShape}). */
  private static LsmShape lsmShape(Arguments a) {
    LsmShape lsm = LsmShape.DEFAULTS;
    for (String key : LsmShape.KEYS) {
      String v = a.string(key, null);
      if (v != null) {
        lsm = TargetConfig.lsmKey(null, lsm, key, v);
      }
    }
    return lsm;
  }

  /** Parses the options; bad ones throw {@link UsageException}. */
  public static BenchInvocation parse(Arguments a) {
    String mode = a.positional(0, "run");
    boolean compare;
    switch (mode) {
      case "run" -> compare = false;
      case "compare" -> compare = true;
      default ->
          throw new UsageException(
              "unknown mode '" + mode + "' (use 'zkv bench [run] ...' or 'zkv bench compare ...')");
    }
    TargetConfig defaults =
        TargetConfig.defaults(
            a.string("profile", "instant"),
            a.string("device", null),
            (int) a.number("zones", 64, 4, 1 << 20),
            a.number("zone-size", 0, 0, 1L << 40),
            a.number("zone-cap", 0, 0, 1L << 40),
            TargetConfig.placement(a.string("placement", "liza")),
            a.flag("sync", false),
            lsmShape(a));
    List<String> specs = new ArrayList<>(a.strings("config"));
    String target = a.string("target", null);
    if (target != null) {
      if (!specs.isEmpty()) {
        throw new UsageException("give either --target or --config, not both");
      }
      specs.add(target);
    }
    if (specs.isEmpty()) {
      if (compare) {
        throw new UsageException("compare needs two or more --config options");
      }
      specs.add("zkv");
    }
    if (compare && specs.size() < 2) {
      throw new UsageException("compare needs two or more --config options, got " + specs.size());
    }
    List<TargetConfig> configs = new ArrayList<>();
    for (String spec : specs) {
      TargetConfig c = TargetConfig.parse(spec, defaults);
      for (TargetConfig other : configs) {
        if (other.label().equals(c.label())) {
          throw new UsageException(
              "two configurations are labelled '" + c.label() + "'; add label=NAME to one");
        }
      }
      configs.add(c);
    }
    List<String> workloads =
        Arrays.stream(a.string("workload", "fillrandom,readrandom").split(","))
            .map(String::trim)
            .filter(w -> !w.isEmpty())
            .toList();
    if (workloads.isEmpty()) {
      throw new UsageException(
          "--workload names no workload (known: " + WorkloadCatalog.NAMES + ")");
    }
    String dist = a.string("distribution", "uniform").toLowerCase(Locale.ROOT);
    if (!dist.equals("uniform") && !dist.equals("zipfian")) {
      throw new UsageException("--distribution must be uniform or zipfian, not '" + dist + "'");
    }
    BenchSettings s =
        new BenchSettings(
            workloads,
            (int) a.number("threads", 1, 1, 256),
            (int) a.number("key-size", 16, 8, 1024),
            (int) a.number("value-size", 100, 0, 1 << 20),
            (int) a.number("ycsb-field-length", 100, 1, 100_000),
            a.number("keys", 100_000, 1, 1L << 40),
            a.number("ops", 0, 0, Long.MAX_VALUE / 2),
            a.decimal("duration", 0, 0, 86_400),
            dist.equals("zipfian"),
            a.number("write-buffer", 64L << 20, 64L << 10, 1L << 34),
            a.decimal("bloom-bits", 0, 0, ZkvOptions.MAX_BLOOM_BITS_PER_KEY),
            a.number("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE),
            a.decimal("interval", 1, 0.05, 3600),
            (int) a.number("repeat", compare ? 3 : 1, 1, 100));
    String out = a.string("out", null);
    String dir = a.string("dir", null);
    boolean progress = a.flag("progress", true);
    boolean plots = a.flag("plots", true);
    a.requireAllUsed();
    // Fail on a bad workload name now, not after the first configuration ran.
    for (String w : workloads) {
      WorkloadCatalog.phases(w, s);
    }
    return new BenchInvocation(
        compare,
        defaults,
        configs,
        s,
        out == null ? null : Path.of(out),
        dir == null ? null : Path.of(dir),
        progress,
        plots,
        classPath(a));
  }

  /** The environment variable read when {@code --classpath} is not given. */
  public static final String CLASSPATH_ENV = "ZKV_CLASSPATH";

  /** Where policies named {@code class:...} are found: {@code --classpath}, else the variable. */
  public static String classPath(Arguments a) {
    return a.string("classpath", System.getenv(CLASSPATH_ENV));
  }

  /** The invocation as a command line that repeats it (every setting explicit). */
  public String commandLine() {
    BenchSettings s = settings;
    StringBuilder b = new StringBuilder("zkv bench").append(compare ? " compare" : "");
    for (TargetConfig c : configs) {
      b.append(" --config ").append(c.spec());
    }
    b.append(" --profile ").append(defaults.profile());
    if (defaults.device() != null) {
      b.append(" --device ").append(defaults.device());
    }
    b.append(" --zones ").append(defaults.zones());
    if (defaults.zoneSize() > 0) {
      b.append(" --zone-size ").append(defaults.zoneSize());
    }
    if (defaults.zoneCapacity() > 0) {
      b.append(" --zone-cap ").append(defaults.zoneCapacity());
    }
    b.append(" --placement ").append(defaults.placement());
    if (classPath != null && !classPath.isBlank()) {
      b.append(" --classpath ").append(classPath);
    }
    if (defaults.sync()) {
      b.append(" --sync");
    }
    b.append(" --workload ").append(String.join(",", s.workloads()));
    b.append(" --threads ").append(s.threads());
    b.append(" --keys ").append(s.keys());
    b.append(" --key-size ").append(s.keySize());
    b.append(" --value-size ").append(s.valueSize());
    b.append(" --ycsb-field-length ").append(s.ycsbFieldLength());
    if (s.ops() > 0) {
      b.append(" --ops ").append(s.ops());
    }
    if (s.durationSeconds() > 0) {
      b.append(" --duration ").append(JsonReport.num(s.durationSeconds()));
    }
    b.append(" --distribution ").append(s.zipfian() ? "zipfian" : "uniform");
    b.append(" --write-buffer ").append(s.writeBufferSize());
    b.append(defaults.lsm().asOptions());
    if (s.bloomBitsPerKey() > 0) {
      b.append(" --bloom-bits ").append(JsonReport.num(s.bloomBitsPerKey()));
    }
    b.append(" --interval ").append(JsonReport.num(s.intervalSeconds()));
    b.append(" --repeat ").append(s.repeat());
    b.append(" --seed ").append(s.seed());
    return b.toString();
  }
}
