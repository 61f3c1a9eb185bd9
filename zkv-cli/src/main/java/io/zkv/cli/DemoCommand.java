package io.zkv.cli;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZnsStatus;
import io.zkv.device.Zone;
import io.zkv.device.ZoneCondition;
import io.zkv.device.ZoneStatusException;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.util.LatencyRecorder;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo: for each timing profile, an emulated device takes zone appends from several threads and
 * QD1 writes from one, and the measured latencies are printed side by side with the zone report.
 * Later features extend it.
 */
final class DemoCommand implements ZkvCommand {
  @Override
  public String name() {
    return "device-demo";
  }

  @Override
  public String summary() {
    return "emulated ZNS device: multi-threaded zone appends vs QD1 writes, per timing profile";
  }

  @Override
  public List<Option> options() {
    return List.of(
        Option.of("threads", "N", "4", "appending threads (1-64)"),
        Option.of("size", "BYTES", "8K", "bytes per write or append, a multiple of 4K"),
        Option.of("seconds", "S", "1", "seconds per profile and mode (1-600)"),
        Option.of(
            "profiles",
            "LIST",
            String.join(",", EmulatedDevice.PROFILES),
            "timing profiles to run, comma-separated"),
        Option.of("dir", "DIR", "a scratch directory, deleted after", "where the device files go"));
  }

  @Override
  public int run(Arguments args, PrintStream out) throws Exception {
    int threads = (int) args.number("threads", 4, 1, 64);
    int size = (int) args.number("size", 8192, 4096, 1 << 20);
    double seconds = args.number("seconds", 1, 1, 600);
    String[] profiles =
        args.string("profiles", String.join(",", EmulatedDevice.PROFILES)).split(",");
    String dirArg = args.string("dir", null);
    args.requireAllUsed();
    if (size % 4096 != 0) {
      throw new Arguments.UsageException("--size must be a multiple of 4096 (the block size)");
    }
    Path dir =
        dirArg != null ? Files.createDirectories(Path.of(dirArg)) : ScratchDir.create("zkv-demo");
    DeviceGeometry geometry = DeviceGeometry.of(16, 64L << 20, 48L << 20, 14, 14, 1 << 20);
    out.println("zkv demo: emulated ZNS device, geometry " + geometry);
    out.printf(
        "%d threads appending %d KiB records vs 1 thread writing at the write pointer (QD1),"
            + " %.0f s each%n%n",
        threads, size / 1024, seconds);
    out.printf(
        "%-8s %-22s %9s %10s %9s %9s %9s %9s%n",
        "profile", "operation", "ops", "IOPS", "mean us", "p50 us", "p99 us", "max us");
    List<Zone> lastReport = new ArrayList<>();
    try {
      for (String profile : profiles) {
        Path file = dir.resolve("demo-" + profile.trim() + ".zkvemu");
        Files.deleteIfExists(file);
        EmulatedDevice.format(file, geometry);
        // the device file goes whatever happens (a profile the emulator refuses included)
        try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, profile.trim()))) {
          Result appends = appendFromThreads(dev, threads, size, seconds);
          print(out, profile, "append x" + threads + " threads", appends);
          Result writes = writeQd1(dev, size, seconds, appends.nextZone);
          print(out, profile, "write QD1", writes);
          out.printf(
              "%-8s %-22s %9s %9.2fx%n",
              profile, "append / write IOPS", "", appends.iops() / writes.iops());
          lastReport = dev.report();
        } finally {
          Files.deleteIfExists(file);
        }
      }
    } finally {
      if (dirArg == null) {
        Files.deleteIfExists(dir);
      }
    }
    out.println();
    out.println("zone report of the last device (zones that are not empty):");
    out.printf("%6s %-16s %12s %12s %12s%n", "zone", "condition", "start", "write ptr", "written");
    for (Zone z : lastReport) {
      if (z.condition() != ZoneCondition.EMPTY) {
        out.printf(
            "%6d %-16s %12d %12d %9d KiB%n",
            z.index(), z.condition(), z.start(), z.writePointer(), z.written() / 1024);
      }
    }
    return 0;
  }

  private record Result(LatencyRecorder.Summary latency, double seconds, int nextZone) {
    double iops() {
      return latency.count() / seconds;
    }
  }

  private static void print(PrintStream out, String profile, String op, Result r) {
    LatencyRecorder.Summary s = r.latency;
    out.printf(
        "%-8s %-22s %9d %10.0f %9.1f %9.1f %9.1f %9.1f%n",
        profile,
        op,
        s.count(),
        s.count() / r.seconds,
        s.meanMicros(),
        s.percentileMicros(50),
        s.percentileMicros(99),
        s.maxMicros());
  }

  /** Threads append to a shared zone; whoever sees Zone Is Full moves everyone to the next. */
  private static Result appendFromThreads(ZonedDevice dev, int threads, int size, double seconds)
      throws Exception {
    AtomicInteger zone = new AtomicInteger(0);
    List<LatencyRecorder> recorders = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    List<Exception> failures = new ArrayList<>();
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      LatencyRecorder rec = new LatencyRecorder(1 << 16);
      recorders.add(rec);
      Thread w =
          new Thread(
              () -> {
                ByteBuffer buf = ByteBuffer.allocateDirect(size);
                try {
                  while (System.nanoTime() < end) {
                    int z = zone.get();
                    buf.clear();
                    long t0 = System.nanoTime();
                    try {
                      dev.append(z, buf);
                      rec.record(System.nanoTime() - t0);
                    } catch (ZoneStatusException e) {
                      if (e.status() != ZnsStatus.ZONE_IS_FULL) {
                        throw e;
                      }
                      nextZone(dev, zone, z);
                    }
                  }
                } catch (ZonedDeviceException e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              },
              "demo-append-" + t);
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
    LatencyRecorder all = new LatencyRecorder(1 << 16);
    recorders.forEach(all::merge);
    return new Result(all.summary(), elapsed, zone.get() + 1);
  }

  /**
   * Moves the threads to the next zone of a ring, reset first. Reusing zones also reuses the same
   * memory for the backing file: first touches of a VM's fresh RAM are slow enough to show.
   */
  private static void nextZone(ZonedDevice dev, AtomicInteger zone, int full)
      throws ZonedDeviceException {
    synchronized (zone) {
      if (zone.get() == full) {
        int next = (full + 1) % dev.geometry().zoneCount();
        dev.resetZone(next);
        zone.set(next);
      }
    }
  }

  /** One thread writes at the write pointer, one request at a time (what a plain write allows). */
  private static Result writeQd1(ZonedDevice dev, int size, double seconds, int firstZone)
      throws ZonedDeviceException {
    ByteBuffer buf = ByteBuffer.allocateDirect(size);
    LatencyRecorder rec = new LatencyRecorder(1 << 16);
    DeviceGeometry g = dev.geometry();
    int zone = firstZone % g.zoneCount();
    dev.resetZone(zone);
    long wp = g.zoneStart(zone);
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    while (System.nanoTime() < end) {
      if (wp + size > g.zoneStart(zone) + g.zoneCapacity()) {
        zone = (zone + 1) % g.zoneCount();
        dev.resetZone(zone);
        wp = g.zoneStart(zone);
      }
      buf.clear();
      long t0 = System.nanoTime();
      dev.write(wp, buf);
      rec.record(System.nanoTime() - t0);
      wp += size;
    }
    return new Result(rec.summary(), (System.nanoTime() - start) / 1e9, zone + 1);
  }
}
