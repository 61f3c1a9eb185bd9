package io.zkv.bench;

import io.zkv.bench.driver.BenchEngine;
import io.zkv.bench.driver.BenchInvocation;
import io.zkv.cli.Arguments;
import io.zkv.cli.ZkvCommand;
import java.io.PrintStream;

/**
 * {@code zkv bench}: db_bench, YCSB and MixGraph workloads on zkv and on RocksJava's default Env,
 * with latency percentiles, throughput timelines, device counters, JSON/Markdown reports and PNG
 * plots; {@code zkv bench compare} runs several configurations in alternating order (A B, B A,
 * ...), repeated, and prints each figure's ratio to the first. See {@code docs/benchmarks.md}.
 */
public final class BenchCommand implements ZkvCommand {
  @Override
  public String name() {
    return "bench";
  }

  @Override
  public String summary() {
    return "db_bench/YCSB/MixGraph workloads on zkv and RocksDB's default Env; 'compare' for ratios";
  }

  @Override
  public String positionals() {
    return "[compare]";
  }

  @Override
  public java.util.List<io.zkv.cli.Option> options() {
    return BenchInvocation.OPTIONS;
  }

  @Override
  public String notes() {
    return "zkv bench compare --config A --config B ... runs the configurations in alternating"
        + " order and prints each figure's ratio to the first; docs/benchmarks.md has the\n"
        + "configuration keys, workloads and examples.";
  }

  @Override
  public int run(Arguments args, PrintStream out) throws Exception {
    // Policies named class:... load from --classpath (or ZKV_CLASSPATH) through the context class
    // loader, which the configurations' parsing already needs: it makes each policy once to check.
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    String paths = BenchInvocation.classPath(args);
    try (PolicyClassPath policies = PolicyClassPath.of(paths, before)) {
      thread.setContextClassLoader(policies.loader());
      BenchInvocation inv = BenchInvocation.parse(args);
      out.println(inv.commandLine());
      BenchEngine.execute(inv, out);
      return 0;
    } finally {
      thread.setContextClassLoader(before);
    }
  }
}
