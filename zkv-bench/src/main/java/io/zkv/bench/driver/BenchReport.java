package io.zkv.bench.driver;

import io.zkv.cli.Versions;
import java.time.Instant;
import java.util.List;

/**
 * Everything one invocation measured, for the writers.
 *
 * @param command the command line as typed (for reproduction)
 * @param started when the invocation started
 * @param settings the workload settings
 * @param configs the configurations, first = the reference of the ratios
 * @param runs every run in execution order
 * @param figures the compared figures ({@link Comparison#figures})
 * @param environment machine facts (cores, Java, OS, scratch directory)
 * @param versions zkv (version and commit), RocksDB and the JVM that measured it
 */
public record BenchReport(
    String command,
    Instant started,
    BenchSettings settings,
    List<TargetConfig> configs,
    List<RunResult> runs,
    List<Comparison.Figure> figures,
    List<String> environment,
    Versions versions) {

  public List<String> labels() {
    return configs.stream().map(TargetConfig::label).toList();
  }
}
