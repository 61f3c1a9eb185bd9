package io.zkv.bench.jmh;

import io.zkv.cli.ScratchDir;
import io.zkv.device.AsyncQueue;
import io.zkv.device.Completions;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The device paths through the asynchronous queue: zone append, write and read, with {@code qd}
 * requests kept in flight by one thread, per timing profile. One benchmark operation is one
 * completed request (reap one completion, submit its successor), so the score is completions per
 * second at a steady queue depth, and {@code -bm avgt} gives the time per completion.
 *
 * <p>Appends: all {@code qd} in flight to one zone (the device picks the offsets); the host moves
 * to the next zone (reset first, the device used as a ring) before submitting more than the zone
 * holds. Writes: a zone accepts one write at its write pointer at a time, so QD {@code n} means one
 * write in flight to each of {@code n} zones (as a host striping over zones does). Reads: uniform
 * random block-aligned offsets in {@value #READ_ZONES} zones written in the setup.
 *
 * <p>Run with {@code scripts/jmh.sh DeviceQueueBenchmark} (see docs/benchmarks.md).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
public class DeviceQueueBenchmark {
  static final int READ_ZONES = 4;

  /** 40 zones of 16 MiB: room for 32 write streams; at most 40 open/active. */
  static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(40, 16L << 20, 16L << 20, 40, 40, 1 << 20);

  @Param({"instant", "zn540", "pm1731a", "confzns"})
  public String profile;

  @Param({"1", "2", "4", "8", "16", "32"})
  public int qd;

  @Param({"append", "write", "read"})
  public String op;

  @Param({"4096"})
  public int size;

  private Path dir;
  private ZonedDevice dev;
  private AsyncQueue queue;
  private Completions done;
  private ByteBuffer buf;
  private final SplittableRandom rnd = new SplittableRandom(42);

  /** Appends: the zone being appended to and the bytes submitted to it. */
  private int appendZone;

  private long appendFill;

  /** Writes: per slot its zone and next write offset. */
  private int[] slotZone;

  private long[] slotWp;

  /** Zones a write stream or the appends are using; the ring skips them. */
  private boolean[] inUse;

  private int nextFreshZone;

  @Setup(Level.Trial)
  public void open() throws Exception {
    dir = ScratchDir.create("zkv-jmh");
    Path file = dir.resolve("dev.zkvemu");
    EmulatedDevice.format(file, GEOMETRY);
    dev = ZonedDevice.open(EmulatedDevice.uri(file, profile));
    buf = ByteBuffer.allocateDirect(size);
    if (op.equals("read")) {
      ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
      for (int z = 0; z < READ_ZONES; z++) {
        for (long off = 0; off < GEOMETRY.zoneCapacity(); off += chunk.capacity()) {
          chunk.clear();
          dev.write(GEOMETRY.zoneStart(z) + off, chunk);
        }
      }
    }
    queue = dev.newQueue(qd);
    done = new Completions(1);
    slotZone = new int[qd];
    slotWp = new long[qd];
    inUse = new boolean[GEOMETRY.zoneCount()];
    nextFreshZone = 0;
    appendZone = freshZone(-1);
    for (int slot = 0; slot < qd; slot++) {
      if (op.equals("write")) {
        slotZone[slot] = freshZone(-1);
        slotWp[slot] = GEOMETRY.zoneStart(slotZone[slot]);
      }
      submit(slot);
    }
  }

  @TearDown(Level.Trial)
  public void close() throws Exception {
    queue.close(); // waits for the requests in flight
    dev.close();
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.delete(p);
      }
    }
    Files.delete(dir);
  }

  /** One completion, and its slot refilled. */
  @Benchmark
  public long completeOne() throws ZonedDeviceException {
    queue.reap(done, 1);
    if (!done.ok(0)) {
      throw done.error(0);
    }
    int slot = (int) done.tag(0);
    long result = done.result(0);
    submit(slot);
    return result;
  }

  private void submit(int slot) throws ZonedDeviceException {
    boolean ok;
    switch (op) {
      case "append" -> {
        if (appendFill + size > GEOMETRY.zoneCapacity()) {
          appendZone = freshZone(appendZone);
          appendFill = 0;
        }
        appendFill += size;
        ok = queue.submitAppend(appendZone, buf, 0, size, 0, slot);
      }
      case "write" -> {
        int z = slotZone[slot];
        if (slotWp[slot] + size > GEOMETRY.zoneStart(z) + GEOMETRY.zoneCapacity()) {
          z = freshZone(z);
          slotZone[slot] = z;
          slotWp[slot] = GEOMETRY.zoneStart(z);
        }
        ok = queue.submitWrite(slotWp[slot], buf, 0, size, 0, slot);
        slotWp[slot] += size;
      }
      case "read" -> {
        long blocks = READ_ZONES * (GEOMETRY.zoneCapacity() / size);
        long b = rnd.nextLong(blocks);
        long perZone = GEOMETRY.zoneCapacity() / size;
        long offset = GEOMETRY.zoneStart((int) (b / perZone)) + (b % perZone) * size;
        ok = queue.submitRead(offset, buf, 0, size, slot);
      }
      default -> throw new IllegalArgumentException("op must be append, write or read: " + op);
    }
    if (!ok) {
      throw new IllegalStateException("queue full with " + queue.inFlight() + " in flight");
    }
  }

  /**
   * Gives up {@code done} (a full zone, or -1) and takes the next zone of the ring past the read
   * zones that no stream is using, reset first. The ring has 36 zones for at most 32 streams, so a
   * zone given up is not taken again until the ring has come round: its last requests have
   * completed by then.
   */
  private int freshZone(int done) throws ZonedDeviceException {
    if (done >= 0) {
      inUse[done] = false;
    }
    int ring = GEOMETRY.zoneCount() - READ_ZONES;
    for (int tries = 0; tries < ring; tries++) {
      int z = READ_ZONES + nextFreshZone++ % ring;
      if (!inUse[z] && z != done) {
        inUse[z] = true;
        dev.resetZone(z);
        return z;
      }
    }
    throw new IllegalStateException("no free zone for " + qd + " streams");
  }
}
