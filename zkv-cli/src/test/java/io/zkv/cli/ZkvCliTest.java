package io.zkv.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZkvCliTest {
  private final CliRun cli = new CliRun();

  @Test
  void noArgumentsPrintsUsageAndFails() {
    assertEquals(2, cli.run());
    assertTrue(cli.err().contains("usage: zkv <command>"), cli.err());
    assertTrue(cli.err().contains("demo"), cli.err());
  }

  @Test
  void helpSucceeds() {
    assertEquals(0, cli.run("help"));
    assertTrue(cli.out().contains("zkv help <command>"), cli.out());
  }

  /**
   * Every command answers -h, --help and zkv help CMD: exit 0, one option a line with its default.
   */
  @Test
  void everyCommandHasHelp() {
    for (ZkvCommand c : Zkv.commands().values()) {
      for (String[] line :
          new String[][] {{c.name(), "--help"}, {c.name(), "-h"}, {"help", c.name()}}) {
        assertEquals(0, cli.run(line), String.join(" ", line) + ": " + cli.err());
        String help = cli.out();
        assertTrue(help.startsWith("zkv " + c.name() + ": "), help);
        for (Option o : c.options()) {
          String row =
              help.lines().filter(l -> l.startsWith("  " + o.form() + " ")).findFirst().orElse("");
          assertTrue(!row.isEmpty(), c.name() + " --help lacks " + o.form() + ":\n" + help);
          assertTrue(
              o.defaultValue() == null || row.contains(o.defaultValue()),
              "the default of " + o.form() + ": " + row);
        }
        assertTrue(
            help.lines().allMatch(l -> l.startsWith("usage:") ? l.length() <= 100 : true), help);
      }
    }
    assertEquals(2, cli.run("help", "frobnicate"));
  }

  @Test
  void versionNamesZkvRocksDbAndJava() {
    assertEquals(0, cli.run("--version"));
    String v = cli.out();
    // the commit is "unknown" only in a build outside a git checkout
    assertTrue(
        v.matches(
            "(?s)zkv \\S+ \\(commit ([0-9a-f]{7,}(-dirty)?|unknown)\\)\nRocksDB (9\\.7\\.3|10\\.1\\.3)"
                + " .*\nJava .*"),
        v);
    assertTrue(!v.contains("${"), "the version was filtered in: " + v);
  }

  /** Bad command lines exit 2: a flag without its value, a malformed URI, an unknown profile. */
  @Test
  void badCommandLinesExitTwo(@TempDir Path dir) {
    String dev = "emu:" + dir.resolve("dev.zkvemu");
    assertEquals(0, cli.run("mkfs", "--device", dev, "--zones", "8", "--zone-size", "4M"));
    assertEquals(2, cli.run("ls", "--device", dev, "--prefix"));
    assertTrue(cli.err().contains("--prefix needs a value"), cli.err());
    assertEquals(2, cli.run("ls", "--device", "bogus:/x"));
    assertTrue(cli.err().contains("unsupported device URI"), cli.err());
    assertEquals(2, cli.run("ls", "--device", dev + "?profile=nosuch"));
    assertTrue(cli.err().contains("unknown timing profile 'nosuch'"), cli.err());
    assertEquals(
        2, cli.run("mkfs", "--device", "emu:" + dir.resolve("small.zkvemu"), "--zones", "4"));
    assertTrue(cli.err().contains("too few"), cli.err());
    assertEquals(2, cli.run("mkfs", "--device", "emu:" + dir.resolve("missing.zkvemu")));
    assertTrue(cli.err().contains("add --zones N"), cli.err());
  }

  @Test
  void unknownCommandIsAUsageError() {
    assertEquals(2, cli.run("frobnicate"));
    assertTrue(cli.err().contains("unknown command 'frobnicate'"), cli.err());
  }

  @Test
  void badOptionsGetSpecificMessages() {
    assertEquals(2, cli.run("device-demo", "--threads", "zero"));
    assertTrue(cli.err().contains("--threads needs a number, not 'zero'"), cli.err());
    assertEquals(2, cli.run("device-demo", "--threads", "0"));
    assertTrue(cli.err().contains("--threads must be between 1 and 64"), cli.err());
    assertEquals(2, cli.run("device-demo", "--bogus", "1"));
    assertTrue(cli.err().contains("unknown option --bogus"), cli.err());
    assertEquals(2, cli.run("device-demo", "--size", "5000"));
    assertTrue(cli.err().contains("multiple of 4096"), cli.err());
  }

  @Test
  void unknownProfileFailsWithTheKnownOnesAndLeavesNoDeviceFile(@TempDir Path dir)
      throws Exception {
    assertEquals(
        2,
        cli.run("device-demo", "--profiles", "nosuch", "--seconds", "1", "--dir", dir.toString()));
    assertTrue(cli.err().contains("unknown timing profile 'nosuch'"), cli.err());
    assertTrue(cli.err().contains("zn540"), cli.err());
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(0, left.count(), "the formatted device file of the refused profile stays");
    }
  }

  @Test
  void demoPrintsMeasuredTableAndZoneReport() {
    assertEquals(
        0,
        cli.run("device-demo", "--profiles", "instant,zn540", "--seconds", "1", "--threads", "2"));
    String o = cli.out();
    // How many operations fit in the second is the host's (none for a thread that does not run
    // in it): the rows are checked, and that the zone report shows the zones they wrote.
    long ops = count(o, "zn540 +append x2 threads") + count(o, "zn540 +write QD1");
    assertTrue(o.contains("zone report of the last device"), o);
    assertEquals(ops > 0, o.contains("FULL") || o.contains("IMPLICITLY_OPEN"), o);
  }

  /** The ops column of the table row that starts with {@code row} (a regular expression). */
  private static long count(String out, String row) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?m)^" + row + " +([0-9]+) ").matcher(out);
    assertTrue(m.find(), row + " missing: " + out);
    return Long.parseLong(m.group(1));
  }

  @Test
  void sizesAcceptSuffixes() {
    assertEquals(8192, Arguments.parseSize("8K"));
    assertEquals(1L << 20, Arguments.parseSize("1m"));
  }
}
