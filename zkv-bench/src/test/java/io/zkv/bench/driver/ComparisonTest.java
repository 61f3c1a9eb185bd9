package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ComparisonTest {
  @Test
  void roundsAlternateTheOrder() {
    List<Comparison.Slot> order = Comparison.schedule(2, 3);
    assertEquals(
        List.of(
            new Comparison.Slot(0, 0),
            new Comparison.Slot(1, 0),
            new Comparison.Slot(1, 1),
            new Comparison.Slot(0, 1),
            new Comparison.Slot(0, 2),
            new Comparison.Slot(1, 2)),
        order);
    List<Comparison.Slot> three = Comparison.schedule(3, 2);
    assertEquals(List.of(0, 1, 2, 2, 1, 0), three.stream().map(Comparison.Slot::config).toList());
    assertThrows(IllegalArgumentException.class, () -> Comparison.schedule(0, 1));
  }

  @Test
  void spreadTakesTheMedianMinAndMaxIgnoringNaN() {
    Comparison.Spread odd = Comparison.Spread.of(List.of(5.0, 1.0, 3.0));
    assertEquals(3.0, odd.median());
    assertEquals(1.0, odd.min());
    assertEquals(5.0, odd.max());
    assertEquals(3, odd.count());
    Comparison.Spread even = Comparison.Spread.of(List.of(4.0, 1.0, 2.0, 10.0));
    assertEquals(3.0, even.median(), "mean of the middle two");
    Comparison.Spread withNaN = Comparison.Spread.of(List.of(Double.NaN, 7.0));
    assertEquals(7.0, withNaN.median());
    assertEquals(1, withNaN.count());
    assertEquals(0, Comparison.Spread.of(List.of(Double.NaN)).count());
  }

  @Test
  void ratiosAreMediansOverTheFirstConfigurationsMedian() {
    BenchReport r = SampleReports.twoConfigs();
    Comparison.Figure ops = find(r.figures(), "ops/s");
    assertTrue(ops.higherIsBetter());
    // A: 1000, 3000 -> median 2000; B: 4000, 2000 -> median 3000.
    assertEquals(2000, ops.spreads().get(0).median());
    assertEquals(1000, ops.spreads().get(0).min());
    assertEquals(3000, ops.spreads().get(1).median());
    assertEquals(1.0, ops.ratio(0));
    assertEquals(1.5, ops.ratio(1), 1e-12);
    Comparison.Figure p50 = find(r.figures(), "READ p50 us");
    assertFalse(p50.higherIsBetter());
    assertEquals(0.5, p50.ratio(1), 0.001, "5 us over 10 us");
    Comparison.Figure wa = find(r.figures(), "write amplification");
    assertEquals(2.5, wa.spreads().get(0).median());
    assertNull(wa.spreads().get(1), "the default Env has no zone counters");
    assertTrue(Double.isNaN(wa.ratio(1)));
  }

  @Test
  void aFigureNoConfigurationHasIsLeftOut() {
    // A read-only phase on zkv: no user bytes, so write amplification is NaN in every repeat.
    DeviceFigures noWrites =
        new DeviceFigures(
            0,
            0,
            0,
            0,
            0,
            Double.NaN,
            Double.NaN,
            3,
            60,
            1.1,
            0,
            0,
            0,
            0,
            0,
            0,
            Double.NaN,
            Double.NaN,
            io.zkv.fs.HintOverlapCounts.NONE,
            java.util.Map.of(),
            WalZoneCounts.NONE);
    List<RunResult> runs =
        List.of(SampleReports.run("A", 1, SampleReports.phase("readrandom", 10, 1, 5, noWrites)));
    List<Comparison.Figure> figures = Comparison.figures(List.of("A"), runs);
    assertTrue(figures.stream().noneMatch(f -> f.name().equals("write amplification")));
    assertEquals(1.1, find(figures, "space amplification").spreads().get(0).median());
  }

  @Test
  void writesAreAFigureAndRunsThatWroteDifferentKeysAreReported() {
    BenchReport r = SampleReports.twoConfigs();
    Comparison.Figure writes = find(r.figures(), "writes");
    assertEquals(2000, writes.spreads().get(0).median());
    // The sample runs wrote 1000/3000 and 4000/2000 keys: no parity, each variant named.
    List<String> problems = Comparison.parityProblems(r.runs());
    assertEquals(1, problems.size());
    assertTrue(problems.get(0).startsWith("fillrandom wrote different keys"), problems.get(0));
    assertTrue(problems.get(0).contains("A #1") && problems.get(0).contains("B #2"));
    List<RunResult> equal =
        List.of(
            SampleReports.run("A", 1, SampleReports.phase("fillrandom", 1000, 1, 10, null)),
            SampleReports.run("B", 1, SampleReports.phase("fillrandom", 1000, 2, 5, null)));
    assertEquals(List.of(), Comparison.parityProblems(equal));
  }

  @Test
  void aRunOfAnUnknownConfigurationIsRefused() {
    List<RunResult> runs = List.of(SampleReports.run("C", 1));
    assertThrows(IllegalArgumentException.class, () -> Comparison.figures(List.of("A"), runs));
  }

  static Comparison.Figure find(List<Comparison.Figure> figures, String name) {
    return figures.stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
  }
}
