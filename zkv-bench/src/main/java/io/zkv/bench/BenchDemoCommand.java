package io.zkv.bench;

import io.zkv.bench.driver.BenchEngine;
import io.zkv.bench.driver.BenchInvocation;
import io.zkv.cli.Arguments;
import io.zkv.cli.Option;
import io.zkv.cli.ZkvCommand;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code zkv demo}: two short comparisons, each {@code zkv bench compare} with fixed options
 * (printed first, so a run can be repeated or varied).
 *
 * <ol>
 *   <li>zoned storage: zkv on an emulated device with the {@code zn540} timing profile against
 *       RocksJava on its default Env: fillrandom of {@code --keys} keys, then readrandom for {@code
 *       --seconds}, twice in alternating order (A B, B A); the fill is limited by its key count
 *       only, so both targets read the same data;
 *   <li>predictable latency (Vigil-KV): Base against O-Vigil on one emulated {@code plm} device (a
 *       {@code plmarray:} of 4 NVM Sets, windows 50 times faster), YCSB A of {@code --plm-keys}
 *       records and {@code --plm-ops} operations, then the Get figures with the paper's next to
 *       them ({@link PlmDemoSummary}).
 * </ol>
 *
 * <p>{@code --part zns|plm} runs one of them. {@code --part wal}, not in the default run: the FILE
 * mode (ZenFS's WAL) against ZWAL on an emulated {@code confzns} device, fillrandom of {@code
 * --wal-keys} 4,000-byte values at a 4 KiB WAL buffer (one record a chunk), with ZWAL's published
 * ratio next to ours ({@link WalDemoSummary}; docs/wal.md has the whole sweep).
 */
public final class BenchDemoCommand implements ZkvCommand {
  @Override
  public String name() {
    return "demo";
  }

  @Override
  public String summary() {
    return "zkv (emulated ZN540) vs RocksDB on its default Env; then Base vs O-Vigil on an emulated"
        + " PLM SSD";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.of("seconds", "S", "4", "seconds per measured phase of the ZNS part (0.5-600)"),
        Option.of("keys", "N", "500000", "keys of the ZNS part's database"),
        Option.of("threads", "N", "2", "client threads (1-64)"),
        Option.of("repeat", "N", "2", "runs of each configuration, alternating which goes first"),
        Option.of("plm-keys", "N", "40000", "records of the PLM part"),
        Option.of("plm-ops", "N", "120000", "operations of the PLM part's run phase"),
        Option.of("wal-keys", "N", "8000", "records of the WAL part (--part wal)"),
        Option.of("part", "zns|plm|all|wal", "all", "which part to run (all: zns, then plm)"),
        Option.of("out", "DIR", "a scratch directory", "where reports and plots go"));
  }

  @Override
  public int run(Arguments args, PrintStream out) throws Exception {
    double seconds = args.decimal("seconds", 4, 0.5, 600);
    // 500,000 keys: the settled database is larger than what RocksDB keeps in memory, so reads
    // reach the device (with 200,000 they were all served from memory); the fill takes ~2 s.
    long keys = args.number("keys", 500_000, 1000, 100_000_000);
    long threads = args.number("threads", 2, 1, 64);
    long repeat = args.number("repeat", 2, 1, 20);
    long plmKeys = args.number("plm-keys", 40_000, 100, 10_000_000);
    long plmOps = args.number("plm-ops", 120_000, 100, 100_000_000);
    long walKeys = args.number("wal-keys", 8000, 100, 10_000_000);
    String part = args.string("part", "all");
    String outDir = args.string("out", null);
    args.requireAllUsed();
    if (!List.of("all", "zns", "plm", "wal").contains(part)) {
      throw new Arguments.UsageException("--part takes zns, plm, all or wal, not " + part);
    }
    if (part.equals("wal")) {
      writeAheadLog(walKeys, outDir, out);
      return 0;
    }
    if (!part.equals("plm")) {
      zonedStorage(seconds, keys, threads, repeat, outDir, out);
    }
    if (!part.equals("zns")) {
      predictableLatency(
          plmKeys, plmOps, threads, outDir == null ? null : Path.of(outDir, "plm").toString(), out);
    }
    return 0;
  }

  private static void zonedStorage(
      double seconds, long keys, long threads, long repeat, String outDir, PrintStream out)
      throws Exception {
    List<String> bench =
        new ArrayList<>(
            List.of(
                "compare",
                "--config",
                "zkv:profile=zn540",
                "--config",
                "rocksdb-default",
                "--workload",
                "fillrandom,readrandom",
                "--duration",
                Double.toString(seconds),
                "--keys",
                Long.toString(keys),
                "--threads",
                Long.toString(threads),
                "--repeat",
                Long.toString(repeat),
                // A 4 MiB memtable: the fill's writes flush and compact SST files, and reads go
                // to them instead of staying in one memtable. --duration limits readrandom only.
                "--write-buffer",
                "4M",
                // 48 MiB-capacity zones: room for the data, WAL, and flush/compaction output.
                "--zones",
                "64",
                "--interval",
                "0.5"));
    compare(
        "zkv demo: zkv on an emulated ZNS SSD (zn540 timing) vs RocksJava on its default Env,"
            + " same RocksDB options",
        bench,
        outDir,
        out);
  }

  /**
   * The FILE mode against ZWAL (QD 32) at a 4 KiB WAL buffer on {@code confzns}: each 4,000-byte
   * record (16-byte key) and its chunk header fill one block, so the FILE mode waits for one ~482
   * us write per put while ZWAL keeps up to 32 appends in flight. The memtable (64 MiB) holds the
   * default 8,000 records (32 MB): no flush runs, the WAL is all that is measured.
   */
  private static void writeAheadLog(long keys, String outDir, PrintStream out) throws Exception {
    List<String> bench =
        new ArrayList<>(
            List.of(
                "compare",
                "--profile",
                "confzns",
                "--config",
                "zkv:wal=file,wal-buffer=4K,label=file-4K",
                "--config",
                "zkv:wal=zwal,wal-buffer=4K,wal-qd=32,label=zwal-4K",
                "--workload",
                "fillrandom",
                "--keys",
                Long.toString(keys),
                "--value-size",
                "4000",
                "--threads",
                "1",
                "--repeat",
                "1",
                "--interval",
                "0.5"));
    BenchEngine.Outcome o =
        compare(
            "zkv demo: RocksDB's WAL on zones, the FILE mode (ZenFS's) vs ZWAL (zone appends) on an"
                + " emulated ConfZNS SSD",
            bench,
            outDir,
            out);
    out.println();
    WalDemoSummary.render(o.report()).forEach(out::println);
    out.println(
        "(ours: one run each on this host; docs/wal.md has the buffer sweep, YCSB, recovery)");
  }

  /**
   * Prints the title and the command line, then runs the comparison (its reports and plots in
   * {@code outDir}, or a scratch directory for null).
   */
  private static BenchEngine.Outcome compare(
      String title, List<String> bench, String outDir, PrintStream out) throws Exception {
    if (outDir != null) {
      bench.addAll(List.of("--out", outDir));
    }
    out.println(title);
    BenchInvocation inv = BenchInvocation.parse(Arguments.of(bench.toArray(String[]::new)));
    out.println(inv.commandLine());
    out.println();
    return BenchEngine.execute(inv, out);
  }

  /**
   * Base and O-Vigil, one run each, on YCSB A: its Gets (READ) against the paper's figures. The
   * windows run 50 times faster (maximum DTWIN 1.2 s, minimum NDWIN 80 ms) so that a short run sees
   * many of them; 4 MiB memtables so that it flushes and compacts as often, for its size, as the
   * paper's runs did (with 64 MiB ones a short run flushes once or twice and Base's device has
   * nothing to stall on).
   */
  private static void predictableLatency(
      long keys, long ops, long threads, String outDir, PrintStream out) throws Exception {
    List<String> bench =
        new ArrayList<>(
            List.of(
                "compare",
                "--config",
                "zkv:profile=plm,windows=base,timescale=50,label=base",
                "--config",
                "zkv:profile=plm,windows=o-vigil,timescale=50,label=o-vigil",
                "--workload",
                "ycsb-a",
                "--keys",
                Long.toString(keys),
                "--ops",
                Long.toString(ops),
                "--threads",
                Long.toString(threads),
                "--write-buffer",
                "4M",
                "--bloom-bits",
                "10",
                "--repeat",
                "1",
                "--interval",
                "0.5"));
    out.println();
    BenchEngine.Outcome o =
        compare(
            "zkv demo: predictable latency (Vigil-KV): Base (PLM off) vs O-Vigil (windows"
                + " scheduled, reads rebuilt, writes held) on one emulated PLM SSD of 4 NVM Sets",
            bench,
            outDir,
            out);
    out.println();
    PlmDemoSummary.render(o.report()).forEach(out::println);
    out.println(
        "(ours: one run each on this host, see the host-load notes above; the 'device time in the"
            + " model' rows and 'reads the device model took > 200 us' are the emulated device's own"
            + " times, which the host's load cannot bend; docs/plm.md has the ladder)");
  }
}
