package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Drives a {@link ZoneTable} with LIZA's decisions the way the zone file system will: writers
 * allocate on their first write and whenever their zone fills, files are deleted and unused zones
 * reset, GC migrates greedy victims when LIZA asks for it. Every decision must be one the table
 * accepts, and the I/O token limits must hold after every step. Seeded; rerun with {@code
 * -Dzkv.seed=N}.
 */
class LizaSimulationTest {
  static final long CAP = 1_000;
  static final int ZONES = 32;

  final SimulatedZoneTable table =
      SimulatedZoneTable.of(
          ZoneTable.builder(ZONES, CAP)
              .deviceLimits(7, 7) // 5 open / 5 active I/O tokens
              .reserve(0, ZoneReservation.METADATA)
              .reserve(1, ZoneReservation.METADATA)
              .reserve(2, ZoneReservation.METADATA)
              .build());
  final LizaPolicy liza = new LizaPolicy(5);
  final GreedyVictimPolicy greedy = new GreedyVictimPolicy();
  final Map<Class<?>, Integer> outcomes = new LinkedHashMap<>();
  final Map<FileKind, Integer> waits = new EnumMap<>(FileKind.class);
  final Map<FileKind, Integer> attempts = new EnumMap<>(FileKind.class);
  int finishes;
  int gcResets;

  /** A file being written. */
  static final class Writer {
    final AllocationRequest request;
    long left;
    int zone = -1;

    Writer(AllocationRequest request, long left) {
      this.request = request;
      this.left = left;
    }
  }

  @Test
  void decisionsAreAlwaysApplicableAndKeepTheTokenLimits() {
    long seed = Long.getLong("zkv.seed", 20240611L);
    Random rnd = new Random(seed);
    Map<Long, Writer> writers = new LinkedHashMap<>();
    List<Long> done = new ArrayList<>();
    long nextId = 1;
    for (int step = 0; step < 20_000; step++) {
      String where = "seed " + seed + ", step " + step;
      int action = rnd.nextInt(100);
      if (action < 15 && writers.size() < 8) {
        AllocationRequest r = newFile(nextId++, rnd);
        table.putFile(FileInfo.of(r));
        writers.put(r.fileId(), new Writer(r, 100 + rnd.nextInt(2400)));
      } else if (action < 85 && !writers.isEmpty()) {
        List<Writer> all = new ArrayList<>(writers.values());
        Writer w = all.get(rnd.nextInt(all.size()));
        if (write(w, 50 + rnd.nextInt(350), where)) {
          if (w.left == 0) {
            if (w.zone >= 0) {
              table.release(w.zone);
            }
            writers.remove(w.request.fileId());
            done.add(w.request.fileId());
          }
        } else if (w.left < 0) {
          writers.remove(w.request.fileId()); // NoSpace: RocksDB gives up on the file
          table.deleteFile(w.request.fileId());
          resetUnused();
        }
      } else if (!done.isEmpty() && rnd.nextInt(100) < 60) {
        long victim = done.remove(rnd.nextInt(done.size()));
        table.deleteFile(victim);
        resetUnused();
      }
      ZoneTokens t = table.tokens();
      if (t.openIo() > t.maxOpenIo() || t.activeIo() > t.maxActiveIo()) {
        fail(where + ": tokens over the I/O limits: " + t);
      }
    }
    // The run must have reached every branch worth checking.
    assertTrue(count(Allocation.UseZone.class) > 100, outcomes::toString);
    assertTrue(count(Allocation.OpenEmptyZone.class) > 100, outcomes::toString);
    assertTrue(count(Allocation.Wait.class) > 0, outcomes::toString);
    assertTrue(count(Allocation.NeedGc.class) > 0, outcomes::toString);
    assertTrue(finishes > 0, "no zone was ever finished");
    assertTrue(gcResets > 0, "GC never emptied a zone");
    // WAL priority shows: the WAL waits for a token far less often than other files do.
    double walWaits = rate(FileKind.WAL);
    double otherWaits = rate(FileKind.SST);
    assertTrue(walWaits * 4 < otherWaits, "WAL wait rate " + walWaits + ", SST " + otherWaits);
  }

  private double rate(FileKind kind) {
    return (double) waits.getOrDefault(kind, 0) / attempts.getOrDefault(kind, 1);
  }

  private int count(Class<?> c) {
    return outcomes.getOrDefault(c, 0);
  }

  private static AllocationRequest newFile(long id, Random rnd) {
    int k = rnd.nextInt(10);
    if (k < 2) {
      return AllocationRequest.builder(id, FileKind.WAL).lifetime(WriteLifetime.SHORT).build();
    }
    if (k < 3) {
      return AllocationRequest.builder(id, FileKind.MANIFEST).build();
    }
    int level = rnd.nextInt(4);
    WriteLifetime lt =
        level <= 1 ? WriteLifetime.MEDIUM : level == 2 ? WriteLifetime.LONG : WriteLifetime.EXTREME;
    return AllocationRequest.builder(id, FileKind.SST).lifetime(lt).level(level).build();
  }

  /**
   * Writes up to {@code chunk} bytes of {@code w}; false if no zone could be had (then {@code
   * w.left} is negative if the file must be dropped).
   */
  private boolean write(Writer w, long chunk, String where) {
    if (w.zone < 0) {
      Allocation a = liza.allocate(w.request, table);
      outcomes.merge(a.getClass(), 1, Integer::sum);
      attempts.merge(w.request.kind(), 1, Integer::sum);
      check(a, w.request, where);
      for (int z : a.finishFirst()) {
        table.finish(z);
        finishes++;
      }
      if (a instanceof Allocation.UseZone u) {
        table.acquire(u.target(), w.request.lifetime());
        w.zone = u.target();
      } else if (a instanceof Allocation.OpenEmptyZone o) {
        table.acquire(o.target(), o.lifetime(), o.tag());
        w.zone = o.target();
      } else if (a instanceof Allocation.Wait) {
        waits.merge(w.request.kind(), 1, Integer::sum);
        return false;
      } else if (a instanceof Allocation.NeedGc) {
        collect(where);
        return false;
      } else {
        w.left = -1;
        return false;
      }
    }
    long n = Math.min(chunk, Math.min(w.left, table.zone(w.zone).remaining()));
    table.append(w.zone, w.request.fileId(), n);
    w.left -= n;
    if (table.zone(w.zone).remaining() == 0) {
      table.release(w.zone); // ZenFS: CloseActiveZone, then AllocateNewZone on the next write
      w.zone = -1;
    }
    return true;
  }

  /** What every decision must satisfy, whatever the rule that produced it. */
  private void check(Allocation a, AllocationRequest r, String where) {
    String ctx = where + ": " + a;
    for (int z : a.finishFirst()) {
      ZoneInfo zi = table.zone(z);
      assertTrue(zi.isIoZone() && !zi.busy() && zi.isWritable() && zi.written() > 0, ctx);
    }
    ZoneTokens t = table.tokens();
    if (a instanceof Allocation.UseZone u) {
      ZoneInfo z = table.zone(u.target());
      assertTrue(z.isIoZone() && !z.busy() && z.remaining() > 0 && z.liveBytes() > 0, ctx);
      assertTrue(
          LifetimeDiff.between(z.lifetime(), r.lifetime()) <= LifetimeDiff.COULD_BE_WORSE, ctx);
    } else if (a instanceof Allocation.OpenEmptyZone o) {
      ZoneInfo z = table.zone(o.target());
      assertTrue(z.isIoZone() && !z.busy() && z.isEmpty(), ctx);
      assertEquals(r.lifetime(), o.lifetime(), ctx);
      assertTrue(t.activeIo() - a.finishFirst().size() < t.maxActiveIo(), ctx);
    } else if (a instanceof Allocation.Wait w) {
      if (w.resource() == Allocation.Resource.OPEN_TOKEN) {
        int limit = r.kind().isWal() ? t.maxOpenIo() : t.maxOpenIo() - 1;
        assertTrue(t.openIo() >= limit, ctx);
      }
    } else {
      for (ZoneInfo z : table.zones()) {
        assertFalse(
            z.isIoZone() && !z.busy() && z.isEmpty(), ctx + ": zone " + z.index() + " is empty");
      }
    }
    if (a.zone().isPresent()) {
      int limit = r.kind().isWal() ? t.maxOpenIo() : t.maxOpenIo() - 1;
      assertTrue(t.openIo() < limit, ctx);
    }
  }

  /** ZenFS's ResetUnusedIOZones. */
  private void resetUnused() {
    for (ZoneInfo z : table.zones()) {
      if (z.isIoZone()
          && !z.busy()
          && !z.isEmpty()
          && z.liveBytes() == 0
          && z.condition() != ZoneCondition.READ_ONLY) {
        table.reset(z.index());
      }
    }
  }

  /** Resets what it can, then empties greedy victims until a zone is empty or nothing moves. */
  private void collect(String where) {
    resetUnused();
    for (int round = 0; round < 4 && noEmptyZone(); round++) {
      OptionalInt victim = greedy.chooseVictim(table);
      if (victim.isEmpty()) {
        return;
      }
      int v = victim.getAsInt();
      for (long file : table.filesIn(v)) {
        long bytes = table.liveBytes(v, file);
        WriteLifetime lt = table.file(file).map(FileInfo::lifetime).orElse(WriteLifetime.NOT_SET);
        AllocationRequest m =
            AllocationRequest.builder(file, FileKind.SST)
                .lifetime(lt)
                .expectedSize(bytes)
                .purpose(AllocationPurpose.GC_MIGRATION)
                .build();
        Allocation a = liza.allocate(m, table);
        if (!(a instanceof Allocation.UseZone u)) {
          return; // ZenFS skips the extent; the victim stays
        }
        assertTrue(table.zone(u.target()).remaining() >= bytes, where + ": " + a);
        table.acquire(u.target(), lt);
        table.append(u.target(), file, bytes);
        table.release(u.target());
        table.invalidate(v, file, bytes);
      }
      table.reset(v);
      gcResets++;
    }
  }

  private boolean noEmptyZone() {
    for (ZoneInfo z : table.zones()) {
      if (z.isIoZone() && !z.busy() && z.isEmpty()) {
        return false;
      }
    }
    return true;
  }
}
