package io.zkv.placement;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A placement decision: every outcome ZenFS's allocator can reach, made explicit so the file system
 * carries it out and a test can check it without threads.
 *
 * <p>Each decision first lists zones to <em>finish</em>, in order ({@link #finishFirst()}); the
 * file system finishes them (each returns an active token) before acting on the decision, even when
 * the decision is a failure, because ZenFS has finished them by the time it finds out. Then:
 *
 * <ul>
 *   <li>{@link UseZone}: write into that already-written zone; it holds an active token already,
 *       the writer takes an open token (for {@code GC_MIGRATION}, the reserved migration token).
 *   <li>{@link OpenEmptyZone}: take an active and an open token, assign the lifetime (and tag) to
 *       the empty zone, write into it. With a non-empty {@code finishFirst} this is "finish zone M,
 *       then use an empty zone".
 *   <li>{@link Wait}: ZenFS would block here (no open token for this priority, or every active zone
 *       is held by a writer); retry when a writer releases a zone.
 *   <li>{@link NeedGc}: no zone can be given, but resetting zones without live data or migrating
 *       live data out of full zones could free one; collect and ask again. A file system running
 *       without GC (ZenFS's default) resets what it can and otherwise reports NoSpace.
 *   <li>{@link NoSpace}: no zone can be given and nothing is reclaimable: RocksDB gets NoSpace.
 * </ul>
 */
public sealed interface Allocation
    permits Allocation.UseZone,
        Allocation.OpenEmptyZone,
        Allocation.Wait,
        Allocation.NeedGc,
        Allocation.NoSpace {

  /** Zones to finish, in this order, before acting on the decision. */
  List<Integer> finishFirst();

  /** Why the policy decided so, for logs and diagnostics. */
  String reason();

  /** The zone to write into, if the decision gives one. */
  default OptionalInt zone() {
    return OptionalInt.empty();
  }

  /** What a {@link Wait} waits for. */
  enum Resource {
    /** An open-zone token for this priority ({@code WaitForOpenIOZoneToken}). */
    OPEN_TOKEN,
    /**
     * An active-zone token, when every active zone is held by a writer so none can be finished
     * ({@code FinishCheapestIOZone} finds no victim and ZenFS spins).
     */
    ACTIVE_TOKEN
  }

  /** Write into already-written zone {@code target}. */
  record UseZone(int target, List<Integer> finishFirst, String reason) implements Allocation {
    /** Validates and freezes the decision. */
    public UseZone {
      checkZone(target);
      finishFirst = frozen(finishFirst);
      Objects.requireNonNull(reason, "reason");
      if (finishFirst.contains(target)) {
        throw new IllegalArgumentException("zone " + target + " cannot be finished and used");
      }
    }

    @Override
    public OptionalInt zone() {
      return OptionalInt.of(target);
    }
  }

  /** Open empty zone {@code target}, assigning it {@code lifetime} and the optional {@code tag}. */
  record OpenEmptyZone(
      int target, WriteLifetime lifetime, OptionalInt tag, List<Integer> finishFirst, String reason)
      implements Allocation {
    /** Validates and freezes the decision. */
    public OpenEmptyZone {
      checkZone(target);
      Objects.requireNonNull(lifetime, "lifetime");
      Objects.requireNonNull(tag, "tag");
      finishFirst = frozen(finishFirst);
      Objects.requireNonNull(reason, "reason");
      if (finishFirst.contains(target)) {
        throw new IllegalArgumentException("zone " + target + " cannot be finished and opened");
      }
    }

    @Override
    public OptionalInt zone() {
      return OptionalInt.of(target);
    }
  }

  /** Retry once {@code resource} may have been released. */
  record Wait(Resource resource, List<Integer> finishFirst, String reason) implements Allocation {
    /** Validates and freezes the decision. */
    public Wait {
      Objects.requireNonNull(resource, "resource");
      finishFirst = frozen(finishFirst);
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** Reclaim space (reset unused zones, migrate live data), then ask again. */
  record NeedGc(List<Integer> finishFirst, String reason) implements Allocation {
    /** Validates and freezes the decision. */
    public NeedGc {
      finishFirst = frozen(finishFirst);
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The device is out of space for this file. */
  record NoSpace(List<Integer> finishFirst, String reason) implements Allocation {
    /** Validates and freezes the decision. */
    public NoSpace {
      finishFirst = frozen(finishFirst);
      Objects.requireNonNull(reason, "reason");
    }
  }

  private static void checkZone(int zone) {
    if (zone < 0) {
      throw new IllegalArgumentException("zone index must be >= 0, not " + zone);
    }
  }

  private static List<Integer> frozen(List<Integer> zones) {
    List<Integer> copy = List.copyOf(Objects.requireNonNull(zones, "finishFirst"));
    if (copy.stream().distinct().count() != copy.size()) {
      throw new IllegalArgumentException("finishFirst names a zone twice: " + copy);
    }
    for (int z : copy) {
      checkZone(z);
    }
    return copy;
  }
}
