package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams' RocksDB metrics keep working on zkv stores: those from RocksDB properties (group {@code
 * stream-state-metrics}, recording level INFO, KIP-607) read the zkv database's properties, and the
 * key estimate equals that of the same run on Streams' default RocksDB (on 4.3 it also counts the
 * offsets Streams keeps in a column family, KIP-1035); those from RocksDB statistics (recording
 * level DEBUG) move as the store is written and read, by as much as on the default RocksDB. zkv's
 * own device meters reach the registry given in {@code zkv.metrics.registry}.
 */
class StateStoreMetricsTest {
  private static final int KEYS = 200;

  @TempDir Path dir;

  @Test
  void propertyMetricsDescribeTheZkvStore() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Properties host = f.props("host");
    host.remove(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
    long hostKeys = run(host, null);
    assertTrue(hostKeys >= KEYS, "host estimate " + hostKeys);
    run(f.props("m"), hostKeys);
    f.awaitDeviceClosed();
  }

  @Test
  void statisticsMetricsMoveOnAZkvStore() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    // One application id for both: on 4.3 the bytes written include the offsets Streams keeps in
    // the store (KIP-1035), whose keys name the application's topics.
    Properties host = f.props("debug");
    host.remove(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
    Map<String, Double> onHost = runRecorded(host);
    Map<String, Double> onZkv = runRecorded(f.props("debug"));
    f.awaitDeviceClosed();
    // Round 1 writes new keys (its reads find nothing), round 2 reads and overwrites them.
    assertTrue(onZkv.get("bytes-written-total#1") > 0, onZkv.toString());
    assertEquals(0.0, onZkv.get("bytes-read-total#1"), onZkv.toString());
    for (String name : List.of("bytes-written-total", "bytes-read-total")) {
      assertTrue(onZkv.get(name + "#2") > onZkv.get(name + "#1"), name + " " + onZkv);
      // Puts and gets of the same records: RocksDB counts the same bytes whatever the Env.
      assertEquals(onHost.get(name + "#1"), onZkv.get(name + "#1"), name);
      assertEquals(onHost.get(name + "#2"), onZkv.get(name + "#2"), name);
    }
    assertEquals(0.0, onZkv.get("number-file-errors-total#2"));
    // Streams 4.1 flushes the store at every commit, 4.3 does not: flushes happen on both targets
    // or on neither (their byte counts differ by the SST files' host-specific properties).
    assertEquals(
        onHost.get("memtable-bytes-flushed-total#2") > 0,
        onZkv.get("memtable-bytes-flushed-total#2") > 0,
        onHost + " " + onZkv);
  }

  /**
   * Pipes KEYS records, runs the recording trigger, pipes as many again and runs it again (DEBUG);
   * returns the store's statistics metrics after each round (name#round).
   */
  private static Map<String, Double> runRecorded(Properties props) {
    props.put(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG");
    AtomicReference<Runnable> trigger = new AtomicReference<>();
    StreamsBuilder b = new StreamsBuilder();
    b.addStateStore(
        Stores.keyValueStoreBuilder(
                Stores.persistentKeyValueStore("plain"), Serdes.String(), Serdes.String())
            .withCachingDisabled());
    b.stream("plain-in", Consumed.with(Serdes.String(), Serdes.String()))
        .process(() -> new RecordingPutProcessor("plain", trigger), "plain");
    Map<String, Double> seen = new TreeMap<>();
    try (TopologyTestDriver d = new TopologyTestDriver(b.build(), props)) {
      TestInputTopic<String, String> in =
          d.createInputTopic("plain-in", new StringSerializer(), new StringSerializer());
      for (int round = 1; round <= 2; round++) {
        for (int i = 0; i < KEYS; i++) {
          in.pipeInput("key-" + i, "value-" + round + "-" + i);
        }
        trigger.get().run();
        for (String name :
            List.of(
                "bytes-written-total",
                "bytes-read-total",
                "memtable-bytes-flushed-total",
                "number-file-errors-total")) {
          seen.put(name + "#" + round, value(d.metrics(), name).doubleValue());
        }
      }
    }
    return seen;
  }

  @Test
  void zkvMetersReachTheConfiguredRegistry() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Properties props = f.props("meters");
    props.put(ZkvStreamsConfig.METRICS_REGISTRY, registry);
    run(props, null);
    f.awaitDeviceClosed();
    assertNull(
        registry.find("zkv.space.used").gauge(), "the meters leave the registry with the device");
    // While the device is open, the meters read it.
    try (TopologyTestDriver d = new TopologyTestDriver(KeyValueStoreTest.topology(), props)) {
      d.createInputTopic("plain-in", new StringSerializer(), new StringSerializer())
          .pipeInput("k", "v");
      assertTrue(registry.get("zkv.files").tag("device", f.uri).gauge().value() > 0);
      assertEquals(0, registry.get("zkv.device.errors").functionCounter().count());
    }
    f.awaitDeviceClosed();
  }

  /** Writes the keys and checks the store's metrics; returns estimate-num-keys. */
  private static long run(Properties props, Long expectedKeys) {
    try (TopologyTestDriver d = new TopologyTestDriver(KeyValueStoreTest.topology(), props)) {
      TestInputTopic<String, String> in =
          d.createInputTopic("plain-in", new StringSerializer(), new StringSerializer());
      for (int i = 0; i < KEYS; i++) {
        in.pipeInput("key-" + i, "value-" + i);
      }
      Map<MetricName, ? extends Metric> metrics = d.metrics();
      long keys = value(metrics, "estimate-num-keys").longValue();
      if (expectedKeys != null) {
        assertEquals(expectedKeys.longValue(), keys);
      }
      assertEquals(0, value(metrics, "background-errors").longValue());
      assertTrue(value(metrics, "block-cache-capacity").longValue() > 0);
      BigInteger sst = value(metrics, "total-sst-files-size");
      BigInteger memtables = value(metrics, "cur-size-all-mem-tables");
      assertTrue(
          sst.signum() > 0 || memtables.signum() > 0, "sst " + sst + " memtables " + memtables);
      return keys;
    }
  }

  /** The metric {@code name} of store "plain" (RocksDB state store metrics). */
  private static BigInteger value(Map<MetricName, ? extends Metric> metrics, String name) {
    return StreamsFixture.stateStoreMetric(
        metrics, name, n -> "plain".equals(n.tags().get("rocksdb-state-id")));
  }
}
