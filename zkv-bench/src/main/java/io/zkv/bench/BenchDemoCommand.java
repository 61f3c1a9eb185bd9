package io.zkv.bench;

import io.zkv.bench.driver.BenchEngine;
import io.zkv.bench.driver.BenchInvocation;
import io.zkv.cli.Arguments;
import io.zkv.cli.ZkvCommand;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code zkv demo}: a short comparison, zkv on an emulated device with the {@code zn540} timing
 * profile against RocksJava on its default Env: fillrandom of {@code --keys} keys, then readrandom
 * for {@code --seconds}, twice in alternating order (A B, B A); prints the table with ratios and
 * where the plots are. The fill is limited by its key count only, so both targets read the same
 * data. It is {@code zkv bench compare} with fixed options (printed first, so the run can be
 * repeated or varied).
 */
public final class BenchDemoCommand implements ZkvCommand {
  @Override
  public String name() {
    return "demo";
  }

  @Override
  public String summary() {
    return "zkv (emulated ZN540) vs RocksDB on its default Env: fillrandom, readrandom (--seconds)";
  }

  @Override
  public String usage() {
    return "[--seconds 4] [--keys 500000] [--threads 2] [--repeat 2] [--out DIR]";
  }

  @Override
  public int run(Arguments args, PrintStream out) throws Exception {
    double seconds = args.decimal("seconds", 4, 0.5, 600);
    // 500,000 keys: the settled database is larger than what RocksDB keeps in memory, so reads
    // reach the device (with 200,000 they were all served from memory); the fill takes ~2 s.
    long keys = args.number("keys", 500_000, 1000, 100_000_000);
    long threads = args.number("threads", 2, 1, 64);
    long repeat = args.number("repeat", 2, 1, 20);
    String outDir = args.string("out", null);
    args.requireAllUsed();
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
    if (outDir != null) {
      bench.addAll(List.of("--out", outDir));
    }
    out.println(
        "zkv demo: zkv on an emulated ZNS SSD (zn540 timing) vs RocksJava on its default Env,"
            + " same RocksDB options");
    BenchInvocation inv = BenchInvocation.parse(Arguments.of(bench.toArray(String[]::new)));
    out.println(inv.commandLine());
    out.println();
    BenchEngine.execute(inv, out);
    return 0;
  }
}
