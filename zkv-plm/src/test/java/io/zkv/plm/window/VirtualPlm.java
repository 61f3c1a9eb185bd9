package io.zkv.plm.window;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A PLM device's sets on a virtual clock, driven by a {@link WindowScheduler} the way zkv's driver
 * will be: client reads go to sets in ADT (else they are reconstructed), held writes are issued
 * only to a set in AND, issued I/O drains at the limits' bandwidths. Seeded; every step checks the
 * schedule against the rules and records what a test asserts.
 */
final class VirtualPlm {
  static final long STEP = 1_000_000L; // 1 ms

  final int n;
  final PlmLimits limits;
  final WindowScheduler scheduler;
  final Random random;
  final long readBytesPerSecond; // client read load over all sets
  final long[] heldWritesPerSecond; // write load per set

  final Phase[] phase;
  final long[] phaseSince, dtwinSince, andSince, outRead, outWrite, held, ndwinWritten;
  final int[] ndwins;
  long reads,
      reconstructed,
      heldPeak,
      minSetsInAdt = Long.MAX_VALUE,
      longestDtwin,
      shortestNdwin = Long.MAX_VALUE;
  final List<String> violations = new ArrayList<>();

  VirtualPlm(
      int n,
      PlmLimits limits,
      WindowScheduler scheduler,
      long seed,
      long readLoad,
      long[] writeLoad) {
    this.n = n;
    this.limits = limits;
    this.scheduler = scheduler;
    this.random = new Random(seed);
    this.readBytesPerSecond = readLoad;
    this.heldWritesPerSecond = writeLoad.clone();
    phase = new Phase[n];
    Arrays.fill(phase, Phase.OFF);
    phaseSince = new long[n];
    dtwinSince = new long[n];
    andSince = new long[n];
    outRead = new long[n];
    outWrite = new long[n];
    held = new long[n];
    ndwinWritten = new long[n];
    ndwins = new int[n];
  }

  List<SetStatus> statuses() {
    List<SetStatus> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          new SetStatus(
              i,
              phase[i],
              phaseSince[i],
              dtwinSince[i],
              outRead[i],
              outWrite[i],
              held[i],
              ndwinWritten[i],
              phase[i].deterministic()));
    }
    return out;
  }

  void apply(long now, WindowDecision d) {
    for (WindowDecision.Change c : d.changes()) {
      int s = c.set();
      Phase from = phase[s], to = c.to();
      if (to == Phase.ADT && !from.deterministic()) {
        if (outWrite[s] > 0)
          violations.add(now + ": set " + s + " enters DTWIN with writes in flight");
        dtwinSince[s] = now;
      }
      if (to == Phase.AND) {
        andSince[s] = now;
        ndwinWritten[s] = 0;
        ndwins[s]++;
      }
      if (to == Phase.LOCKDOWN) {
        long ndwin = now - andSince[s];
        shortestNdwin = Math.min(shortestNdwin, ndwin);
        if (ndwin < limits.minNdwinNanos())
          violations.add(now + ": set " + s + " NDWIN of " + ndwin + " ns");
        if (outWrite[s] > 0)
          violations.add(now + ": set " + s + " leaves NDWIN with writes in flight");
      }
      if (to == Phase.AND && outRead[s] > 0)
        violations.add(now + ": set " + s + " leaves DTWIN with reads in flight");
      phase[s] = to;
      phaseSince[s] = now;
    }
  }

  /** Runs for {@code nanos} of virtual time. */
  void run(long nanos) {
    long now = 0;
    WindowDecision d = scheduler.decide(now, statuses(), limits);
    apply(now, d);
    long nextDecision = d.nextDecisionNanos();
    boolean started = false;
    for (now = STEP; now <= nanos; now += STEP) {
      boolean drained = step();
      if (now >= nextDecision || drained) {
        d = scheduler.decide(now, statuses(), limits);
        apply(now, d);
        nextDecision = d.nextDecisionNanos();
      }
      int inAdt = 0;
      for (int i = 0; i < n; i++) {
        inAdt += phase[i] == Phase.ADT ? 1 : 0;
        if (phase[i].deterministic()) {
          longestDtwin = Math.max(longestDtwin, now - dtwinSince[i]);
          if (now - dtwinSince[i] > limits.maxDtwinNanos()) {
            violations.add(now + ": set " + i + " in DTWIN beyond its maximum");
          }
        }
        heldPeak = Math.max(heldPeak, held[i]);
      }
      started |= inAdt > 0;
      if (started) minSetsInAdt = Math.min(minSetsInAdt, inAdt);
    }
  }

  /** One step of load and drains; returns whether a UDT or UND set finished draining. */
  private boolean step() {
    boolean drained = false;
    double dt = STEP / 1e9;
    long readBytes = (long) (readBytesPerSecond * dt);
    for (long b = 0; b < readBytes; b += 4096) { // 4 KiB client reads to random sets
      int s = random.nextInt(n);
      reads++;
      if (phase[s] == Phase.ADT || phase[s] == Phase.OFF) {
        outRead[s] += 4096;
      } else {
        reconstructed++;
      }
    }
    for (int s = 0; s < n; s++) {
      held[s] += (long) (heldWritesPerSecond[s] * dt * (0.5 + random.nextDouble()));
      if (phase[s] == Phase.AND
          || phase[s] == Phase.OFF) { // issue held writes, 1 MiB in flight at most
        long issue = Math.min(held[s], (1L << 20) - outWrite[s]);
        if (issue > 0) {
          held[s] -= issue;
          outWrite[s] += issue;
          ndwinWritten[s] += issue;
        }
      }
      boolean hadReads = outRead[s] > 0, hadWrites = outWrite[s] > 0;
      outRead[s] = Math.max(0, outRead[s] - (long) (limits.readBytesPerSecond() * dt));
      outWrite[s] = Math.max(0, outWrite[s] - (long) (limits.worstWriteBytesPerSecond() * dt));
      drained |=
          (phase[s] == Phase.UDT && hadReads && outRead[s] == 0)
              || (phase[s] == Phase.UND && hadWrites && outWrite[s] == 0);
    }
    return drained;
  }
}
