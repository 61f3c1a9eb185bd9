package io.zkv.kafka;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.Stores;

/**
 * Native memory over store open/close cycles (rebalances, window segments): opens and closes
 * Streams' own RocksDB store on zkv {@code cycles} times (one put each, plain and timestamped in
 * turn) while another store keeps the device open, and prints the process's anonymous resident
 * memory ({@code RssAnon}) after a warm-up and every 1,000 cycles. Run with a fixed, pre-touched
 * heap so that heap growth does not count: {@code -Xms512m -Xmx512m -XX:+AlwaysPreTouch}. Not a
 * test ({@code docs/kafka-streams.md}).
 *
 * <p>Arguments: {@code <dir> [cycles=10000] [warmup=1000] [zkv|host]}; {@code host} runs the same
 * cycles on Streams' default RocksDB (no config setter), for comparison.
 *
 * <p>With {@code -Dzkv.mem.trim=true} each measurement is followed by glibc's {@code malloc_trim}
 * (the JDK's {@code jcmd <pid> System.trim_native_heap}) and a second reading: what the trim gives
 * back was free memory glibc kept (fragmentation, arena caches), what stays is in use or pinned by
 * live allocations. With {@code -Dzkv.mem.mallocStats=true} glibc's {@code malloc_stats()} (bytes
 * in use over all arenas) is printed too, through {@code gdb -p} (needs gdb and ptrace rights).
 * With {@code -XX:NativeMemoryTracking=summary -Dzkv.mem.nmt=true} the JVM's own native memory is
 * baselined after the warm-up and its growth by category printed at the end ({@code jcmd <pid>
 * VM.native_memory summary.diff}): what of the growth is the JVM's.
 */
public final class OpenCloseMemory {
  private OpenCloseMemory() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 1_000;
    StreamsFixture.deleteTree(dir);
    StreamsFixture f = new StreamsFixture(dir);
    Properties props = f.props("mem");
    boolean host = args.length > 3 && args[3].equals("host");
    if (host) {
      props.remove(org.apache.kafka.streams.StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
    }
    System.out.println(host ? "Streams' default RocksDB (host)" : "zkv (" + f.uri + ")");
    File taskDir = f.stateDir.resolve("mem/0_0").toFile();
    Files.createDirectories(taskDir.toPath());
    TaskId task = new TaskId(0, 0);
    try (StoreHarness anchor =
        new StoreHarness(Stores.persistentKeyValueStore("anchor").get(), props, task, taskDir)) {
      anchor.put("k", "v");
      long start = 0;
      long startMillis = 0;
      for (int i = 0; i < warmup + cycles; i++) {
        if (i == warmup) {
          System.gc();
          trimAndReport();
          if (Boolean.getBoolean("zkv.mem.nmt")) {
            run(
                "jcmd",
                Long.toString(ProcessHandle.current().pid()),
                "VM.native_memory",
                "baseline");
          }
          start = rssAnonKiB();
          startMillis = System.currentTimeMillis();
          System.out.printf(
              Locale.ROOT, "after %d warm-up cycles: RssAnon %d KiB%n", warmup, start);
        }
        try (StoreHarness h =
            new StoreHarness(
                i % 2 == 0
                    ? Stores.persistentKeyValueStore("s").get()
                    : Stores.persistentTimestampedKeyValueStore("t").get(),
                props,
                task,
                taskDir)) {
          h.put("key", "value-" + i);
        }
        if (i >= warmup && (i - warmup + 1) % 1000 == 0) {
          System.gc();
          long now = rssAnonKiB();
          System.out.printf(
              Locale.ROOT,
              "%d cycles: RssAnon %d KiB (%+d KiB), %.1f ms a cycle%n",
              i - warmup + 1,
              now,
              now - start,
              (System.currentTimeMillis() - startMillis) / (double) (i - warmup + 1));
          trimAndReport();
        }
      }
    }
    f.awaitDeviceClosed();
    if (Boolean.getBoolean("zkv.mem.nmt")) {
      System.out.print(
          run(
              "jcmd",
              Long.toString(ProcessHandle.current().pid()),
              "VM.native_memory",
              "summary.diff"));
    }
    StreamsFixture.deleteTree(dir);
  }

  /** Trims glibc's heap and prints RssAnon after it, and malloc_stats(), if asked to. */
  private static void trimAndReport() throws Exception {
    String pid = Long.toString(ProcessHandle.current().pid());
    if (Boolean.getBoolean("zkv.mem.trim")) {
      run("jcmd", pid, "System.trim_native_heap");
      System.out.printf(Locale.ROOT, "  after malloc_trim: RssAnon %d KiB%n", rssAnonKiB());
    }
    if (Boolean.getBoolean("zkv.mem.mallocStats")) {
      System.err.flush();
      run("gdb", "-p", pid, "-batch", "-ex", "call (void) malloc_stats()");
    }
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
    }
    return out;
  }

  private static long rssAnonKiB() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("RssAnon:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no RssAnon in /proc/self/status");
  }
}
