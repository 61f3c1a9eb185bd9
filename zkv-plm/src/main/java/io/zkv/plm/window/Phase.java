package io.zkv.plm.window;

/**
 * Where an NVM set is in Vigil-KV's window cycle (ATC '22, section 6.2): the deterministic window
 * split into the part that serves client reads and the part that drains them, the non-deterministic
 * window split likewise for writes, and the lockdown between them.
 */
public enum Phase {
  /** Available DTWIN: serves client reads; no writes reach the set. */
  ADT,
  /**
   * Unavailable DTWIN: still deterministic, no new client reads (they are reconstructed from the
   * other sets); the reads issued before drain.
   */
  UDT,
  /** Available NDWIN: the set's held flush and compaction writes are issued; internal work runs. */
  AND,
  /** Unavailable NDWIN: no new writes; the writes issued drain before the set returns to DTWIN. */
  UND,
  /** The device flushes its write buffer on the way into DTWIN; no host I/O to the set. */
  LOCKDOWN,
  /** PLM off: no windows at all (the Base configuration). */
  OFF;

  /** Whether the set is in the deterministic window (ADT or UDT). */
  public boolean deterministic() {
    return this == ADT || this == UDT;
  }

  /** Whether the set is in the non-deterministic window (AND or UND). */
  public boolean nonDeterministic() {
    return this == AND || this == UND;
  }
}
