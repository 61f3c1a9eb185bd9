package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams' RocksDB metrics from RocksDB properties (group {@code stream-state-metrics}, recording
 * level INFO, KIP-607) keep working on zkv stores: they read the zkv database's properties, and the
 * key estimate equals that of the same run on Streams' default RocksDB (on 4.3 it also counts the
 * offsets Streams keeps in a column family, KIP-1035).
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
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (n.group().equals("stream-state-metrics")
          && n.name().equals(name)
          && "plain".equals(n.tags().get("rocksdb-state-id"))) {
        Object v = e.getValue().metricValue();
        return v instanceof BigInteger b ? b : BigInteger.valueOf(((Number) v).longValue());
      }
    }
    throw new AssertionError(
        "no stream-state-metrics " + name + " for store plain in " + metrics.keySet());
  }
}
