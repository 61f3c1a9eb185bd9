package com.example.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The policy benchmarked against LIZA as docs/writing-a-policy.md shows: {@code zkv bench compare}
 * in a JVM of its own, on zkv-bench's class path without this project's classes, the policy found
 * through {@code --classpath target/classes} and named {@code placement=class:...}. Checks that
 * both configurations ran, the policy decided this device's allocations, and the report compares
 * them; it claims nothing about which is faster (that is the benchmark's to say, not a test's).
 */
class BenchAgainstLizaTest {
  private static final String POLICY = LevelLifetimePolicy.class.getName();

  @Test
  void zkvBenchComparesThePolicyWithLiza() throws Exception {
    Path classes = Path.of("target", "classes").toAbsolutePath();
    Path testClasses = Path.of("target", "test-classes").toAbsolutePath();
    String benchClassPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> !Path.of(e).toAbsolutePath().equals(classes))
            .filter(e -> !Path.of(e).toAbsolutePath().equals(testClasses))
            .collect(Collectors.joining(File.pathSeparator));
    Path out = Path.of("target", "bench-vs-liza");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                benchClassPath,
                "io.zkv.cli.Zkv",
                "bench",
                "compare",
                "--classpath",
                classes.toString(),
                "--config",
                "zkv:placement=liza,label=liza",
                "--config",
                "zkv:placement=class:" + POLICY + ",label=level-lifetime",
                "--profile",
                "instant",
                "--workload",
                "fillrandom",
                "--keys",
                "150000",
                "--value-size",
                "400",
                "--write-buffer",
                "4M",
                "--repeat",
                "1",
                "--progress",
                "false",
                "--plots",
                "false",
                "--out",
                out.toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int rc = p.waitFor();
    System.out.println(output);
    assertEquals(0, rc, output);

    JsonNode report = new ObjectMapper().readTree(Files.readString(out.resolve("report.json")));
    JsonNode configs = report.get("configs");
    assertEquals("liza", configs.get(0).get("label").asText());
    assertEquals("level-lifetime", configs.get(1).get("label").asText());
    assertTrue(
        configs.get(1).get("description").asText().contains("placement class:" + POLICY),
        configs.get(1).toString());
    for (JsonNode run : report.get("runs")) {
      JsonNode fill = run.get("phases").get(0);
      assertEquals(150_000, fill.get("ops").asLong(), run.get("config").asText());
      assertTrue(fill.get("opsPerSecond").asDouble() > 0, run.toString());
      // the placement policy of that configuration decided the zones of its files
      assertTrue(fill.get("device").get("policyDecisions").asLong() > 0, fill.toString());
    }
    JsonNode opsPerSecond = report.get("comparison").get(0);
    assertEquals("ops/s", opsPerSecond.get("figure").asText());
    assertTrue(opsPerSecond.get("configs").get(1).get("ratio").asDouble() > 0);
  }
}
