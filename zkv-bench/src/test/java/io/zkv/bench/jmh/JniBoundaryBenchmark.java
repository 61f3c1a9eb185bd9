package io.zkv.bench.jmh;

import io.zkv.cli.ScratchDir;
import io.zkv.device.AsyncQueue;
import io.zkv.device.Completions;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.DeviceStats;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of crossing the JNI boundary into zkv-native, on an emulated device with the {@code
 * instant} profile (no modelled device time):
 *
 * <ul>
 *   <li>{@code javaOnly}: a handle method that stays in Java (the baseline);
 *   <li>{@code emptyReap}: {@code AsyncQueue.reap} with nothing in flight and no wait, the smallest
 *       native call on a hot path (acquire the handle, cross, return 0);
 *   <li>{@code deviceStats}: a native call that fills a {@code long[10]} and builds a record.
 * </ul>
 *
 * <p>Run with {@code scripts/jmh.sh JniBoundaryBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx512m")
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class JniBoundaryBenchmark {
  private Path dir;
  private ZonedDevice dev;
  private AsyncQueue queue;
  private final Completions done = new Completions(1);

  @Setup
  public void open() throws Exception {
    dir = ScratchDir.create("zkv-jmh");
    Path file = dir.resolve("dev.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(4, 1L << 20, 1L << 20, 4, 4, 1 << 20));
    dev = ZonedDevice.open(EmulatedDevice.uri(file, "instant"));
    queue = dev.newQueue(1);
  }

  @TearDown
  public void close() throws Exception {
    queue.close();
    dev.close();
    Files.delete(dir.resolve("dev.zkvemu"));
    Files.delete(dir);
  }

  @Benchmark
  public DeviceGeometry javaOnly() {
    return dev.geometry();
  }

  @Benchmark
  public int emptyReap() {
    return queue.reap(done, 0, 0, TimeUnit.NANOSECONDS);
  }

  @Benchmark
  public DeviceStats deviceStats() {
    return dev.stats();
  }
}
