package io.zkv.plm.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The window schedulers' invariants as properties over seeds, set counts and loads, on a virtual
 * clock: never fewer than n-1 sets in available DTWIN, no set in DTWIN beyond the maximum, every
 * NDWIN at least the minimum, no write in flight across a DTWIN boundary, NDWIN turns fair.
 */
class WindowSchedulerTest {
  static final long S = 1_000_000_000L;
  // the paper's SSD: 60 s maximum DTWIN, 4 s minimum NDWIN; 1 GB/s per set both ways, lockdown
  // flush at 2.38 GB/s (the plm emulator's derived rate)
  static final PlmLimits PAPER =
      new PlmLimits(60 * S, 4 * S, 1_000_000_000L, 1_000_000_000L, 2_380_000_000L);

  static long[] writes(int n, long perSet) {
    long[] w = new long[n];
    Arrays.fill(w, perSet);
    return w;
  }

  void invariantsHold(Supplier<WindowScheduler> scheduler) {
    for (int n = 2; n <= 6; n++) {
      for (long seed = 1; seed <= 3; seed++) {
        // reads 400 MB/s over all sets; writes from none to more than a minimum NDWIN drains
        for (long perSet : new long[] {0, 20_000_000L, 200_000_000L}) {
          VirtualPlm plm =
              new VirtualPlm(n, PAPER, scheduler.get(), seed, 400_000_000L, writes(n, perSet));
          plm.run(240 * S);
          String where =
              scheduler.get().name() + " n=" + n + " seed=" + seed + " writes/set=" + perSet;
          assertEquals(List.of(), plm.violations, where);
          assertTrue(plm.minSetsInAdt >= n - 1, where + ": " + plm.minSetsInAdt + " sets in ADT");
          assertTrue(plm.longestDtwin <= PAPER.maxDtwinNanos(), where);
          assertTrue(plm.shortestNdwin >= PAPER.minNdwinNanos(), where);
          int min = Arrays.stream(plm.ndwins).min().orElseThrow();
          int max = Arrays.stream(plm.ndwins).max().orElseThrow();
          assertTrue(
              min >= 1 && max - min <= 1, where + ": NDWIN turns " + Arrays.toString(plm.ndwins));
        }
      }
    }
  }

  @Test
  void roundRobinVigilKeepsTheWindowRules() {
    invariantsHold(RoundRobinVigil::new);
  }

  @Test
  void adaptiveVigilKeepsTheWindowRulesAlsoWhenItExtends() {
    invariantsHold(() -> new AdaptiveVigil(64L << 20));
  }

  /** O-Vigil extends NDWINs under a backlog R-Vigil's minimum NDWINs cannot drain: less held. */
  @Test
  void adaptiveVigilDrainsABacklogThatRoundRobinLetsGrow() {
    int n = 4;
    long[] load = writes(n, 350_000_000L); // per set: more than 1 of 4 minimum NDWINs can write
    VirtualPlm r = new VirtualPlm(n, PAPER, new RoundRobinVigil(), 7, 100_000_000L, load);
    VirtualPlm o = new VirtualPlm(n, PAPER, new AdaptiveVigil(64L << 20), 7, 100_000_000L, load);
    r.run(300 * S);
    o.run(300 * S);
    assertEquals(List.of(), o.violations);
    long heldR = Arrays.stream(r.held).sum(), heldO = Arrays.stream(o.held).sum();
    assertTrue(heldO < heldR, "held after 300 s: o-vigil " + heldO + " vs r-vigil " + heldR);
    assertTrue(o.longestDtwin <= PAPER.maxDtwinNanos());
  }

  /** Without load both Vigils keep every NDWIN at the minimum: no extension without a backlog. */
  @Test
  void withoutABacklogBothVigilsUseMinimumNdwins() {
    for (WindowScheduler s : new WindowScheduler[] {new RoundRobinVigil(), new AdaptiveVigil(0)}) {
      VirtualPlm plm = new VirtualPlm(3, PAPER, s, 1, 0, writes(3, 0));
      plm.run(120 * S);
      assertEquals(List.of(), plm.violations, s.name());
      assertTrue(plm.shortestNdwin >= PAPER.minNdwinNanos());
      // turns of about the minimum NDWIN: 120 s hold at least 120 / 4.1 - 1 of them
      assertTrue(
          Arrays.stream(plm.ndwins).sum() >= 28, s.name() + " " + Arrays.toString(plm.ndwins));
    }
  }

  static List<SetStatus> cycle(Phase[] phases, int stray) {
    List<SetStatus> out = new java.util.ArrayList<>();
    for (int i = 0; i < phases.length; i++) {
      out.add(
          new SetStatus(i, phases[i], 0, 0, 0, 0, 0, 0, i != stray && phases[i].deterministic()));
    }
    return out;
  }

  static List<WindowDecision.Change> changes(WindowScheduler s, long now, Phase[] p, int stray) {
    return s.decide(now, cycle(p, stray), PAPER).changes();
  }

  /**
   * A set a forced write (or the device) took out of DTWIN while the cycle had it in ADT is taken
   * next, straight into AND: between turns, instead of a turn still in UDT, and an NDWIN under way
   * ends at its minimum rather than being extended while two sets are out of DTWIN.
   */
  @Test
  void aSetThatLeftDtwinOnItsOwnIsTakenNext() {
    Phase adt = Phase.ADT;
    for (Supplier<WindowScheduler> make :
        List.<Supplier<WindowScheduler>>of(RoundRobinVigil::new, () -> new AdaptiveVigil(0))) {
      WindowScheduler s = make.get();
      Phase[] p = {Phase.OFF, Phase.OFF, Phase.OFF};
      assertEquals(3, changes(s, 0, p, -1).size()); // PLM on, all ADT
      p = new Phase[] {adt, adt, adt};
      assertEquals(List.of(new WindowDecision.Change(2, Phase.AND)), changes(s, 1, p, 2));
      // its turn runs as any other: AND, UND, LOCKDOWN, then the round robin goes on after it
      p = new Phase[] {adt, adt, Phase.AND};
      assertEquals(
          List.of(new WindowDecision.Change(2, Phase.UND)), changes(s, 5 * S, p, -1), s.name());
      p = new Phase[] {adt, adt, Phase.UND};
      assertEquals(List.of(new WindowDecision.Change(2, Phase.LOCKDOWN)), changes(s, 5 * S, p, -1));
      p = new Phase[] {adt, adt, Phase.LOCKDOWN};
      assertEquals(
          List.of(new WindowDecision.Change(2, adt), new WindowDecision.Change(0, Phase.UDT)),
          changes(s, 6 * S, p, -1));
      // set 1 strays while set 0 is in UDT: set 0 gives way
      p = new Phase[] {Phase.UDT, adt, adt};
      assertEquals(
          List.of(new WindowDecision.Change(0, adt), new WindowDecision.Change(1, Phase.AND)),
          changes(s, 6 * S, p, 1));
      // set 0 strays during set 1's NDWIN: no extension past the minimum (AdaptiveVigil(0) would
      // extend any backlog), set 1 goes to UND at its planned end
      p = new Phase[] {adt, Phase.AND, adt};
      List<SetStatus> st = cycle(p, 0);
      st.set(1, new SetStatus(1, Phase.AND, 6 * S, 0, 0, 0, 1L << 30, 0, false));
      assertEquals(
          List.of(new WindowDecision.Change(1, Phase.UND)),
          s.decide(11 * S, st, PAPER).changes(),
          s.name());
    }
  }

  @Test
  void baseTurnsPlmOffOnceAndNeverDecidesAgain() {
    List<SetStatus> windowed = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      windowed.add(new SetStatus(i, i == 2 ? Phase.AND : Phase.ADT, 0, 0, 0, 0, 0, 0, i != 2));
    }
    WindowDecision d = new BaseScheduler().decide(0, windowed, PAPER);
    assertEquals(4, d.changes().size());
    assertTrue(d.changes().stream().allMatch(c -> c.to() == Phase.OFF));
    assertEquals(Long.MAX_VALUE, d.nextDecisionNanos());
    VirtualPlm plm =
        new VirtualPlm(4, PAPER, new BaseScheduler(), 1, 100_000_000L, writes(4, 1L << 20));
    plm.run(10 * S);
    assertTrue(Arrays.stream(plm.phase).allMatch(p -> p == Phase.OFF));
    assertEquals(0, plm.reconstructed); // every read goes to its set
  }

  /**
   * The PLM rung's simple driver: PLM on and DTWIN for every set at once; a set a write took out of
   * DTWIN is asked back only after the device's minimum NDWIN (an earlier request would wait in the
   * device).
   */
  @Test
  void simplePlmAsksForDtwinAgainAfterTheMinimumNdwin() {
    SimplePlm plm = new SimplePlm();
    List<SetStatus> off = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      off.add(new SetStatus(i, Phase.OFF, 0, 0, 0, 0, 0, 0, false));
    }
    WindowDecision start = plm.decide(0, off, PAPER);
    assertEquals(3, start.changes().size());
    assertTrue(start.changes().stream().allMatch(c -> c.to() == Phase.ADT));
    List<SetStatus> broken = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      broken.add(new SetStatus(i, Phase.ADT, 0, 0, 0, 0, 0, 0, i != 1));
    }
    long t = 10 * S;
    assertTrue(plm.decide(t, broken, PAPER).changes().isEmpty(), "set 1 just seen out of DTWIN");
    long before = t + PAPER.minNdwinNanos() - 1;
    assertTrue(plm.decide(before, broken, PAPER).changes().isEmpty(), "not before the minimum");
    WindowDecision again = plm.decide(t + PAPER.minNdwinNanos(), broken, PAPER);
    assertEquals(List.of(new WindowDecision.Change(1, Phase.ADT)), again.changes());
    assertTrue(again.nextDecisionNanos() < t + 2 * PAPER.minNdwinNanos());
  }

  @Test
  void limitsAndThresholdsAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> new PlmLimits(4 * S, 4 * S, 1, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new PlmLimits(60 * S, 4 * S, 0, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new AdaptiveVigil(-1));
  }
}
