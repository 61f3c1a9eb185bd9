package io.zkv.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ZkvCliTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Zkv.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void noArgumentsPrintsUsageAndFails() {
    assertEquals(2, run());
    assertTrue(out().contains("usage: zkv <command>"), out());
    assertTrue(out().contains("demo"), out());
  }

  @Test
  void helpSucceeds() {
    assertEquals(0, run("help"));
  }

  @Test
  void unknownCommandIsAUsageError() {
    assertEquals(2, run("frobnicate"));
    assertTrue(err().contains("unknown command 'frobnicate'"), err());
  }

  @Test
  void badOptionsGetSpecificMessages() {
    assertEquals(2, run("device-demo", "--threads", "zero"));
    assertTrue(err().contains("--threads needs a number, not 'zero'"), err());
    assertEquals(2, run("device-demo", "--threads", "0"));
    assertTrue(err().contains("--threads must be between 1 and 64"), err());
    assertEquals(2, run("device-demo", "--bogus", "1"));
    assertTrue(err().contains("unknown option --bogus"), err());
    assertEquals(2, run("device-demo", "--size", "5000"));
    assertTrue(err().contains("multiple of 4096"), err());
  }

  @Test
  void unknownProfileFailsWithTheKnownOnes() {
    assertEquals(1, run("device-demo", "--profiles", "nosuch", "--seconds", "1"));
    assertTrue(err().contains("unknown timing profile 'nosuch'"), err());
    assertTrue(err().contains("zn540"), err());
  }

  @Test
  void demoPrintsMeasuredTableAndZoneReport() {
    assertEquals(
        0, run("device-demo", "--profiles", "instant,zn540", "--seconds", "1", "--threads", "2"));
    String o = out();
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
