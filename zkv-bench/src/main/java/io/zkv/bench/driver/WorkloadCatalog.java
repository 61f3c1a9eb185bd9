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
 *   <li>YCSB: {@code ycsb-a} ... {@code ycsb-f}, each a load phase ({@code ycsb-x-load}) and a run
 *       phase ({@code ycsb-x-run});
 *   <li>MixGraph: {@code mixgraph} (WALTZ's AllRand), {@code mixgraph-alldist}, {@code
 *       mixgraph-prerand}, {@code mixgraph-predist}, {@code mixgraph-example} (RocksDB's example
 *       parameters).
 * </ul>
 */
public final class WorkloadCatalog {
  private WorkloadCatalog() {}

  /** The accepted names, for help and errors. */
  public static final String NAMES =
      "fillseq, fillrandom, overwrite, readrandom, readwhilewriting, mixedNN (NN = write %),"
          + " ycsb-a..ycsb-f, mixgraph, mixgraph-alldist, mixgraph-prerand, mixgraph-predist,"
          + " mixgraph-example";

  /** The phases of workload {@code name}. */
  public static List<PhaseSpec> phases(String name, BenchSettings s) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    long keys = s.keys();
    int vs = s.valueSize();
    long ops = s.opsOrDefault();
    switch (n) {
      case "fillseq":
        return List.of(
            new PhaseSpec(
                n, t -> DbBenchWorkloads.fillSeq(keys, vs), null, ops, true, false, true));
      case "fillrandom":
        return List.of(shared(n, DbBenchWorkloads.fillRandom(keys, vs), ops, false, true));
      case "overwrite":
        return List.of(
            shared(n, DbBenchWorkloads.writeReadMix(100, keyGen(s), vs), ops, false, true));
      case "readrandom":
        return List.of(shared(n, DbBenchWorkloads.writeReadMix(0, keyGen(s), 0), ops, true, false));
      case "readwhilewriting":
        return List.of(
            new PhaseSpec(
                n,
                constant(DbBenchWorkloads.writeReadMix(0, keyGen(s), 0)),
                DbBenchWorkloads.writeReadMix(100, keyGen(s), vs),
                ops,
                true,
                true,
                true));
      default:
        break;
    }
    if (n.matches("mixed[0-9]{1,3}")) {
      int writePercent = Integer.parseInt(n.substring(5));
      if (writePercent > 100) {
        throw new UsageException("workload " + name + ": the write percentage must be 0..100");
      }
      return List.of(
          shared(
              n,
              DbBenchWorkloads.writeReadMix(writePercent, keyGen(s), vs),
              ops,
              writePercent < 100,
              writePercent > 0));
    }
    if (n.matches("ycsb-[a-f]")) {
      YcsbWorkload.Core core = YcsbWorkload.Core.valueOf(n.substring(5).toUpperCase(Locale.ROOT));
      long runOps = ops == Long.MAX_VALUE ? keys : ops;
      YcsbWorkload w =
          new YcsbWorkload(
              core,
              YcsbWorkload.Settings.of(core, keys, runOps)
                  .withFields(PhaseRunner.YCSB_FIELDS, s.ycsbFieldLength()));
      return List.of(
          new PhaseSpec(n + "-load", constant(w.load()), null, keys, false, false, true),
          shared(n + "-run", w.run(), ops, true, true));
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
      return List.of(shared(n, w, ops, true, true));
    }
    throw unknown(name);
  }

  private static UsageException unknown(String name) {
    return new UsageException("unknown workload '" + name + "' (known: " + NAMES + ")");
  }

  /** Uniform, or WALTZ's Zipfian 0.99 over a fixed permutation of the keys. */
  private static KeyGenerator keyGen(BenchSettings s) {
    return s.zipfian()
        ? DbBenchWorkloads.waltzZipfian(s.keys(), s.seed())
        : new UniformKeyGenerator(s.keys());
  }

  private static PhaseSpec shared(
      String name, OperationMix mix, long ops, boolean reads, boolean writes) {
    return new PhaseSpec(name, constant(mix), null, ops, true, reads, writes);
  }

  private static java.util.function.IntFunction<OperationMix> constant(OperationMix mix) {
    return t -> mix;
  }
}
