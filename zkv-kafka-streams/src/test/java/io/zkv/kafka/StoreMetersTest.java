package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * zkv's per-store meters ({@code zkv.store.*}) reach the registry of {@code zkv.metrics.registry}
 * with the tags Streams gives the same store's metrics ({@code thread-id}, {@code task-id}, {@code
 * rocksdb-state-id} / {@code rocksdb-window-state-id} / {@code rocksdb-session-state-id}), one set
 * per store (a window or session store's segments share theirs); their SST bytes equal RocksDB's
 * own account of the store (Streams' {@code total-sst-files-size}, summed over segments as Streams
 * sums it); they leave the registry when the store closes and come back when it opens again.
 */
class StoreMetersTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private static final Map<String, String> SCOPE_TAGS =
      Map.of(
          "counts", "rocksdb-state-id",
          "per-minute", "rocksdb-window-state-id",
          "sessions", "rocksdb-session-state-id");

  @TempDir Path dir;

  /** A count per key (key-value store "counts") beside the windowed and session counts. */
  static Topology topology() {
    StreamsBuilder b = new StreamsBuilder();
    KStream<String, String> events =
        b.stream("events", Consumed.with(Serdes.String(), Serdes.String()));
    events
        .groupByKey()
        .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts"));
    WindowAndSessionStoreTest.windowedCounts(events);
    return b.build();
  }

  @Test
  void storeMetersCarryStreamsTagsMatchTheStoreAndLeaveWhenItCloses() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Properties props = f.props("store-meters");
    props.put(ZkvStreamsConfig.METRICS_REGISTRY, registry);
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
    Path saved;
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), props)) {
      TestInputTopic<String, String> in =
          d.createInputTopic("events", new StringSerializer(), new StringSerializer());
      for (int i = 0; i < 60; i++) { // 35 minutes: several 5-minute segments
        in.pipeInput("k" + i % 4, "e" + i, START.plusSeconds(35L * i));
      }
      checkStoreMeters(registry, d, f.uri, false);
      saved = f.saveHostState();
    }
    f.awaitDeviceClosed();
    assertEquals(List.of(), storeMeters(registry), "the store meters leave with their stores");

    // Opened again (a restart): the stores' memtables were flushed at close, so they hold SSTs.
    f.restoreHostState(saved);
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), props)) {
      checkStoreMeters(registry, d, f.uri, true);
    }
    f.awaitDeviceClosed();
    assertEquals(List.of(), storeMeters(registry));
  }

  private static void checkStoreMeters(
      SimpleMeterRegistry registry, TopologyTestDriver d, String uri, boolean flushed)
      throws InterruptedException {
    String thread = Thread.currentThread().getName(); // the driver runs its tasks on this thread
    for (Map.Entry<String, String> store : SCOPE_TAGS.entrySet()) {
      Map<String, String> tags =
          Map.of("thread-id", thread, "task-id", "0_0", store.getValue(), store.getKey());
      Gauge size = await(registry, "zkv.store.size", tags);
      double sst = gauge(registry, "zkv.store.sst.size", tags).value();
      double sstFiles = gauge(registry, "zkv.store.sst.files", tags).value();
      double files = gauge(registry, "zkv.store.files", tags).value();
      // RocksDB's own account of the store's SSTs, through Streams' metric with the same tags.
      BigInteger rocksSst =
          StreamsFixture.stateStoreMetric(d.metrics(), "total-sst-files-size", tags);
      assertEquals(rocksSst.doubleValue(), sst, store.getKey() + " SST bytes");
      if (flushed) {
        assertTrue(sst > 0 && sstFiles > 0, store.getKey() + " holds SSTs after a flush");
      }
      // Besides SSTs each database has CURRENT, IDENTITY, a MANIFEST, OPTIONS and its info LOG.
      assertTrue(files >= sstFiles + 5, store.getKey() + " files " + files);
      assertTrue(size.value() > sst, store.getKey() + " size " + size.value());
      assertEquals(uri, size.getId().getTag("device"));
      assertEquals(
          1,
          registry.find("zkv.store.size").tag(store.getValue(), store.getKey()).gauges().size(),
          "one set of meters per store, whatever its segments");
    }
  }

  private static Gauge await(SimpleMeterRegistry registry, String name, Map<String, String> tags)
      throws InterruptedException {
    long end = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < end) {
      Gauge g = find(registry, name, tags);
      if (g != null) {
        return g;
      }
      Thread.sleep(1);
    }
    return fail("no " + name + " " + tags + " in " + storeMeters(registry));
  }

  private static Gauge gauge(SimpleMeterRegistry registry, String name, Map<String, String> tags) {
    Gauge g = find(registry, name, tags);
    return g != null ? g : fail("no " + name + " " + tags);
  }

  private static Gauge find(SimpleMeterRegistry registry, String name, Map<String, String> tags) {
    var search = registry.find(name);
    for (Map.Entry<String, String> t : tags.entrySet()) {
      search = search.tag(t.getKey(), t.getValue());
    }
    return search.gauge();
  }

  private static List<String> storeMeters(SimpleMeterRegistry registry) {
    return registry.getMeters().stream()
        .map(Meter::getId)
        .filter(id -> id.getName().startsWith("zkv.store."))
        .map(Object::toString)
        .toList();
  }
}
