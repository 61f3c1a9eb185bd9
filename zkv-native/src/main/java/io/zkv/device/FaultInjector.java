package io.zkv.device;

import java.util.Set;

/** Fault injection on an emulated device: failing operations, failing zones, power cuts. */
public final class FaultInjector {
  /** Operation kinds a failure rule matches. */
  public enum Op {
    READ(1),
    WRITE(2),
    APPEND(4),
    ZONE_MANAGEMENT(8),
    FLUSH(16);

    final int bit;

    Op(int bit) {
      this.bit = bit;
    }
  }

  /** What a power cut does to writes that are not durable yet. */
  public enum PowerCut {
    /** Every non-durable write is lost. */
    DROP_ALL,
    /** Each non-durable write is, at random (seeded): applied, lost, or torn to a block prefix. */
    RANDOM
  }

  private static final int EIO = 5;
  private final ZonedDevice device;

  FaultInjector(ZonedDevice device) {
    this.device = device;
  }

  /**
   * The next {@code count} operations of the given kinds on {@code zone} (or any zone if negative),
   * after {@code skip} matching ones succeed, fail with EIO.
   */
  public void failWithIoError(Set<Op> ops, int zone, int skip, int count) {
    int mask = 0;
    for (Op o : ops) {
      mask |= o.bit;
    }
    int bits = mask;
    check(
        device.onHandle(h -> EmulatedDevice.nInjectError(h, bits, zone, skip, count, -EIO)),
        "inject error");
  }

  /** Turns a zone read-only or offline, as a failing device does. */
  public void setZoneCondition(int zone, ZoneCondition condition) {
    if (condition != ZoneCondition.READ_ONLY && condition != ZoneCondition.OFFLINE) {
      throw new IllegalArgumentException("only READ_ONLY or OFFLINE can be injected");
    }
    check(
        device.onHandle(h -> EmulatedDevice.nSetZoneCondition(h, zone, condition.code())),
        "set zone condition");
  }

  /**
   * Cuts the power: non-durable writes are treated as {@code mode} says (seeded), then every
   * operation fails until the device is closed and opened again. Returns how many writes were not
   * durable at the cut.
   */
  public long powerCut(PowerCut mode, long seed) {
    return check(
        device.onHandle(h -> EmulatedDevice.nPowerCut(h, mode.ordinal(), seed)), "power cut");
  }

  /**
   * Cuts the power during a write: the write or append of the given kinds on {@code zone} (or any
   * zone if negative) after {@code skip} matching ones gets under way, its first {@code keepBlocks}
   * blocks land and the rest is lost (a torn write), every other non-durable write is lost ({@link
   * PowerCut#DROP_ALL}), and it fails, as every operation after it until the device is opened
   * again. For tests that tear one chosen write at a chosen block.
   *
   * @throws IllegalArgumentException if {@code ops} holds anything but WRITE and APPEND
   */
  public void cutPowerDuring(Set<Op> ops, int zone, int skip, int keepBlocks) {
    int mask = 0;
    for (Op o : ops) {
      if (o != Op.WRITE && o != Op.APPEND) {
        throw new IllegalArgumentException("a power cut during a request tears writes only: " + o);
      }
      mask |= o.bit;
    }
    if (mask == 0 || skip < 0 || keepBlocks < 0) {
      throw new IllegalArgumentException(
          "need WRITE or APPEND, skip >= 0 and keepBlocks >= 0: "
              + ops
              + ", "
              + skip
              + ", "
              + keepBlocks);
    }
    int bits = mask;
    check(
        device.onHandle(h -> EmulatedDevice.nCutPowerDuring(h, bits, zone, skip, keepBlocks)),
        "cut power during a write");
  }

  private static long check(long rc, String what) {
    if (rc < 0) {
      throw new IllegalStateException(
          what + " failed: " + ZonedDeviceException.of(rc, what).getMessage());
    }
    return rc;
  }
}
