package io.zkv.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zkv.ZkvDb;
import io.zkv.ZkvOptions;
import io.zkv.ZonedEnv;
import io.zkv.ZonedEnvOptions;
import io.zkv.cli.Zkv;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.FaultInjector;
import io.zkv.device.ZoneCondition;
import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.fs.PolicyOverride;
import io.zkv.fs.ZoneStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZkvMetricsTest {
  /** 16 zones of 8 MiB (6 MiB writable). */
  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(16, 8L << 20, 6L << 20, 8, 8, 1 << 20);

  private static final int KEYS = 40_000;

  @TempDir Path dir;

  private static ZkvOptions smallOptions() {
    return ZkvOptions.builder()
        .writeBufferSize(1L << 20)
        .rocksDbTuning(o -> o.setTargetFileSizeBase(1L << 20))
        .build();
  }

  private static byte[] key(int i) {
    return String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8);
  }

  /** Writes, overwrites half the keys and compacts, so that zones hold garbage as well as data. */
  private static void fill(ZkvDb db) {
    byte[] value = new byte[200];
    for (int round = 0; round < 2; round++) {
      for (int i = round * KEYS / 2; i < KEYS; i++) {
        value[0] = (byte) i;
        db.put(key(i), value);
      }
      db.flush();
    }
    db.deleteRange(key(0), key(KEYS / 4));
    db.compactRange();
  }

  @Test
  void devicesMetersAgreeWithZkvDf() throws Exception {
    Path file = dir.resolve("dev.zkvemu");
    MeterRegistry registry = new SimpleMeterRegistry();
    String uri;
    Map<String, Double> device = new HashMap<>();
    // No WAL reserve: its thread refills reserved zones after the database closes (a policy
    // decision and a metadata record each), so the meters, read one by one, would see the device
    // at different moments and disagree with each other and with zkv df.
    ZonedEnvOptions quiet =
        ZonedEnvOptions.builder()
            .wal(io.zkv.wal.WalOptions.builder().reservedZones(0).build())
            .build();
    try (ZonedEnv env = ZonedEnv.createEmulated(file, "instant", GEOMETRY, quiet)) {
      uri = env.uri();
      try (ZkvDb db = ZkvDb.open(env, "/metrics/db", smallOptions())) {
        new ZkvMetrics(env, db).bindTo(registry);
        fill(db);
        Tags dbTags = Tags.of("device", uri, "database", "/metrics/db");
        double keys = registry.get("zkv.db.keys").tags(dbTags).gauge().value();
        assertTrue(keys > KEYS / 2.0 && keys <= KEYS * 1.5, "estimated keys " + keys);
        assertTrue(registry.get("zkv.db.sst.size").tags(dbTags).gauge().value() > 0);
        assertEquals(
            0, registry.get("zkv.db.background.errors").tags(dbTags).functionCounter().count());
      }
      assertTrue(
          Double.isNaN(registry.get("zkv.db.keys").gauge().value()),
          "a closed database's meters read NaN");
      // The policy decided the allocations; the counters are the file system's own. The env's
      // background threads (the WAL reserve's refill, GC) may decide more while the meters are
      // read, so each meter lies between the counters read before and after it.
      ZoneStats before = env.stats();
      double decisions = registry.get("zkv.placement.decisions").functionCounter().count();
      Map<PolicyOverride, Double> overrides = new java.util.EnumMap<>(PolicyOverride.class);
      for (PolicyOverride reason : PolicyOverride.values()) {
        overrides.put(
            reason,
            registry
                .get("zkv.placement.overrides")
                .tag("reason", reason.name().toLowerCase(java.util.Locale.ROOT))
                .functionCounter()
                .count());
      }
      double steals =
          registry
              .get("zkv.placement.overrides")
              .tag("reason", "zone_steal")
              .functionCounter()
              .count();
      ZoneStats after = env.stats();
      assertTrue(before.policyDecisions() > 0, before.toString());
      assertBetween(before.policyDecisions(), decisions, after.policyDecisions(), "decisions");
      for (PolicyOverride reason : PolicyOverride.values()) {
        assertBetween(
            before.overrides().get(reason),
            overrides.get(reason),
            after.overrides().get(reason),
            reason.name());
      }
      assertBetween(before.zoneSteals(), steals, after.zoneSteals(), "zone steals");
      for (Meter m : registry.getMeters()) {
        if (!m.getId().getName().startsWith("zkv.db.")) {
          assertEquals(uri, m.getId().getTag("device"), m.getId().toString());
          device.put(key(m), m.measure().iterator().next().getValue());
        }
      }
    }
    assertTrue(
        Double.isNaN(registry.get("zkv.space.used").gauge().value()),
        "a closed env's meters read NaN");

    Map<String, Long> df = dfBytes(uri);
    assertEquals(df.get("capacity"), device.get("zkv.space.capacity").longValue());
    assertEquals(df.get("used"), device.get("zkv.space.used").longValue());
    assertEquals(df.get("live"), device.get("zkv.space.live").longValue());
    assertEquals(df.get("free"), device.get("zkv.space.free").longValue());
    assertEquals(df.get("reclaimable"), device.get("zkv.space.reclaimable").longValue());
    assertEquals(
        dfAmplification(uri),
        String.format(Locale.ROOT, "%.2f", device.get("zkv.space.amplification")));

    // The workload wrote data, copied some or none, and the zones account for all 16.
    double host = device.get("zkv.written{source=host}");
    double deviceBytes =
        host
            + device.get("zkv.written{source=gc}")
            + device.get("zkv.written{source=padding}")
            + device.get("zkv.written{source=metadata}");
    assertTrue(host > KEYS * 200.0, "host bytes " + host);
    assertEquals(deviceBytes / host, device.get("zkv.write.amplification"), 1e-9);
    double zones = 0;
    for (ZoneCondition c : ZoneCondition.values()) {
      zones += device.get("zkv.zones{condition=" + c.name().toLowerCase(Locale.ROOT) + "}");
    }
    assertEquals(GEOMETRY.zoneCount(), zones);
    assertEquals(0.0, device.get("zkv.zones{condition=offline}"));
  }

  /** A meter of a monotonic counter read between two readings of the counter itself. */
  private static void assertBetween(long before, double meter, long after, String what) {
    assertTrue(
        before <= meter && meter <= after,
        what + ": meter " + meter + " outside the counter's " + before + ".." + after);
  }

  @Test
  void deviceErrorsCountWhatTheDeviceFailed() throws Exception {
    Path file = dir.resolve("errors.zkvemu");
    EmulatedDevice.format(file, GEOMETRY);
    MeterRegistry registry = new SimpleMeterRegistry();
    try (ZonedDevice device = ZonedDevice.open(EmulatedDevice.uri(file, "instant"))) {
      try (ZonedEnv env = ZonedEnv.open(device, ZonedEnv.Mode.FORMAT);
          ZkvDb db = ZkvDb.open(env, "/errors/db", smallOptions())) {
        new ZkvMetrics(env, db).bindTo(registry);
        fill(db);
        assertEquals(0, registry.get("zkv.device.errors").functionCounter().count());
        // Two reads fail with EIO, whoever makes them: here a direct read of the device.
        device.faults().failWithIoError(Set.of(FaultInjector.Op.READ), -1, 0, 2);
        ByteBuffer block = ByteBuffer.allocateDirect(GEOMETRY.lbaSize());
        for (int i = 0; i < 3; i++) {
          block.clear();
          if (i < 2) {
            assertThrows(ZonedDeviceException.class, () -> device.read(0, block));
          } else {
            device.read(0, block); // the first metadata zone's first block: written
          }
        }
        assertEquals(2, registry.get("zkv.device.errors").functionCounter().count());
        assertEquals(2, device.stats().errors());
        assertEquals(2, env.stats().deviceErrors());
      }
    }
  }

  @Test
  void refusesADatabaseOfAnotherDevice() {
    try (ZonedEnv a = ZonedEnv.createEmulated(dir.resolve("a.zkvemu"), "instant", GEOMETRY);
        ZonedEnv b = ZonedEnv.createEmulated(dir.resolve("b.zkvemu"), "instant", GEOMETRY);
        ZkvDb db = ZkvDb.open(b, "/db", smallOptions())) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> new ZkvMetrics(a, db));
      assertTrue(e.getMessage().startsWith("database /db is on " + b.uri()), e.getMessage());
    }
  }

  /** A meter's name plus its tags other than device, e.g. {@code zkv.written{source=host}}. */
  private static String key(Meter m) {
    StringBuilder b = new StringBuilder(m.getId().getName());
    List<String> tags =
        m.getId().getTags().stream()
            .filter(t -> !t.getKey().equals("device"))
            .map(t -> t.getKey() + "=" + t.getValue())
            .toList();
    if (!tags.isEmpty()) {
      b.append('{').append(String.join(",", tags)).append('}');
    }
    return b.toString();
  }

  private static String zkv(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        Zkv.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  private static Map<String, Long> dfBytes(String uri) {
    String out = zkv("df", "--device", uri, "--bytes");
    Map<String, Long> m = new HashMap<>();
    Matcher line = Pattern.compile("(?m)^(\\w+) +(\\d+) bytes").matcher(out);
    while (line.find()) {
      m.put(line.group(1), Long.parseLong(line.group(2)));
    }
    assertEquals(5, m.size(), out);
    return m;
  }

  private static String dfAmplification(String uri) {
    String out = zkv("df", "--device", uri);
    Matcher m = Pattern.compile("space amplification (\\d+\\.\\d\\d)").matcher(out);
    assertTrue(m.find(), out);
    return m.group(1);
  }
}
