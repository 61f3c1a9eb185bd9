package io.zkv.bench.driver;

import io.zkv.bench.workload.DbBenchWorkloads;
import io.zkv.bench.workload.KeyGenerator;
import io.zkv.bench.workload.MixGraphWorkload;
import io.zkv.bench.workload.OperationMix;
import io.zkv.bench.workload.UniformKeyGenerator;
import io.zkv.bench.workload.YcsbWorkload;
import io.zkv.cli.Arguments.UsageException;
import java.util.List;
import java.util.Locale;

/**
 * Workload names of {@code zkv bench --workload} and the phases each runs, built from the
 * generators of {@link io.zkv.bench.workload}:
 *
 * <ul>
 *   <li>db_bench: {@code fillseq}, {@code fillrandom}, {@code overwrite}, {@code readrandom},
 *       {@code readwhilewriting}, {@code mixedNN} (each operation a write with probability NN%,
 *       else a read: WALTZ's "Mixed 7:3" is {@code mixed70});
 *   <li>{@code recover} (ZWAL's recovery figure): {@code recover-write} writes {@code --ops}
 *       records as {@code fillrandom} does and is not settled, so its data stays in the WAL (with a
 *       write buffer large enough, nothing is flushed); then {@code recover} closes the store as a
 *       crash would and reopens it, measuring the mount, the WAL's replay and the flush after it
 *       ({@link RecoveryFigures});
 *   <li>YCSB: {@code ycsb-a} ... {@code ycsb-f}, each a load phase ({@code ycsb-x-load}) and a run
 *       phase ({@code ycsb-x-run});
 *   <li>Vigil-KV's Facebook mixes (ATC '22, Table 2), as YCSB workloads with the table's Get/Put
 *       ratios: {@code userdb} (54% reads, 46% updates, uniform keys: the irregular access that
 *       gives UserDB its 25% cache hits) and {@code zippydb} (42% reads, 58% inserts, reads of the
 *       latest records: ZippyDB's read-latest pattern and 86% cache hits); each a load and a run
 *       phase;
 *   <li>MixGraph: {@code mixgraph} (WALTZ's AllRand), {@code mixgraph-alldist}, {@code
 *       mixgraph-prerand}, {@code mixgraph-predist}, {@code mixgraph-example} (RocksDB's example
 *       parameters).
 * </ul>
 */
public final class WorkloadCatalog {
  private WorkloadCatalog() {}

  /** The accepted names, for help and errors. */
  public static final String NAMES =
      "fillseq, fillrandom, overwrite, readrandom, readwhilewriting, mixedNN (NN = write %), recover,"
          + " ycsb-a..ycsb-f, userdb, zippydb, mixgraph, mixgraph-alldist, mixgraph-prerand, mixgraph-predist,"
          + " mixgraph-example; NAME*K runs NAME over K times the key space (and K times --ops)";

  /** The largest K of {@code NAME*K}. */
  static final int MAX_SCALE = 1000;

  /**
   * The phases of workload {@code name}. Phases that write run {@code --ops} operations (default
   * {@code keys}) even when {@code --duration} is given; only read-only phases, and the readers of
   * {@code readwhilewriting}, are limited by time (see {@link PhaseSpec} on state parity).
   */
  public static List<PhaseSpec> phases(String name, BenchSettings s) {
    int star = name.lastIndexOf('*');
    if (star >= 0) {
      String base = name.substring(0, star).trim();
      int factor = scale(name, name.substring(star + 1).trim());
      String suffix = "*" + factor;
      return phases(base, s.scaled(factor)).stream().map(p -> p.named(p.name() + suffix)).toList();
    }
    String n = name.trim().toLowerCase(Locale.ROOT);
    long keys = s.keys();
    int vs = s.valueSize();
    long writeOps = s.opsOfWritingPhase();
    switch (n) {
      case "fillseq":
        // One sequence shared by the threads: each key written once (db_bench gives every thread
        // its own sequence from 0, which with a shared budget would write the low keys N times).
        return List.of(writing(n, DbBenchWorkloads.fillSeq(keys, vs), writeOps, false));
      case "fillrandom":
        return List.of(writing(n, DbBenchWorkloads.fillRandom(keys, vs), writeOps, false));
      case "overwrite":
        // Overwrites existing keys: a prefill runs first if nothing was written before.
        return List.of(
            writing(n, DbBenchWorkloads.writeReadMix(100, keyGen(s), vs), writeOps, true));
      case "recover":
        return List.of(
            new PhaseSpec(
                n + "-write",
                DbBenchWorkloads.fillRandom(keys, vs),
                null,
                writeOps,
                0,
                false,
                false,
                true,
                false,
                false),
            PhaseSpec.reopen(n));
      case "readrandom":
        return List.of(reading(n, DbBenchWorkloads.writeReadMix(0, keyGen(s), 0), s));
      case "readwhilewriting":
        // The readers read while the writer writes writeOps keys; they stop when it is done (or
        // at --duration), and it always completes them.
        return List.of(
            new PhaseSpec(
                n,
                DbBenchWorkloads.writeReadMix(0, keyGen(s), 0),
                DbBenchWorkloads.writeReadMix(100, keyGen(s), vs),
                Long.MAX_VALUE,
                writeOps,
                true,
                true,
                true,
                true,
                false));
      default:
        break;
    }
    if (n.matches("mixed[0-9]{1,3}")) {
      int writePercent = Integer.parseInt(n.substring(5));
      if (writePercent > 100) {
        throw new UsageException("workload " + name + ": the write percentage must be 0..100");
      }
      OperationMix mix = DbBenchWorkloads.writeReadMix(writePercent, keyGen(s), vs);
      return List.of(
          writePercent == 0 ? reading(n, mix, s) : writing(n, mix, writeOps, writePercent < 100));
    }
    if (n.matches("ycsb-[a-f]") || n.equals("userdb") || n.equals("zippydb")) {
      YcsbWorkload.Core core =
          n.startsWith("ycsb-")
              ? YcsbWorkload.Core.valueOf(n.substring(5).toUpperCase(Locale.ROOT))
              : YcsbWorkload.Core.A; // the settings' defaults (10 fields, scan lengths unused)
      YcsbWorkload.Proportions p =
          switch (n) {
            case "userdb" -> new YcsbWorkload.Proportions(0.54, 0.46, 0, 0, 0);
            case "zippydb" -> new YcsbWorkload.Proportions(0.42, 0, 0.58, 0, 0);
            default -> core.proportions();
          };
      YcsbWorkload.RequestDistribution dist =
          switch (n) {
            case "userdb" -> YcsbWorkload.RequestDistribution.UNIFORM;
            case "zippydb" -> YcsbWorkload.RequestDistribution.LATEST;
            default -> core.distribution();
          };
      boolean runWrites = p.update() + p.insert() + p.rmw() > 0;
      long runOps = runWrites ? writeOps : s.opsOfReadOnlyPhase();
      YcsbWorkload w =
          new YcsbWorkload(
              p,
              dist,
              YcsbWorkload.Settings.of(core, keys, runOps == Long.MAX_VALUE ? keys : runOps)
                  .withFields(PhaseRunner.YCSB_FIELDS, s.ycsbFieldLength()));
      return List.of(
          writing(n + "-load", w.load(), keys, false),
          runWrites
              ? writing(n + "-run", w.run(), writeOps, true)
              : reading(n + "-run", w.run(), s));
    }
    if (n.startsWith("mixgraph")) {
      MixGraphWorkload w =
          switch (n) {
            case "mixgraph" -> MixGraphWorkload.waltz(MixGraphWorkload.Variant.ALL_RAND, keys, vs);
            case "mixgraph-alldist" ->
                MixGraphWorkload.waltz(MixGraphWorkload.Variant.ALL_DIST, keys, vs);
            case "mixgraph-prerand" ->
                MixGraphWorkload.waltz(MixGraphWorkload.Variant.PRE_RAND, keys, vs);
            case "mixgraph-predist" ->
                MixGraphWorkload.waltz(MixGraphWorkload.Variant.PRE_DIST, keys, vs);
            case "mixgraph-example" ->
                new MixGraphWorkload(MixGraphWorkload.Params.rocksDbExample(keys));
            default -> throw unknown(name);
          };
      return List.of(writing(n, w, writeOps, true));
    }
    throw unknown(name);
  }

  private static UsageException unknown(String name) {
    return new UsageException("unknown workload '" + name + "' (known: " + NAMES + ")");
  }

  /** K of a phase named {@code NAME*K}, 1 for any other. */
  static int scaleOf(String phaseName) {
    int star = phaseName.lastIndexOf('*');
    return star < 0 ? 1 : scale(phaseName, phaseName.substring(star + 1).trim());
  }

  /** K of {@code NAME*K}: 1 to {@value #MAX_SCALE}. */
  private static int scale(String name, String k) {
    try {
      int factor = Integer.parseInt(k);
      if (factor >= 1 && factor <= MAX_SCALE) {
        return factor;
      }
    } catch (NumberFormatException e) {
      // the message below
    }
    throw new UsageException(
        "workload '"
            + name
            + "': the factor after * must be 1.."
            + MAX_SCALE
            + ", not '"
            + k
            + "'");
  }

  /** Uniform, or WALTZ's Zipfian 0.99 over a fixed permutation of the keys. */
  private static KeyGenerator keyGen(BenchSettings s) {
    return s.zipfian()
        ? DbBenchWorkloads.waltzZipfian(s.keys(), s.seed())
        : new UniformKeyGenerator(s.keys());
  }

  /** A phase that writes: limited by operation count only (state parity). */
  private static PhaseSpec writing(String name, OperationMix mix, long ops, boolean reads) {
    return new PhaseSpec(name, mix, null, ops, 0, false, reads, true, true, false);
  }

  /** A read-only phase: {@code --ops}, {@code --duration}, or {@code keys} operations. */
  private static PhaseSpec reading(String name, OperationMix mix, BenchSettings s) {
    return new PhaseSpec(
        name, mix, null, s.opsOfReadOnlyPhase(), 0, true, true, false, false, false);
  }
}
