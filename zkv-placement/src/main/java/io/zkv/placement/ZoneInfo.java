package io.zkv.placement;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One zone as the placement policy sees it: an immutable snapshot, checked for consistency on
 * construction so that a policy can trust it.
 *
 * @param index zone number (0-based, device order)
 * @param capacity writable bytes of the zone (NVMe zone capacity, which may be below zone size)
 * @param written bytes written since the last reset: the write pointer's offset from the zone
 *     start, when the zone was finished for a finished zone
 * @param liveBytes bytes of extents that still belong to files (ZenFS's {@code used_capacity_});
 *     {@code written - liveBytes} is garbage
 * @param condition the zone's state
 * @param lifetime lifetime assigned to the zone when it was opened empty ({@link
 *     WriteLifetime#NOT_SET} after a reset), as ZenFS's {@code Zone::lifetime_}
 * @param reservation whether the zone is set aside from file placement
 * @param busy held by a writer (or a GC migration) right now; ZenFS's busy flag, which makes {@code
 *     Zone::Acquire()} fail so that allocation scans skip the zone
 * @param tag optional integer chosen by the policy that opened the zone (ZoneKV: its lifetime
 *     class, which {@link WriteLifetime} cannot express); cleared on reset
 * @param ioClass the I/O class the zone's writes carry (a {@code plmarray:} binds each zone to
 *     one), {@link ZoneIoClass#NONE} while empty or not known
 * @param owner the id of the file whose writer holds the zone, if one does (a busy zone without an
 *     owner is GC's)
 */
public record ZoneInfo(
    int index,
    long capacity,
    long written,
    long liveBytes,
    ZoneCondition condition,
    WriteLifetime lifetime,
    ZoneReservation reservation,
    boolean busy,
    OptionalInt tag,
    ZoneIoClass ioClass,
    OptionalLong owner) {

  /** Checks the invariants of a ZNS zone and of extent accounting. */
  public ZoneInfo {
    Objects.requireNonNull(condition, "condition");
    Objects.requireNonNull(lifetime, "lifetime");
    Objects.requireNonNull(reservation, "reservation");
    Objects.requireNonNull(tag, "tag");
    Objects.requireNonNull(ioClass, "ioClass");
    Objects.requireNonNull(owner, "owner");
    String z = "zone " + index + ": ";
    if (index < 0) {
      throw new IllegalArgumentException("zone index must be >= 0, not " + index);
    }
    if (capacity < 0 || (capacity == 0 && condition != ZoneCondition.OFFLINE)) {
      throw new IllegalArgumentException(z + "capacity must be > 0 bytes, not " + capacity);
    }
    if (written < 0 || written > capacity) {
      throw new IllegalArgumentException(
          z + "written bytes " + written + " outside 0.." + capacity + " (capacity)");
    }
    if (liveBytes < 0 || liveBytes > written) {
      throw new IllegalArgumentException(
          z + "live bytes " + liveBytes + " outside 0.." + written + " (written)");
    }
    switch (condition) {
      case EMPTY -> {
        if (written != 0) {
          throw new IllegalArgumentException(z + "EMPTY but " + written + " bytes written");
        }
      }
      case OPEN -> {
        if (written == capacity) {
          throw new IllegalArgumentException(z + "OPEN but written to capacity (would be FULL)");
        }
      }
      case CLOSED -> {
        if (written == 0 || written == capacity) {
          throw new IllegalArgumentException(
              z + "CLOSED needs 0 < written < capacity, has " + written + " of " + capacity);
        }
      }
      case READ_ONLY, OFFLINE -> {
        if (busy) {
          throw new IllegalArgumentException(z + condition + " cannot be held by a writer");
        }
      }
      case FULL -> {
        // A writer may still hold a zone it just filled until it releases it.
      }
    }
  }

  /** Bytes that can still be written: {@code capacity - written} if writable, else 0. */
  public long remaining() {
    return condition.isWritable() ? capacity - written : 0;
  }

  /** Bytes written but no longer referenced by any file. */
  public long garbageBytes() {
    return written - liveBytes;
  }

  /** True if the zone can take more writes. */
  public boolean isWritable() {
    return condition.isWritable();
  }

  /**
   * True if nothing was written since the last reset (ZenFS's {@code IsEmpty}: write pointer at
   * zone start); an explicitly opened zone with nothing written counts.
   */
  public boolean isEmpty() {
    return condition.isWritable() && written == 0;
  }

  /**
   * True if the zone holds an active token: OPEN or CLOSED, or held by a writer. A writer's zone
   * keeps its token until the writer releases it, as ZenFS's counter does.
   */
  public boolean holdsActiveToken() {
    return busy || condition == ZoneCondition.OPEN || condition == ZoneCondition.CLOSED;
  }

  /** True for an ordinary, usable I/O zone: not reserved, not offline. */
  public boolean isIoZone() {
    return reservation == ZoneReservation.NONE && condition != ZoneCondition.OFFLINE;
  }
}
