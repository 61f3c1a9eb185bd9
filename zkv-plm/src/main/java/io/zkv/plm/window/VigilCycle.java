package io.zkv.plm.window;

import java.util.ArrayList;
import java.util.List;

/**
 * Vigil-KV's {@code devd} cycle (ATC '22, section 6.2, digest 3.6): n-1 sets in available DTWIN at
 * every instant; one set at a time, round robin, goes UDT (its outstanding reads drain) → AND (its
 * held writes are issued) → UND (issued writes drain) → lockdown → back to ADT, and the next set
 * starts at once. An NDWIN (AND + UND) lasts at least the device's minimum; AND ends early enough
 * for the estimated UND to fit. Subclasses decide only whether an NDWIN goes on past its planned
 * end ({@link #extend}); the extension is bounded so that every other set still leaves DTWIN before
 * its maximum.
 *
 * <p>A set that left DTWIN on its own while the cycle had it in ADT (a write the array had to force
 * through a full buffer, or the device's own exit) is a stray: two sets are then out of DTWIN and
 * reads of either cannot be rebuilt. The cycle takes a stray's turn next, ahead of the round robin,
 * straight into AND (it is in NDWIN already), brings it back to DTWIN the usual way, and ends an
 * NDWIN in progress at its minimum instead of extending it; a turn still in UDT gives way to it
 * (UDT has sent nothing to the device).
 *
 * <p>Stateful (the round-robin position and the current set's NDWIN start): one instance per
 * device.
 */
public abstract class VigilCycle implements WindowScheduler {
  private int next; // the set whose turn comes next
  private int current = -1; // the set outside ADT, or -1
  private long ndwinStart;
  private long lockdownEnd;

  /**
   * Whether set {@code s}, in AND past its planned end, keeps its NDWIN (its held writes still
   * drain).
   */
  protected abstract boolean extend(SetStatus s, PlmLimits limits);

  /** The NDWIN length a set is planned with: the device's minimum. */
  protected long plannedNdwinNanos(SetStatus s, PlmLimits limits) {
    return limits.minNdwinNanos();
  }

  @Override
  public final WindowDecision decide(long now, List<SetStatus> sets, PlmLimits limits) {
    List<WindowDecision.Change> changes = new ArrayList<>();
    boolean starting = false;
    for (SetStatus s : sets) { // PLM on: every set starts in DTWIN
      if (s.phase() == Phase.OFF) {
        changes.add(new WindowDecision.Change(s.set(), Phase.ADT));
        starting = true;
      }
    }
    if (starting) {
      current = -1;
      next = 0;
      return new WindowDecision(changes, now);
    }
    if (current < 0) {
      return startTurn(now, sets, limits, changes);
    }
    SetStatus s = sets.get(current);
    int stray = stray(sets);
    switch (s.phase()) {
      case UDT:
        if (stray >= 0) { // give way: this set has not left DTWIN yet
          changes.add(new WindowDecision.Change(current, Phase.ADT));
          current = -1;
          return startTurn(now, sets, limits, changes);
        }
        if (s.outstandingReadBytes() > 0) {
          return new WindowDecision(changes, now + limits.readDrainNanos(s.outstandingReadBytes()));
        }
        changes.add(new WindowDecision.Change(current, Phase.AND));
        ndwinStart = now;
        return new WindowDecision(changes, andEnd(s, limits));
      case AND:
        long end = andEnd(s, limits);
        if (now < end) {
          return new WindowDecision(changes, end);
        }
        if (stray < 0 && extend(s, limits)) {
          long cap =
              latestNdwinEnd(now, sets, limits) - limits.writeDrainNanos(s.outstandingWriteBytes());
          if (now < cap) { // look again after a quarter of the minimum NDWIN
            return new WindowDecision(changes, Math.min(cap, now + limits.minNdwinNanos() / 4));
          }
        }
        changes.add(new WindowDecision.Change(current, Phase.UND));
        return new WindowDecision(changes, undEnd(now, s, limits));
      case UND:
        long undEnd = undEnd(now, s, limits);
        if (s.outstandingWriteBytes() > 0 || now < undEnd) {
          return new WindowDecision(changes, undEnd);
        }
        changes.add(new WindowDecision.Change(current, Phase.LOCKDOWN));
        lockdownEnd = now + limits.lockdownNanos(s.ndwinWrittenBytes());
        return new WindowDecision(changes, lockdownEnd);
      case LOCKDOWN:
        if (now < lockdownEnd) {
          return new WindowDecision(changes, lockdownEnd);
        }
        changes.add(new WindowDecision.Change(current, Phase.ADT));
        next = (current + 1) % sets.size();
        current = -1;
        return startTurn(now, sets, limits, changes);
      default:
        throw new IllegalStateException(
            "set " + current + " is in " + s.phase() + " during its turn (expected UDT..LOCKDOWN)");
    }
  }

  /** A set in ADT for the cycle that is not in DTWIN on the device, or -1. */
  private int stray(List<SetStatus> sets) {
    for (SetStatus x : sets) {
      if (x.set() != current && x.phase() == Phase.ADT && !x.inDeviceDtwin()) {
        return x.set();
      }
    }
    return -1;
  }

  /**
   * The next set stops taking client reads: a stray first, straight into AND; else the next in
   * round-robin order.
   */
  private WindowDecision startTurn(
      long now, List<SetStatus> sets, PlmLimits limits, List<WindowDecision.Change> changes) {
    if (sets.size() < 2) { // one set cannot be read around: it stays in DTWIN
      return new WindowDecision(changes, Long.MAX_VALUE);
    }
    int stray = stray(sets);
    if (stray >= 0) {
      current = stray;
      next = stray;
      changes.add(new WindowDecision.Change(current, Phase.AND));
      ndwinStart = now;
      return new WindowDecision(changes, andEnd(sets.get(current), limits));
    }
    current = next;
    changes.add(new WindowDecision.Change(current, Phase.UDT));
    long drain = limits.readDrainNanos(sets.get(current).outstandingReadBytes());
    return new WindowDecision(changes, now + drain);
  }

  /** AND ends when the planned NDWIN minus the estimated UND has passed. */
  private long andEnd(SetStatus s, PlmLimits limits) {
    return ndwinStart
        + plannedNdwinNanos(s, limits)
        - limits.writeDrainNanos(s.outstandingWriteBytes());
  }

  /** UND lasts until the issued writes drained and the NDWIN reached the device's minimum. */
  private long undEnd(long now, SetStatus s, PlmLimits limits) {
    return Math.max(
        now + limits.writeDrainNanos(s.outstandingWriteBytes()),
        ndwinStart + limits.minNdwinNanos());
  }

  /**
   * The latest end of the current NDWIN that still lets every other set leave DTWIN before its
   * maximum: a set k turns after this one waits for k-1 more turns of at least the minimum NDWIN
   * plus a lockdown of what a minimum NDWIN can write, with 10% to spare.
   */
  private long latestNdwinEnd(long now, List<SetStatus> sets, PlmLimits limits) {
    int n = sets.size();
    long minWrite = (long) (limits.minNdwinNanos() / 1e9 * limits.worstWriteBytesPerSecond());
    long turn = limits.minNdwinNanos() + limits.lockdownNanos(minWrite);
    long latest = Long.MAX_VALUE;
    for (int k = 1; k < n; k++) {
      SetStatus x = sets.get((current + k) % n);
      long deadline = x.dtwinSinceNanos() + limits.maxDtwinNanos();
      long lockdownNow = limits.lockdownNanos(sets.get(current).ndwinWrittenBytes() + minWrite);
      long needed = (k - 1) * turn + lockdownNow;
      latest = Math.min(latest, deadline - needed - (deadline - now) / 10);
    }
    return latest;
  }
}
