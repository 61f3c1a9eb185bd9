package io.zkv.kafka;

import io.zkv.device.ZonedDevice;

/** Run in a child JVM: opens a device, says "held", keeps it until its standard input closes. */
public final class HoldDevice {
  private HoldDevice() {}

  public static void main(String[] args) throws Exception {
    try (ZonedDevice d = ZonedDevice.open(args[0])) {
      System.out.println(d.isClosed() ? "closed" : "held");
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the parent to close our input
      }
    }
  }
}
