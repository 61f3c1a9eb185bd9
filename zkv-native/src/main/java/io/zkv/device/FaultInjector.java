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

  private static long check(long rc, String what) {
    if (rc < 0) {
      throw new IllegalStateException(
          what + " failed: " + ZonedDeviceException.of(rc, what).getMessage());
    }
    return rc;
  }
}
