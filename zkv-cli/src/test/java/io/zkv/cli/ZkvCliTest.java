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
    assertTrue(cli.out().contains("usage: zkv <command>"), cli.out());
    assertTrue(cli.out().contains("demo"), cli.out());
  }

  @Test
  void helpSucceeds() {
    assertEquals(0, cli.run("help"));
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
        1,
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
    assertTrue(o.matches("(?s).*zn540 +append x2 threads +[1-9][0-9]* .*"), o);
    assertTrue(o.matches("(?s).*zn540 +write QD1 +[1-9][0-9]* .*"), o);
    assertTrue(o.contains("zone report of the last device"), o);
    assertTrue(o.contains("FULL") || o.contains("IMPLICITLY_OPEN"), o);
  }

  @Test
  void sizesAcceptSuffixes() {
    assertEquals(8192, Arguments.parseSize("8K"));
    assertEquals(1L << 20, Arguments.parseSize("1m"));
  }
}
