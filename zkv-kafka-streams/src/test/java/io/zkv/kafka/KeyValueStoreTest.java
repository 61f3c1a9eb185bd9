package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key-value and timestamped stores on zkv through TopologyTestDriver: written, closed, re-opened
 * from the device, wiped.
 *
 * <p>{@code TopologyTestDriver.close()} always deletes the state directory (it is Streams' wipe).
 * An application restart does not; to re-open as a restart does, these tests keep a copy of the
 * host state directory from before {@code close()} and put it back before the next driver.
 */
class KeyValueStoreTest {
  @TempDir Path dir;

  /** A table (timestamped key-value store "table") and a plain key-value store "plain". */
  static Topology topology() {
    StreamsBuilder b = new StreamsBuilder();
    b.table(
        "in",
        Consumed.with(Serdes.String(), Serdes.String()),
        Materialized.<String, String, KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>>as(
            "table"));
    b.addStateStore(
        org.apache.kafka.streams.state.Stores.keyValueStoreBuilder(
            org.apache.kafka.streams.state.Stores.persistentKeyValueStore("plain"),
            Serdes.String(),
            Serdes.String()));
    b.stream("plain-in", Consumed.with(Serdes.String(), Serdes.String()))
        .process(() -> new PutProcessor("plain"), "plain");
    return b.build();
  }

  @Test
  void timestampedAndPlainStoresSurviveReopenAndAreEmptyAfterWipe() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Map<String, String> expected = new TreeMap<>();
    Path saved;
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), f.props("kv"))) {
      TestInputTopic<String, String> in =
          d.createInputTopic("in", new StringSerializer(), new StringSerializer());
      TestInputTopic<String, String> plain =
          d.createInputTopic("plain-in", new StringSerializer(), new StringSerializer());
      for (int i = 0; i < 300; i++) {
        String k = "k" + (i % 120);
        String v = i % 11 == 0 ? null : "v" + i;
        in.pipeInput(k, v);
        plain.pipeInput(k, v);
        if (v == null) {
          expected.remove(k);
        } else {
          expected.put(k, v);
        }
      }
      assertEquals(expected, contents(d.getKeyValueStore("table")));
      assertEquals(expected, contents(d.getKeyValueStore("plain")));
      saved = f.saveHostState();
    }
    f.awaitDeviceClosed();
    assertTrue(
        f.zoneStoreDirs().contains(f.stateDir.resolve("kv/0_0/rocksdb/table").toString()),
        f.zoneStoreDirs().toString());

    // Re-open (the timestamped store's second open is the one that failed on Streams 4.1.1 with
    // "Column families not opened: keyValueWithTimestamp" when listColumnFamilies missed the Env).
    f.restoreHostState(saved);
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), f.props("kv"))) {
      assertEquals(expected, contents(d.getKeyValueStore("table")));
      assertEquals(expected, contents(d.getKeyValueStore("plain")));
      ValueAndTimestamp<String> vt =
          d.<String, String>getTimestampedKeyValueStore("table").get("k1");
      assertEquals(expected.get("k1"), vt == null ? null : vt.value());
    }
    f.awaitDeviceClosed();

    // That close wiped the host state: the next open must not see the old data.
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), f.props("kv"))) {
      assertEquals(Map.of(), contents(d.getKeyValueStore("table")));
      assertEquals(Map.of(), contents(d.getKeyValueStore("plain")));
      assertNull(d.getKeyValueStore("plain").get("k1"));
    }
    f.awaitDeviceClosed();
  }

  static Map<String, String> contents(KeyValueStore<String, ?> store) {
    Map<String, String> m = new TreeMap<>();
    try (KeyValueIterator<String, ?> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, ?> kv = it.next();
        Object v = kv.value instanceof ValueAndTimestamp<?> vt ? vt.value() : kv.value;
        m.put(kv.key, (String) v);
      }
    }
    return m;
  }
}
