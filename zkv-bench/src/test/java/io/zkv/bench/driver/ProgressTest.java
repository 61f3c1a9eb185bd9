package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

  private String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void nothingForTheFirstSecondsOfAPhase() {
    Progress p = new Progress(err, true, true);
    p.start();
    p.update("zkv fillrandom", 1000, Progress.QUIET_SECONDS - 0.1, 0.5, 10_000);
    p.finish();
    assertEquals("", text());
  }

  @Test
  void aTerminalGetsABarRedrawnInPlaceAndClearedAtTheEnd() {
    Progress p = new Progress(err, true, true);
    p.start();
    p.update("zkv fillrandom", 40_000, 4, 0.5, 10_000);
    p.update("zkv fillrandom", 50_000, 5, 0.6, 10_000);
    p.finish();
    String t = text();
    assertTrue(
        t.startsWith("\r[" + "#".repeat(15) + " ".repeat(15) + "]  50% zkv fillrandom 40,000 ops"),
        t);
    assertTrue(t.contains("\r[" + "#".repeat(18) + " "), t);
    assertTrue(t.endsWith("\r\033[K"), "the bar is cleared: " + t);
    assertFalse(t.contains("\n"), "a bar never scrolls: " + t);
  }

  @Test
  void otherwisePlainLinesEveryTenSeconds() {
    Progress p = new Progress(err, false, true);
    p.start();
    p.update("rocksdb-default readrandom", 30_000, 3, Double.NaN, 10_000);
    p.update("rocksdb-default readrandom", 40_000, 4, Double.NaN, 10_000);
    p.update("rocksdb-default readrandom", 130_000, 13, Double.NaN, 10_000);
    p.finish();
    String[] lines = text().split("\n");
    assertEquals(2, lines.length, text());
    assertEquals("progress: rocksdb-default readrandom 30,000 ops, 10,000 ops/s, 3 s", lines[0]);
    assertTrue(lines[1].contains("130,000 ops"), lines[1]);
    assertFalse(text().contains("\r"), "no control characters in a log: " + text());
  }

  @Test
  void disabledPrintsNothing() {
    Progress p = new Progress(err, true, false);
    p.start();
    p.update("x", 1, 100, 0.5, 1);
    p.finish();
    assertEquals("", text());
  }
}
