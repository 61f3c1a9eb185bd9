package io.zkv.placement;

import java.util.List;

/**
 * ZenFS's zone and token rules, the building blocks every placement policy needs, for policies of
 * your own as for the built-in ones (which use exactly these): which zones a writer may take, which
 * empty zone ZenFS's {@code AllocateEmptyZone} picks, whether garbage collection could free a zone,
 * and how many open tokens a file may use. Pure functions of the view; safe from any thread.
 */
public final class ZenFsZoneRules {
  private ZenFsZoneRules() {}

  /** An I/O zone that ZenFS's {@code Zone::Acquire()} would grant: not reserved, not busy. */
  public static boolean acquirable(ZoneInfo z) {
    return z.isIoZone() && !z.busy();
  }

  /** Neither empty nor full in ZenFS's sense ({@code !(IsEmpty() || IsFull())}). */
  public static boolean isPartlyWritten(ZoneInfo z) {
    return z.isWritable() && z.written() > 0;
  }

  /**
   * Whether a written zone may take more of a file of this kind: where the device binds zones to an
   * I/O class (a {@code plmarray:}) or the WAL is in ZWAL mode (WAL zones apart), only zones of the
   * file's class (WAL or data); elsewhere every zone's class is {@link ZoneIoClass#NONE}. ZenFS has
   * no such classes; without this rule the file system overrides a choice of a zone of the other
   * class.
   */
  public static boolean servesClass(ZoneInfo z, FileKind kind) {
    ZoneIoClass wanted = kind.isWal() ? ZoneIoClass.WAL : ZoneIoClass.DATA;
    return z.ioClass() == ZoneIoClass.NONE || z.ioClass() == wanted;
  }

  /**
   * The open tokens a file of this kind may use ({@code WaitForOpenIOZoneToken(prioritized)}): the
   * WAL all of {@link ZoneTokens#maxOpenIo()}, every other file one fewer, so the last open token
   * stays for the WAL.
   */
  public static int openTokenLimit(ZoneTokens tokens, FileKind kind) {
    return kind.isWal() ? tokens.maxOpenIo() : tokens.maxOpenIo() - 1;
  }

  /**
   * {@code AllocateEmptyZone}: the first empty I/O zone not held by a writer, or -1. ZenFS keeps no
   * reserve of its own; in zkv the file system keeps {@link ZoneTableView#emptyZonesKept()} empty
   * zones from data writers, and places a write asked into one of them by its reserve rules
   * (counted as a {@code RESERVE} override, never refused while the device can take it).
   */
  public static int firstEmptyZone(ZoneTableView zones) {
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (acquirable(z) && z.isEmpty()) {
        return i;
      }
    }
    return -1;
  }

  /**
   * {@link #firstEmptyZone}, but -1 also when every empty zone is one the file system keeps from
   * data writers ({@link ZoneTableView#emptyZonesKept()}): for a policy that would rather answer
   * NeedGc and have garbage collection clean than have the file system's reserve rules place the
   * write without regard to the policy.
   */
  public static int firstEmptyZoneBeyondReserves(ZoneTableView zones) {
    int empty = 0; // as ZoneTableView#emptyZonesAvailable counts them
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (z.isIoZone() && !z.busy() && z.isEmpty()) {
        empty++;
      }
    }
    return empty <= zones.emptyZonesKept() ? -1 : firstEmptyZone(zones);
  }

  /**
   * True if resetting or GC could produce an empty zone: a zone not held by a writer that is full
   * (or in {@code finished}, about to be) with less live data than capacity, or partly written with
   * no live data left (ZenFS's {@code ResetUnusedIOZones} resets it without copying).
   */
  public static boolean reclaimable(ZoneTableView zones, List<Integer> finished) {
    for (int i = 0; i < zones.zoneCount(); i++) {
      ZoneInfo z = zones.zone(i);
      if (!acquirable(z)) {
        continue;
      }
      boolean full = z.condition() == ZoneCondition.FULL || finished.contains(i);
      if (full && z.liveBytes() < z.capacity()) {
        return true;
      }
      if (isPartlyWritten(z) && z.liveBytes() == 0) {
        return true;
      }
    }
    return false;
  }
}
