package com.example.consumer;

import io.zkv.ZkvDb;
import io.zkv.ZkvEntry;
import io.zkv.ZkvIterator;
import io.zkv.ZonedEnv;
import io.zkv.device.DeviceGeometry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A user's first program on zkv-core alone: create and format an emulated ZNS device in one call,
 * open a database on it, write, read back, reopen and read again. Then the README's quickstart
 * ({@code Quickstart}), run twice as a user runs it, each time in a JVM of its own: the first run
 * creates its device, the second finds the first's data. Exits non-zero on any mismatch, and if the
 * zkv tools or Micrometer came along with zkv-core.
 */
public final class Main {
  private static final int KEYS = 10_000;

  private Main() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("zkv-consumer");
    Path file = dir.resolve("dev.zkvemu");
    try {
      // 16 zones of 64 MiB (48 MiB writable), at most 14 open/active, 1 MiB zone appends.
      DeviceGeometry geometry = DeviceGeometry.of(16, 64L << 20, 48L << 20, 14, 14, 1 << 20);
      String uri;
      try (ZonedEnv zoned = ZonedEnv.createEmulated(file, "instant", geometry);
          ZkvDb db = ZkvDb.open(zoned, "/orders")) {
        uri = zoned.uri(); // emu:<file>?profile=instant
        for (int i = 0; i < KEYS; i++) {
          db.put(key(i), value(i));
        }
        db.flush();
        check(db);
      }
      try (ZonedEnv zoned = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
          ZkvDb db = ZkvDb.open(zoned, "/orders")) {
        check(db);
        System.out.printf(
            "zkv-consumer: %d keys written, read back after a reopen; %d bytes live on %s%n",
            KEYS, zoned.stats().liveBytes(), zoned.uri());
      }
      runQuickstartTwice(dir);
      absent("io.zkv.cli.Zkv", "the zkv command line (zkv-cli)");
      absent("io.micrometer.core.instrument.MeterRegistry", "Micrometer");
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir.resolve("zkv-quickstart.zkvemu"));
      Files.deleteIfExists(dir);
    }
  }

  /**
   * The quickstart with {@code java.io.tmpdir} set to {@code dir}, so its device file starts absent
   * and is this run's alone: run 1 must create it, run 2 must mount it and read run 1's count.
   */
  private static void runQuickstartTwice(Path dir) throws Exception {
    String uri = "emu:" + dir.resolve("zkv-quickstart.zkvemu").toAbsolutePath() + "?profile=zn540";
    for (int run = 1; run <= 2; run++) {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xcheck:jni",
                  "-Djava.io.tmpdir=" + dir,
                  "-cp",
                  System.getProperty("java.class.path"),
                  "Quickstart")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int rc = p.waitFor();
      String expected = "run " + run + " on " + uri;
      if (rc != 0 || !out.lines().anyMatch(expected::equals)) {
        throw new AssertionError(
            "quickstart run " + run + " exited " + rc + ", expected the line '" + expected
                + "'; it printed:\n" + out);
      }
      System.out.println("zkv-consumer: quickstart " + expected);
    }
  }

  private static void check(ZkvDb db) {
    for (int i = 0; i < KEYS; i += 97) {
      byte[] v = db.get(key(i));
      if (!Arrays.equals(value(i), v)) {
        throw new AssertionError(
            "key " + i + ": read " + (v == null ? "nothing" : new String(v, StandardCharsets.UTF_8)));
      }
    }
    int n = 0;
    try (ZkvIterator it = db.iterator()) {
      while (it.hasNext()) {
        ZkvEntry e = it.next();
        if (e.key().length == 0) {
          throw new AssertionError("empty key");
        }
        n++;
      }
    }
    if (n != KEYS) {
      throw new AssertionError("iterated " + n + " keys, wrote " + KEYS);
    }
  }

  /** zkv-core brings the library only: its tools and optional integrations stay out. */
  private static void absent(String className, String what) {
    try {
      Class.forName(className);
      throw new AssertionError(what + " is on the class path of a project depending on zkv-core");
    } catch (ClassNotFoundException expected) {
      // as it should be
    }
  }

  private static byte[] key(int i) {
    return String.format("order-%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(int i) {
    return ("value " + i).getBytes(StandardCharsets.UTF_8);
  }
}
