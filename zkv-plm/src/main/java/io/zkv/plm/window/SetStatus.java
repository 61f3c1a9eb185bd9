package io.zkv.plm.window;

/**
 * One NVM set as the scheduler sees it at a decision.
 *
 * @param set the set's index, 0..n-1
 * @param phase where it is in the window cycle
 * @param phaseSinceNanos when it entered that phase
 * @param dtwinSinceNanos when it last entered DTWIN (for the maximum DTWIN)
 * @param outstandingReadBytes client reads issued to it and not completed
 * @param outstandingWriteBytes writes issued to it and not completed
 * @param heldWriteBytes flush and compaction writes for it held until its NDWIN (the backlog)
 * @param ndwinWrittenBytes bytes written to it in its current or last NDWIN (the lockdown grows
 *     with them)
 * @param inDeviceDtwin whether the set is in DTWIN as far as the host knows: false once a write
 *     reached it there and ended it, even while its phase is still ADT
 */
public record SetStatus(
    int set,
    Phase phase,
    long phaseSinceNanos,
    long dtwinSinceNanos,
    long outstandingReadBytes,
    long outstandingWriteBytes,
    long heldWriteBytes,
    long ndwinWrittenBytes,
    boolean inDeviceDtwin) {}
