package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments.UsageException;
import io.zkv.cli.Zkv;
import io.zkv.placement.CazaPolicy;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Policies named by class in {@code zkv bench}: configuration keys {@code placement=class:...},
 * {@code victim=}, {@code trigger=}, {@code windows=}, and {@code --classpath} for classes that are
 * not on the tool's class path. The policy run end to end is compiled by this test into a directory
 * of its own, so it can only be found through {@code --classpath}.
 */
class PolicyClassBenchTest {
  private static final String POLICY = "example.CountingLiza";

  private static final String SOURCE =
      """
      package example;

      import io.zkv.placement.Allocation;
      import io.zkv.placement.AllocationRequest;
      import io.zkv.placement.LizaPolicy;
      import io.zkv.placement.PlacementPolicy;
      import io.zkv.placement.ZoneTableView;

      public final class CountingLiza implements PlacementPolicy {
        private final LizaPolicy liza = new LizaPolicy();

        @Override
        public String name() {
          return "counting-liza";
        }

        @Override
        public Allocation allocate(AllocationRequest request, ZoneTableView zones) {
          return liza.allocate(request, zones);
        }
      }
      """;

  /** Compiles {@link #SOURCE} into {@code dir} against this JVM's class path. */
  private static void compilePolicy(Path dir) throws Exception {
    Path src = dir.resolve("src/example/CountingLiza.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, SOURCE);
    Path classes = dir.resolve("classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertNotNull(javac, "a JDK runs the tests");
    ByteArrayOutputStream diag = new ByteArrayOutputStream();
    int rc =
        javac.run(
            null,
            null,
            diag,
            "-cp",
            System.getProperty("java.class.path"),
            "-d",
            classes.toString(),
            src.toString());
    assertEquals(0, rc, diag.toString(StandardCharsets.UTF_8));
  }

  private static TargetConfig parse(String spec) {
    return TargetConfig.parse(spec, SampleReports.defaults());
  }

  private static int zkv(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
    return Zkv.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** {@code zkv bench compare} of LIZA and the compiled policy, found through {@code classPath}. */
  private static int benchMine(
      ByteArrayOutputStream out, ByteArrayOutputStream err, String classPath, Path report) {
    return zkv(
        out,
        err,
        "bench",
        "compare",
        "--classpath",
        classPath,
        "--config",
        "zkv:placement=liza,label=liza",
        "--config",
        "zkv:placement=class:" + POLICY + ",victim=greedy,trigger=off,label=mine",
        "--workload",
        "fillrandom",
        "--keys",
        "3000",
        "--repeat",
        "1",
        "--progress",
        "false",
        "--plots",
        "false",
        "--out",
        report.toString());
  }

  @Test
  void aPolicyFromTheClassPathOptionRunsBesideLiza(@TempDir Path tmp) throws Exception {
    compilePolicy(tmp);
    assertThrows(ClassNotFoundException.class, () -> Class.forName(POLICY));
    Path out = tmp.resolve("report");
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    String missing = tmp.resolve("nothing-here.jar").toString();
    int rc = benchMine(stdout, stderr, missing + File.pathSeparator + tmp.resolve("classes"), out);
    assertEquals(2, rc, "a --classpath entry that does not exist is a bad command line");
    assertTrue(
        stderr.toString(StandardCharsets.UTF_8).contains("nothing-here.jar does not exist"),
        stderr.toString(StandardCharsets.UTF_8));

    stderr.reset();
    rc = benchMine(stdout, stderr, tmp.resolve("classes").toString(), out);
    String text = stdout.toString(StandardCharsets.UTF_8);
    assertEquals(0, rc, text + stderr.toString(StandardCharsets.UTF_8));
    assertTrue(text.contains("--classpath " + tmp.resolve("classes")), "the command repeats it");
    String json = Files.readString(out.resolve("report.json"));
    assertTrue(json.contains("placement class:" + POLICY + ", GC trigger off"), json);
    Matcher decisions = Pattern.compile("\"policyDecisions\": (\\d+)").matcher(json);
    int runs = 0;
    while (decisions.find()) {
      assertTrue(Long.parseLong(decisions.group(1)) > 0, json);
      runs++;
    }
    assertEquals(2, runs, "one fill per configuration, each with its policy's decisions");
    // the policy's class loader is the bench's only: it was not left as the thread's
    assertThrows(
        ClassNotFoundException.class,
        () -> Class.forName(POLICY, false, Thread.currentThread().getContextClassLoader()));
  }

  @Test
  void policySettingsAreCheckedWhenTheCommandLineIsRead() {
    assertTrue(
        parse("zkv:placement=class:io.zkv.placement.LizaPolicy")
            .describe()
            .contains("placement class:io.zkv.placement.LizaPolicy"));
    assertTrue(
        parse("zkv:victim=class:io.zkv.placement.GreedyVictimPolicy")
            .describe()
            .contains("GC victims class:io.zkv.placement.GreedyVictimPolicy"));
    for (String[] bad :
        List.of(
            new String[] {"zkv:placement=class:example.Missing", "is not on the class path"},
            new String[] {
              "zkv:placement=class:java.lang.String",
              "does not implement io.zkv.placement.PlacementPolicy"
            },
            new String[] {"zkv:victim=oldest", "unknown victim policy 'oldest'"},
            new String[] {"zkv:trigger=sometimes", "unknown GC trigger 'sometimes'"},
            new String[] {
              "zkv:windows=class:io.zkv.placement.LizaPolicy",
              "does not implement io.zkv.plm.window.WindowScheduler"
            })) {
      UsageException e = assertThrows(UsageException.class, () -> parse(bad[0]));
      assertTrue(e.getMessage().contains(bad[1]), bad[0] + ": " + e.getMessage());
      assertTrue(e.getMessage().startsWith("configuration '" + bad[0] + "'"), e.getMessage());
    }
  }

  @Test
  void cazaHasRoomForTheConfigurationsTargetFileSize() {
    CazaPolicy sized =
        (CazaPolicy) parse("zkv:placement=caza,target-file-size=8M").policies().build().placement();
    assertEquals(8L << 20, sized.targetFileSize());
    CazaPolicy rocksDefault =
        (CazaPolicy) parse("zkv:placement=caza").policies().build().placement();
    assertEquals(CazaPolicy.DEFAULT_TARGET_FILE_SIZE, rocksDefault.targetFileSize());
  }

  @Test
  void aWindowSchedulerOfOnesOwnRunsWithOVigilsMechanisms() {
    String spec = "zkv:windows=class:io.zkv.plm.window.BaseScheduler";
    assertEquals("class:io.zkv.plm.window.BaseScheduler", parse(spec).windowScheduler());
    assertTrue(
        parse(spec)
            .plmArrayUri(Path.of("/tmp/x.zkvemu"))
            .startsWith("plmarray:isolate=1&defer=1&rebuild=1@emu:"),
        parse(spec).plmArrayUri(Path.of("/tmp/x.zkvemu")));
  }
}
