package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded random sequence of zone operations on a small emulated device, each checked against an
 * independent reference model of NVMe ZNS (conditions, write pointers, data, open and active
 * resources with the implicit-close rule). The seed is printed; rerun with {@code -Dzkv.seed=N}
 * ({@code -Dzkv.ops=N} changes the length).
 */
class RandomizedZoneModelTest {
  private static final int LBA = 4096;
  private static final int ZONES = 8;
  private static final long ZONE_SIZE = 16 * LBA;
  private static final long CAP = 10 * LBA;
  private static final int MAX_OPEN = 3;
  private static final int MAX_ACTIVE = 5;
  private static final int ZASL = 4 * LBA;
  private static final DeviceGeometry GEO =
      DeviceGeometry.of(ZONES, ZONE_SIZE, CAP, MAX_OPEN, MAX_ACTIVE, ZASL);

  @TempDir Path dir;

  // ---------------------------------------------------------------- operations

  enum Kind {
    WRITE_AT_WP,
    WRITE_ELSEWHERE,
    APPEND,
    READ,
    OPEN,
    CLOSE,
    FINISH,
    RESET,
    POWER_CYCLE
  }

  /** One operation: a zone (appends, management) or a byte offset (writes, reads), a length. */
  record Op(Kind kind, int zone, long offset, int len, long dataSeed) {
    @Override
    public String toString() {
      return switch (kind) {
        case WRITE_AT_WP, WRITE_ELSEWHERE -> kind + "(offset " + offset + ", len " + len + ")";
        case READ -> "READ(offset " + offset + ", len " + len + ")";
        case APPEND -> "APPEND(zone " + zone + ", len " + len + ")";
        case POWER_CYCLE -> "POWER_CYCLE";
        default -> kind + "(zone " + zone + ")";
      };
    }
  }

  /** Lengths: mostly 1..4 blocks, sometimes more than the ZASL or the capacity, rarely odd. */
  private static int randomLen(Random r) {
    int p = r.nextInt(100);
    if (p < 80) {
      return (1 + r.nextInt(4)) * LBA;
    } else if (p < 92) {
      return ZASL + (1 + r.nextInt(3)) * LBA;
    } else if (p < 96) {
      return (int) CAP + LBA;
    }
    return LBA * r.nextInt(3) + 512 * (1 + r.nextInt(7));
  }

  private static int randomZone(Random r) {
    return r.nextInt(40) == 0 ? ZONES : r.nextInt(ZONES);
  }

  /** Mostly a zone that is not FULL, so that writes do more than bounce off full zones. */
  private static int writableZone(Random r, Model m) {
    if (r.nextInt(10) < 7) {
      List<Integer> open = new ArrayList<>();
      for (int z = 0; z < ZONES; z++) {
        if (m.cond[z] != ZoneCondition.FULL) {
          open.add(z);
        }
      }
      if (!open.isEmpty()) {
        return open.get(r.nextInt(open.size()));
      }
    }
    return randomZone(r);
  }

  /**
   * The next operation: now and then a burst comes first, on distinct zones (reset first when
   * FULL): explicit opens of more zones than the open limit, or a write and a close each on more
   * zones than the active limit, so the run reaches both limits often.
   */
  private static Op nextOp(Random r, Model m, Deque<Op> burst) {
    if (burst.isEmpty() && r.nextInt(60) == 0) {
      List<Integer> zones = new ArrayList<>();
      for (int z = 0; z < ZONES; z++) {
        zones.add(z);
      }
      Collections.shuffle(zones, r);
      boolean opens = r.nextBoolean();
      int n = (opens ? MAX_OPEN : MAX_ACTIVE) + 1 + r.nextInt(2);
      for (int z : zones.subList(0, n)) {
        long written = m.written[z];
        if (m.cond[z] == ZoneCondition.FULL) {
          burst.add(new Op(Kind.RESET, z, 0, 0, 0));
          written = 0;
        }
        if (opens) {
          burst.add(new Op(Kind.OPEN, z, 0, 0, 0));
        } else {
          burst.add(new Op(Kind.WRITE_AT_WP, z, GEO.zoneStart(z) + written, LBA, r.nextLong()));
          burst.add(new Op(Kind.CLOSE, z, 0, 0, 0));
        }
      }
    }
    return burst.isEmpty() ? randomOp(r, m) : burst.removeFirst();
  }

  private static Op randomOp(Random r, Model m) {
    int p = r.nextInt(1000);
    long seed = r.nextLong();
    int z = p < 550 && p >= 300 || p < 250 ? writableZone(r, m) : randomZone(r);
    if (p < 250) {
      long off = z < ZONES ? GEO.zoneStart(z) + m.written[z] : ZONES * ZONE_SIZE;
      return new Op(Kind.WRITE_AT_WP, z, off, randomLen(r), seed);
    } else if (p < 300) {
      long off = GEO.zoneStart(z) + (long) r.nextInt((int) (ZONE_SIZE / LBA)) * LBA;
      if (r.nextInt(20) == 0) {
        off += 512;
      }
      return new Op(Kind.WRITE_ELSEWHERE, z, off, randomLen(r), seed);
    } else if (p < 550) {
      return new Op(Kind.APPEND, z, 0, randomLen(r), seed);
    } else if (p < 680) {
      long off = (long) r.nextInt((int) (ZONES * ZONE_SIZE / LBA) + 2) * LBA;
      if (r.nextInt(30) == 0) {
        off += 512;
      }
      return new Op(Kind.READ, z, off, randomLen(r), seed);
    } else if (p < 820) {
      return new Op(Kind.OPEN, z, 0, 0, seed);
    } else if (p < 885) {
      return new Op(Kind.CLOSE, z, 0, 0, seed);
    } else if (p < 910) {
      return new Op(Kind.FINISH, z, 0, 0, seed);
    } else if (p < 997) {
      return new Op(Kind.RESET, z, 0, 0, seed);
    }
    return new Op(Kind.POWER_CYCLE, 0, 0, 0, seed);
  }

  // ---------------------------------------------------------------- the reference model

  /** What the model expects of an operation. */
  record Expect(ZnsStatus status, boolean implicitClose) {
    static Expect ok() {
      return new Expect(null, false);
    }

    static Expect fail(ZnsStatus s) {
      return new Expect(s, false);
    }
  }

  /** NVMe ZNS zones as the specification describes them, kept apart from the device's code. */
  static final class Model {
    final ZoneCondition[] cond = new ZoneCondition[ZONES];
    final long[] written = new long[ZONES];
    final byte[][] data = new byte[ZONES][(int) ZONE_SIZE];

    Model() {
      Arrays.fill(cond, ZoneCondition.EMPTY);
    }

    int count(ZoneCondition c) {
      int n = 0;
      for (ZoneCondition x : cond) {
        n += x == c ? 1 : 0;
      }
      return n;
    }

    int open() {
      return count(ZoneCondition.IMPLICITLY_OPEN) + count(ZoneCondition.EXPLICITLY_OPEN);
    }

    int active() {
      return open() + count(ZoneCondition.CLOSED);
    }

    /**
     * The resources a zone needs to become open: an active one when it is EMPTY, an open one when
     * it is EMPTY or CLOSED. At the open limit an implicitly open zone gives way; only explicitly
     * open zones make an open fail.
     */
    Expect openResources(int z) {
      ZoneCondition c = cond[z];
      if (c == ZoneCondition.EMPTY && active() >= MAX_ACTIVE) {
        return Expect.fail(ZnsStatus.TOO_MANY_ACTIVE_ZONES);
      }
      if ((c == ZoneCondition.EMPTY || c == ZoneCondition.CLOSED) && open() >= MAX_OPEN) {
        return count(ZoneCondition.IMPLICITLY_OPEN) > 0
            ? new Expect(null, true)
            : Expect.fail(ZnsStatus.TOO_MANY_OPEN_ZONES);
      }
      return Expect.ok();
    }

    Expect write(int z, long rel, int len, boolean append) {
      if (z >= ZONES) {
        return Expect.fail(ZnsStatus.LBA_OUT_OF_RANGE);
      }
      if (len <= 0 || len % LBA != 0 || rel % LBA != 0 || (append && len > ZASL)) {
        return Expect.fail(ZnsStatus.INVALID_FIELD);
      }
      if (cond[z] == ZoneCondition.FULL) {
        return Expect.fail(ZnsStatus.ZONE_IS_FULL);
      }
      if (!append && rel != written[z]) {
        return Expect.fail(ZnsStatus.ZONE_INVALID_WRITE);
      }
      if (written[z] + len > CAP) {
        return Expect.fail(ZnsStatus.ZONE_BOUNDARY_ERROR);
      }
      return openResources(z);
    }

    void applyWrite(int z, byte[] bytes) {
      System.arraycopy(bytes, 0, data[z], (int) written[z], bytes.length);
      written[z] += bytes.length;
      cond[z] =
          written[z] == CAP
              ? ZoneCondition.FULL
              : cond[z] == ZoneCondition.EXPLICITLY_OPEN
                  ? ZoneCondition.EXPLICITLY_OPEN
                  : ZoneCondition.IMPLICITLY_OPEN;
    }

    Expect read(long offset, int len) {
      if (len <= 0 || len % LBA != 0 || offset % LBA != 0) {
        return Expect.fail(ZnsStatus.INVALID_FIELD);
      }
      if (offset + len > ZONES * ZONE_SIZE) {
        return Expect.fail(ZnsStatus.LBA_OUT_OF_RANGE);
      }
      if (offset / ZONE_SIZE != (offset + len - 1) / ZONE_SIZE) {
        return Expect.fail(ZnsStatus.ZONE_BOUNDARY_ERROR);
      }
      return Expect.ok();
    }

    Expect manage(Kind k, int z) {
      if (z >= ZONES) {
        return Expect.fail(ZnsStatus.LBA_OUT_OF_RANGE);
      }
      ZoneCondition c = cond[z];
      return switch (k) {
        case OPEN ->
            c == ZoneCondition.FULL
                ? Expect.fail(ZnsStatus.INVALID_ZONE_STATE_TRANSITION)
                : openResources(z);
        case CLOSE ->
            c.isActive() ? Expect.ok() : Expect.fail(ZnsStatus.INVALID_ZONE_STATE_TRANSITION);
        case FINISH ->
            c == ZoneCondition.EMPTY && active() >= MAX_ACTIVE
                ? Expect.fail(ZnsStatus.TOO_MANY_ACTIVE_ZONES)
                : Expect.ok();
        case RESET -> Expect.ok();
        default -> throw new AssertionError(k);
      };
    }

    void applyManage(Kind k, int z) {
      switch (k) {
        case OPEN -> cond[z] = ZoneCondition.EXPLICITLY_OPEN;
        case CLOSE -> cond[z] = closed(z);
        case FINISH -> {
          cond[z] = ZoneCondition.FULL;
          written[z] = CAP;
        }
        case RESET -> {
          cond[z] = ZoneCondition.EMPTY;
          written[z] = 0;
          Arrays.fill(data[z], (byte) 0);
        }
        default -> throw new AssertionError(k);
      }
    }

    /** A closed zone: CLOSED, or EMPTY when nothing was written. */
    ZoneCondition closed(int z) {
      return written[z] == 0 ? ZoneCondition.EMPTY : ZoneCondition.CLOSED;
    }

    /** Opening the device again: open zones come back closed. */
    void powerCycle() {
      for (int z = 0; z < ZONES; z++) {
        if (cond[z].isOpen()) {
          cond[z] = closed(z);
        }
      }
    }

    byte[] bytes(long offset, int len) {
      int z = (int) (offset / ZONE_SIZE);
      int rel = (int) (offset % ZONE_SIZE);
      return Arrays.copyOfRange(data[z], rel, rel + len);
    }
  }

  // ---------------------------------------------------------------- the run

  private static ByteBuffer pattern(int len, long seed) {
    byte[] a = new byte[len];
    new Random(seed).nextBytes(a);
    return ByteBuffer.allocateDirect(len).put(0, a);
  }

  @Test
  void randomOperationsMatchTheReferenceModel() throws Exception {
    long seed = Long.getLong("zkv.seed", System.nanoTime());
    int ops = Integer.getInteger("zkv.ops", 3000);
    System.out.println(
        "RandomizedZoneModelTest seed="
            + seed
            + " ops="
            + ops
            + " (rerun with -Dzkv.seed="
            + seed
            + ")");
    Path file = dir.resolve("model.zkvemu");
    EmulatedDevice.format(file, GEO);
    String uri = EmulatedDevice.uri(file, "instant");
    Random r = new Random(seed);
    Model m = new Model();
    Map<ZnsStatus, Integer> seen = new EnumMap<>(ZnsStatus.class);
    int implicitCloses = 0;
    int successes = 0;
    Deque<String> history = new ArrayDeque<>();
    Deque<Op> burst = new ArrayDeque<>();
    List<List<String>> zoneHistory = new ArrayList<>();
    for (int z = 0; z <= ZONES; z++) {
      zoneHistory.add(new ArrayList<>());
    }
    ZonedDevice dev = ZonedDevice.open(uri);
    try {
      for (int i = 0; i < ops; i++) {
        Op op = nextOp(r, m, burst);
        history.addLast(i + ": " + op);
        if (history.size() > 12) {
          history.removeFirst();
        }
        int touched = zoneOf(op);
        List<String> zh = zoneHistory.get(touched);
        zh.add(i + ": " + op);
        if (op.kind() == Kind.POWER_CYCLE) {
          zoneHistory.forEach(h -> h.add(zh.get(zh.size() - 1)));
        }
        String where =
            "seed "
                + seed
                + ", op "
                + i
                + " "
                + op
                + "; last ops:\n  "
                + String.join("\n  ", history)
                + "\n last ops on zone "
                + touched
                + ":\n  "
                + String.join("\n  ", zh.subList(Math.max(0, zh.size() - 30), zh.size()));
        if (op.kind() == Kind.POWER_CYCLE) {
          dev.close();
          dev = ZonedDevice.open(uri);
          m.powerCycle();
          compare(dev, m, where);
          continue;
        }
        Expect want = expect(m, op);
        List<ZoneCondition> before = conditions(m);
        ZnsStatus got = null;
        Object result = null;
        try {
          result = execute(dev, op);
        } catch (ZoneStatusException e) {
          got = e.status();
        } catch (ZonedDeviceException e) {
          throw new AssertionError(where + ": unexpected host error " + e.getMessage(), e);
        }
        assertEquals(want.status(), got, () -> where + ": status");
        if (got != null) {
          seen.merge(got, 1, Integer::sum);
        } else {
          successes++;
          if (want.implicitClose()) {
            implicitCloses++;
            applyImplicitClose(dev, m, op, before, where);
          }
          apply(m, op, result, where);
        }
        compare(dev, m, where);
      }
      // finally every zone's data, in full
      for (int z = 0; z < ZONES; z++) {
        ByteBuffer all = ByteBuffer.allocateDirect((int) ZONE_SIZE);
        dev.read(GEO.zoneStart(z), all);
        byte[] got = new byte[(int) ZONE_SIZE];
        all.flip().get(got);
        assertArrayEquals(m.data[z], got, "seed " + seed + ": data of zone " + z + " at the end");
      }
    } finally {
      dev.close();
    }
    System.out.println(
        "RandomizedZoneModelTest seed="
            + seed
            + ": "
            + successes
            + " succeeded, "
            + implicitCloses
            + " implicit closes, refused: "
            + seen);
    if (ops >= 3000) { // what a run of this length reaches (over many seeds, by a wide margin)
      assertTrue(successes > ops / 3, "operations are meant to succeed mostly: " + successes);
      assertTrue(implicitCloses > 0, "no implicit close happened");
      for (ZnsStatus s : ZnsStatus.values()) {
        if (s != ZnsStatus.OTHER
            && s != ZnsStatus.ZONE_IS_READ_ONLY
            && s != ZnsStatus.ZONE_IS_OFFLINE) {
          assertTrue(seen.containsKey(s), () -> "seed " + seed + ": the run never saw " + s);
        }
      }
    }
  }

  private static int zoneOf(Op op) {
    return switch (op.kind()) {
      case WRITE_AT_WP, WRITE_ELSEWHERE, READ -> (int) Math.min(ZONES, op.offset() / ZONE_SIZE);
      case POWER_CYCLE -> 0;
      default -> op.zone();
    };
  }

  private static Expect expect(Model m, Op op) {
    return switch (op.kind()) {
      case WRITE_AT_WP, WRITE_ELSEWHERE ->
          m.write((int) (op.offset() / ZONE_SIZE), op.offset() % ZONE_SIZE, op.len(), false);
      case APPEND -> m.write(op.zone(), 0, op.len(), true);
      case READ -> m.read(op.offset(), op.len());
      default -> m.manage(op.kind(), op.zone());
    };
  }

  /** Runs the operation; returns an append's offset or a read's bytes. */
  private static Object execute(ZonedDevice dev, Op op) throws ZonedDeviceException {
    switch (op.kind()) {
      case WRITE_AT_WP, WRITE_ELSEWHERE -> {
        dev.write(op.offset(), pattern(op.len(), op.dataSeed()));
        return null;
      }
      case APPEND -> {
        return dev.append(op.zone(), pattern(op.len(), op.dataSeed()));
      }
      case READ -> {
        ByteBuffer b = ByteBuffer.allocateDirect(op.len());
        dev.read(op.offset(), b);
        byte[] a = new byte[op.len()];
        b.flip().get(a);
        return a;
      }
      case OPEN -> dev.openZone(op.zone());
      case CLOSE -> dev.closeZone(op.zone());
      case FINISH -> dev.finishZone(op.zone());
      case RESET -> dev.resetZone(op.zone());
      default -> throw new AssertionError(op);
    }
    return null;
  }

  private static void apply(Model m, Op op, Object result, String where) {
    switch (op.kind()) {
      case WRITE_AT_WP, WRITE_ELSEWHERE -> {
        int z = (int) (op.offset() / ZONE_SIZE);
        m.applyWrite(z, bytesOf(op));
      }
      case APPEND -> {
        long expected = GEO.zoneStart(op.zone()) + m.written[op.zone()];
        assertEquals(expected, (long) (Long) result, () -> where + ": assigned offset");
        m.applyWrite(op.zone(), bytesOf(op));
      }
      case READ ->
          assertArrayEquals(
              m.bytes(op.offset(), op.len()), (byte[]) result, () -> where + ": data read");
      default -> m.applyManage(op.kind(), op.zone());
    }
  }

  private static byte[] bytesOf(Op op) {
    byte[] a = new byte[op.len()];
    pattern(op.len(), op.dataSeed()).get(a);
    return a;
  }

  private static List<ZoneCondition> conditions(Model m) {
    return List.of(m.cond.clone());
  }

  /**
   * At the open limit the device closes one implicitly open zone of its choice (not the target):
   * exactly one of them must now be CLOSED, with its write pointer kept.
   */
  private static void applyImplicitClose(
      ZonedDevice dev, Model m, Op op, List<ZoneCondition> before, String where)
      throws ZonedDeviceException {
    int target =
        op.kind() == Kind.APPEND || op.kind() == Kind.OPEN
            ? op.zone()
            : (int) (op.offset() / ZONE_SIZE);
    List<Zone> now = dev.report();
    List<Integer> closed = new ArrayList<>();
    for (int z = 0; z < ZONES; z++) {
      if (z != target
          && before.get(z) == ZoneCondition.IMPLICITLY_OPEN
          && now.get(z).condition() != ZoneCondition.IMPLICITLY_OPEN) {
        closed.add(z);
      }
    }
    if (closed.size() != 1) {
      fail(
          where
              + ": exactly one implicitly open zone must give way, not "
              + closed
              + "; report "
              + now);
    }
    int z = closed.get(0);
    m.cond[z] = m.closed(z);
  }

  private static void compare(ZonedDevice dev, Model m, String where) throws ZonedDeviceException {
    List<Zone> zones = dev.report();
    assertEquals(ZONES, zones.size());
    for (int z = 0; z < ZONES; z++) {
      Zone want = new Zone(z, GEO.zoneStart(z), CAP, GEO.zoneStart(z) + m.written[z], m.cond[z]);
      if (!want.equals(zones.get(z))) {
        fail(
            where
                + ": zone "
                + z
                + " is "
                + zones.get(z)
                + ", the model says "
                + want
                + "\n  device: "
                + zones
                + "\n  model open "
                + m.open()
                + ", active "
                + m.active());
      }
    }
  }
}
