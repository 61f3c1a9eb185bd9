package io.zkv.examples.guide;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zkv.Compression;
import io.zkv.ZkvDb;
import io.zkv.ZkvNoSpaceException;
import io.zkv.ZkvOptions;
import io.zkv.ZonedEnv;
import io.zkv.ZonedEnvOptions;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.examples.Snippets;
import io.zkv.examples.streams.WordCountApp;
import io.zkv.kafka.StreamsFixture;
import io.zkv.kafka.ZkvRocksDBConfigSetter;
import io.zkv.kafka.ZkvStreamsConfig;
import io.zkv.micrometer.ZkvMetrics;
import io.zkv.placement.GreedyVictimPolicy;
import io.zkv.placement.LizaPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of docs/guide.md, compiled and run here: the guide shows the region between
 * {@code // snippet:NAME} and {@code // end:NAME} of this file, and {@link
 * #theGuideShowsTheseSnippets} checks that it does, character for character (indentation aside).
 */
class GuideSnippetsTest {
  @TempDir Path dir;

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void createAnEmulatedDevice() {
    Path file = dir.resolve("dev.zkvemu");
    // snippet:create
    try (ZonedEnv env = ZonedEnv.createEmulated(file, "zn540", DeviceGeometry.small());
        ZkvDb db = ZkvDb.open(env, "/orders")) {
      db.put(bytes("order-1"), bytes("shipped"));
      byte[] status = db.get(bytes("order-1"));
    }
    // end:create
    assertTrue(Files.exists(file));
  }

  @Test
  void openByUriWithPolicies() throws Exception {
    EmulatedDevice.format(dir.resolve("dev.zkvemu"), DeviceGeometry.small());
    String uri = EmulatedDevice.uri(dir.resolve("dev.zkvemu"), "instant");
    // snippet:open
    ZonedEnvOptions policies =
        ZonedEnvOptions.builder()
            .placement(new LizaPolicy(10)) // ZenFS's LIZA, finishing zones with < 10% left
            .victimPolicy(new GreedyVictimPolicy()) // GC empties the zone with least to copy
            .gcStartPercent(20) // background GC from 20% free space (0: off)
            .build();
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.FORMAT_IF_UNFORMATTED, policies);
        ZkvDb users = ZkvDb.open(env, "/users");
        ZkvDb sessions = ZkvDb.open(env, "/sessions")) {
      users.put(bytes("u1"), bytes("Ada"));
      sessions.put(bytes("s1"), bytes("u1"));
    }
    // end:open
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT);
        ZkvDb users = ZkvDb.open(env, "/users")) {
      assertArrayEquals(bytes("Ada"), users.get(bytes("u1")));
    }
  }

  @Test
  void tuneADatabase() {
    try (ZonedEnv env =
        ZonedEnv.createEmulated(dir.resolve("dev.zkvemu"), "instant", DeviceGeometry.small())) {
      // snippet:options
      ZkvOptions options =
          ZkvOptions.builder()
              .writeBufferSize(32L << 20) // memtable size: how much a flush writes at once
              .syncWrites(true) // every put durable when it returns (a WAL sync)
              .compression(Compression.LZ4)
              .bloomFilterBitsPerKey(10) // SST Bloom filters: a Get skips the files without its key
              .rocksDbTuning(o -> o.setMaxBackgroundJobs(4)) // anything else RocksDB offers
              .build();
      try (ZkvDb db = ZkvDb.open(env, "/events", options)) {
        db.put(bytes("e1"), bytes("login"));
      }
      // end:options
    }
  }

  @Test
  void resumeAfterNoSpace() {
    DeviceGeometry tiny = DeviceGeometry.of(12, 4L << 20, 3L << 20, 8, 8, 1 << 20);
    ZkvOptions small = ZkvOptions.builder().writeBufferSize(1L << 20).build();
    try (ZonedEnv env = ZonedEnv.createEmulated(dir.resolve("full.zkvemu"), "instant", tiny);
        ZkvDb db = ZkvDb.open(env, "/full", small)) {
      byte[] value = new byte[1000];
      int n = 0;
      try {
        for (; ; n++) {
          db.put(bytes(String.format("k%08d", n)), value);
        }
      } catch (ZkvNoSpaceException full) {
        // the device is full; the snippet below meets it again and recovers
      }
      byte[] key = bytes("next");
      byte[] from = bytes("k00000000");
      byte[] to = bytes(String.format("k%08d", n / 2));
      // snippet:nospace
      try {
        db.put(key, value);
      } catch (ZkvNoSpaceException e) {
        // the device is full: the database takes no writes (it stays readable) until space is freed
        db.deleteFilesInRange(from, to); // drops whole SST files of the range at once
        db.resume(); // reclaims the freed zones and lets writes go on
        db.deleteRange(from, to); // and deletes what is left of the range for good
        db.put(key, value);
      }
      // end:nospace
      assertArrayEquals(value, db.get(key));
      assertArrayEquals(value, db.get(bytes(String.format("k%08d", n - 1))));
    }
  }

  @Test
  void bindMetrics() {
    try (ZonedEnv env =
            ZonedEnv.createEmulated(dir.resolve("dev.zkvemu"), "instant", DeviceGeometry.small());
        ZkvDb db = ZkvDb.open(env, "/orders")) {
      // snippet:metrics
      SimpleMeterRegistry registry = new SimpleMeterRegistry(); // or your application's registry
      new ZkvMetrics(env, db).bindTo(registry); // zkv.space.*, zkv.written, zkv.zones, ...
      // end:metrics
      assertFalse(registry.getMeters().isEmpty());
    }
  }

  /** The snippet as pasted, on a fresh machine: its emulated device does not exist yet. */
  @Test
  void configureKafkaStreams() throws Exception {
    String stateDir = dir.resolve("state").toString();
    String device = dir.resolve("streams.zkvemu").toString();
    // snippet:streams
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "word-count");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "broker:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir); // the same absolute path at every start
    props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, ZkvRocksDBConfigSetter.class);
    props.put(ZkvStreamsConfig.DEVICE, "emu:" + device); // or nvme:/dev/ng0n1, zbd:/dev/nvme0n1
    props.put(ZkvStreamsConfig.EMULATOR_PROFILE, "zn540"); // an emulated device's timing
    props.put(ZkvStreamsConfig.EMULATOR_ZONES, "64"); // creates the device file where missing
    // end:streams
    assertFalse(Files.exists(Path.of(device)));
    String uri = "emu:" + device + "?profile=zn540";
    try (TopologyTestDriver d = new TopologyTestDriver(WordCountApp.topology(), props)) {
      d.createInputTopic(WordCountApp.LINES, new StringSerializer(), new StringSerializer())
          .pipeInput("line", "zoned zoned storage");
      assertEquals(2L, d.getKeyValueStore(WordCountApp.COUNTS).get("zoned"));
    }
    StreamsFixture.awaitDeviceClosed(uri);
    try (ZonedEnv env = ZonedEnv.open(uri, ZonedEnv.Mode.MOUNT)) {
      assertTrue(env.zoneFs().stats().files() > 0, "the stores' files are on the device");
    }
  }

  /** The snippet as pasted: the registry goes into the properties before Streams copies them. */
  @Test
  void kafkaStreamsMetrics() throws Exception {
    String device = "emu:" + dir.resolve("streams.zkvemu") + "?profile=instant";
    Properties props = WordCountApp.config("localhost:9", dir.resolve("state").toString(), device);
    Topology topology = WordCountApp.topology();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    // snippet:streamsmetrics
    props.put(ZkvStreamsConfig.METRICS_REGISTRY, registry); // zkv's device and store meters
    props.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG"); // RocksDB statistics too
    KafkaStreams streams = new KafkaStreams(topology, props); // copies props: set them before
    new KafkaStreamsMetrics(streams).bindTo(registry); // Streams' own, per thread, task and store
    // end:streamsmetrics
    streams.close();
    // The stores open where Streams runs the tasks: here the test driver, with the same properties.
    try (TopologyTestDriver d = new TopologyTestDriver(WordCountApp.topology(), props)) {
      assertTrue(registry.get("zkv.files").tag("device", device).gauge().value() > 0);
      assertEquals(0, registry.get("zkv.device.errors").functionCounter().count());
      assertFalse(d.metrics().isEmpty());
      // Each store's meters join once its database has opened, with Streams' tags.
      long end = System.nanoTime() + 10_000_000_000L;
      while (registry.find("zkv.store.files").tag("task-id", "0_0").gauge() == null
          && System.nanoTime() < end) {
        Thread.sleep(1);
      }
      assertTrue(registry.get("zkv.store.files").tag("task-id", "0_0").gauge().value() > 0);
    }
    StreamsFixture.awaitDeviceClosed(device);
  }

  /** docs/guide.md's ```java blocks after {@code <!-- snippet:NAME -->} are this file's regions. */
  @Test
  void theGuideShowsTheseSnippets() throws Exception {
    Snippets.check(
        Path.of("..", "docs", "guide.md"),
        Path.of("src", "test", "java", "io", "zkv", "examples", "guide", "GuideSnippetsTest.java"));
  }

  /**
   * docs/kafka-streams.md shows the guide's two Streams snippets, run here, character for
   * character.
   */
  @Test
  void theKafkaStreamsPageShowsTheStreamsSnippets() throws Exception {
    Snippets.checkSome(
        Path.of("..", "docs", "kafka-streams.md"),
        Path.of("src", "test", "java", "io", "zkv", "examples", "guide", "GuideSnippetsTest.java"),
        List.of("streams", "streamsmetrics"));
  }
}
