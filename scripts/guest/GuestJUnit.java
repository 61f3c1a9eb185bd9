import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.console.ConsoleLauncher;

/**
 * Runs the guest's JUnit steps in ONE JVM: starting a JVM and the JUnit launcher costs about ten
 * seconds in the emulated guest, so the steps share one. Each step is a console launcher run with
 * its own value of the system property {@code zkv.test.device}, which the guest tests read when
 * they open their device. Compiled and started by scripts/guest/test-in-guest.sh and guest-tests.sh
 * with the launcher jar and the test class path on the class path; ConsoleLauncher.run(out, err,
 * args) is the public method behind the launcher's main (JUnit Platform 1.10).
 *
 * <p>Arguments: RESULTS_DIR, then for each step NAME DEVICE_URI CLASS_LIST_FILE (one test class per
 * line). Exit code 0 when every step passed.
 */
public final class GuestJUnit {
  public static void main(String[] args) throws Exception {
    if (args.length < 4 || (args.length - 1) % 3 != 0) {
      System.err.println("usage: GuestJUnit RESULTS_DIR (NAME DEVICE_URI CLASS_LIST_FILE)...");
      System.exit(2);
    }
    Path results = Path.of(args[0]);
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    List<String> failed = new ArrayList<>();
    for (int i = 1; i < args.length; i += 3) {
      String name = args[i];
      String uri = args[i + 1];
      String title = name + " on " + uri;
      List<String> launcherArgs =
          new ArrayList<>(
              List.of(
                  "execute",
                  "--disable-banner",
                  "--disable-ansi-colors",
                  "--details=tree",
                  "--fail-if-no-tests",
                  // Only Jupiter: looking for Vintage and Suite tests doubled the start-up.
                  "--include-engine=junit-jupiter",
                  "--include-tag=guest",
                  "--reports-dir=" + results.resolve("junit-" + title.replaceAll("\\W+", "-"))));
      for (String testClass : Files.readAllLines(Path.of(args[i + 2]))) {
        if (!testClass.isBlank()) {
          launcherArgs.add("--select-class=" + testClass.strip());
        }
      }
      System.out.println("== guest: " + title);
      System.setProperty("zkv.test.device", uri);
      long start = System.nanoTime();
      int code = ConsoleLauncher.run(out, err, launcherArgs.toArray(String[]::new)).getExitCode();
      long seconds = (System.nanoTime() - start) / 1_000_000_000L;
      System.out.printf("== guest: %s: %s (%ds)%n", title, code == 0 ? "passed" : "FAILED", seconds);
      if (code != 0) {
        failed.add(title);
      }
    }
    failed.forEach(t -> System.out.println("== guest: FAILED: " + t));
    System.exit(failed.isEmpty() ? 0 : 1);
  }
}
