package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportWritersTest {
  /** Six significant digits, trailing zeros of the fraction dropped, never of the integer part. */
  @Test
  void jsonNumbersKeepTheirIntegerDigits() {
    assertEquals("170000", JsonReport.num(170000.128));
    assertEquals("123.4", JsonReport.num(123.4));
    assertEquals("100", JsonReport.num(100.00001));
    assertEquals("1.7e+15", JsonReport.num(1.7e15));
    assertEquals("42", JsonReport.num(42));
  }

  @Test
  void jsonIsWellFormedAndCarriesTheFigures() {
    String json = JsonReport.render(SampleReports.twoConfigs());
    JsonSyntax.check(json);
    assertTrue(json.contains("\"tool\": \"zkv bench\""), json);
    assertTrue(
        json.contains(
            "\"versions\": {\"zkv\": \"0.1.0-test\", \"commit\": \"0123456789ab\", \"rocksdb\":"
                + " \"9.7.3\", \"rocksdbjni\": \"9.7.3\", \"java\": \"17.0.15\", \"jvm\":"
                + " \"OpenJDK 64-Bit Server VM, Debian\"}"),
        json);
    assertTrue(json.contains("\"label\": \"A\", \"target\": \"zkv\""), json);
    assertTrue(json.contains("\"label\": \"B\", \"target\": \"rocksdb-default\""), json);
    // Run A #1: 1000 ops in 1 s, every READ at 10 us.
    assertTrue(json.contains("\"ops\": 1000, \"seconds\": 1, \"opsPerSecond\": 1000"), json);
    assertTrue(json.contains("\"READ\": {\"count\": 1000, \"avg\": 10"), json);
    // the per-interval write P99 beside the throughput timeline
    assertTrue(json.contains("\"opsPerSecond\": [1000], \"writeP99Us\": [200]}"), json);
    assertTrue(json.contains("\"writeAmplification\": 2,"), json);
    assertTrue(json.contains("\"device\": null"), json);
    // The comparison: ops/s medians 2000 and 3000, ratio 1.5.
    assertTrue(
        json.contains(
            "{\"config\": \"B\", \"median\": 3000, \"min\": 2000, \"max\": 4000, \"repeats\": 2,"
                + " \"ratio\": 1.5}"),
        json);
  }

  @Test
  void jsonWritesNaNAsNull() {
    assertEquals("null", JsonReport.num(Double.NaN));
    assertEquals("null", JsonReport.num(Double.POSITIVE_INFINITY));
    assertEquals("12", JsonReport.num(12.0));
    assertEquals("0.125", JsonReport.num(0.125));
    assertEquals("1.5e-07", JsonReport.num(1.5e-7));
  }

  @Test
  void markdownComparisonHasOneRowPerFigureAndTheRatios() {
    String md = MarkdownReport.render(SampleReports.twoConfigs());
    List<String> rows = Arrays.stream(md.split("\n")).filter(l -> l.startsWith("|")).toList();
    // header + separator + ops/s + 7 READ latency figures + WA + space amplification + zones used
    // + GC MiB + GC WA + zone space amplification + zero-copy resets % + GC runs + zones per
    // compaction + hint/own L+1 overlaps + metadata bytes per write + policy overrides + WAL zone
    // switches, waits and longest wait + writes
    assertEquals(2 + 1 + 7 + 12 + 3 + 1, rows.size(), md);
    String walWait =
        rows.stream().filter(l -> l.contains("WAL zone wait max us")).findFirst().orElseThrow();
    assertTrue(walWait.contains("250"), walWait); // 250,000 ns
    String hints =
        rows.stream().filter(l -> l.contains("hint/own L+1 overlaps")).findFirst().orElseThrow();
    assertTrue(hints.contains("1.33"), hints); // 12 hinted against 9 own overlaps
    String zeroCopy =
        rows.stream().filter(l -> l.contains("zero-copy resets %")).findFirst().orElseThrow();
    assertTrue(zeroCopy.contains("75.0"), zeroCopy); // 3 of 4 resets copied nothing
    String zoneSa =
        rows.stream().filter(l -> l.contains("zone space amplification")).findFirst().orElseThrow();
    assertTrue(zoneSa.contains("1.50"), zoneSa);
    String gcWa =
        rows.stream().filter(l -> l.contains("GC write amplification")).findFirst().orElseThrow();
    assertTrue(gcWa.contains("1.00"), gcWa);
    String overrides =
        rows.stream().filter(l -> l.contains("policy overrides")).findFirst().orElseThrow();
    assertTrue(overrides.contains(" 0.000 "), overrides);
    String meta =
        rows.stream().filter(l -> l.contains("metadata bytes per write")).findFirst().orElseThrow();
    assertTrue(meta.contains("0.040"), meta);
    assertTrue(rows.get(0).contains("A median (min-max)") && rows.get(0).contains("B / A"), md);
    assertTrue(
        md.contains(
            "- versions: zkv 0.1.0-test (commit 0123456789ab), RocksDB 9.7.3 (rocksdbjni 9.7.3),"
                + " Java 17.0.15 (OpenJDK 64-Bit Server VM, Debian)\n"),
        md);
    String opsRow = rows.get(2);
    assertTrue(
        opsRow.matches(
            "\\| fillrandom +\\| ops/s +\\| +2,000 \\(1,000-3,000\\) \\| +3,000 \\(2,000-4,000\\) \\| +1\\.50x \\|"),
        opsRow);
    String p50 = rows.stream().filter(l -> l.contains("READ p50 us")).findFirst().orElseThrow();
    assertTrue(p50.endsWith("0.50x |"), p50);
    String wa =
        rows.stream().filter(l -> l.contains("write amplification")).findFirst().orElseThrow();
    assertTrue(wa.matches(".*\\| +2\\.50 \\(2\\.00-3\\.00\\) \\| +- \\| +- \\|"), wa);
    assertTrue(md.contains("- `A`: zkv on scratch emulated device, profile instant"), md);
    assertTrue(md.contains("- `B`: RocksJava default Env"), md);
    assertTrue(md.contains("2 repeat(s), configurations in alternating order (A B, B A, ...)"), md);
    // The sample runs wrote different numbers of keys: the report says so.
    assertTrue(md.contains("- WARNING, no state parity: fillrandom wrote different keys"), md);
  }

  @Test
  void markdownForOneConfigurationListsEveryPhaseAndOperation() {
    BenchReport two = SampleReports.twoConfigs();
    BenchReport one =
        new BenchReport(
            "zkv bench",
            two.started(),
            SampleReports.settings(1),
            List.of(two.configs().get(0)),
            List.of(two.runs().get(0)),
            Comparison.figures(List.of("A"), List.of(two.runs().get(0))),
            List.of(),
            two.versions());
    String md = MarkdownReport.render(one);
    List<String> rows = Arrays.stream(md.split("\n")).filter(l -> l.startsWith("|")).toList();
    assertEquals(3, rows.size(), md);
    assertTrue(rows.get(0).contains("p99.99 us"), md);
    assertTrue(
        rows.get(2)
            .matches(
                "\\| fillrandom \\| READ +\\| +1,000 \\| +1,000 \\| +10\\.0 \\|.*\\| +2\\.00 \\| +0\\.040 \\| +1\\.25 \\| +3/60 \\| +10 \\(0\\) \\|"),
        rows.get(2));
    assertFalse(md.contains("alternating"), "one configuration: no run order to state");
    assertTrue(md.contains("- state parity: in each phase every run wrote the same keys"), md);
  }

  @Test
  void numbersKeepThreeSignificantDigits() {
    assertEquals("123,457", MarkdownReport.fmt(123456.7));
    assertEquals("12.3", MarkdownReport.fmt(12.34));
    assertEquals("1.23", MarkdownReport.fmt(1.234));
    assertEquals("0.123", MarkdownReport.fmt(0.1234));
    assertEquals("-", MarkdownReport.fmt(Double.NaN));
  }
}
