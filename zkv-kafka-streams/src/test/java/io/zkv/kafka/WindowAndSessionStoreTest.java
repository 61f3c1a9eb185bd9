package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Windowed and session stores (segmented: one RocksDB per segment, each with its own config setter)
 * through TopologyTestDriver: re-opened from the device, wiped, and the zone files of segments
 * Streams expired (it deletes their host directories) destroyed. See {@link KeyValueStoreTest} for
 * why the host state directory is saved before {@code close()}.
 */
class WindowAndSessionStoreTest {
  private static final Instant START = Instant.parse("2026-11-23T00:00:00Z");
  private static final int EVENTS = 60;
  private static final Instant LAST = START.plusSeconds(35L * (EVENTS - 1));

  @TempDir Path dir;

  static Topology topology() {
    StreamsBuilder b = new StreamsBuilder();
    KStream<String, String> events =
        b.stream("events", Consumed.with(Serdes.String(), Serdes.String()));
    events
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMinutes(1), Duration.ZERO))
        .count(
            Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("per-minute")
                .withRetention(Duration.ofMinutes(10)));
    events
        .groupByKey()
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(30), Duration.ZERO))
        .count(
            Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("sessions")
                .withRetention(Duration.ofMinutes(10)));
    return b.build();
  }

  @Test
  void segmentedStoresSurviveReopenAreEmptyAfterWipeAndExpiredSegmentsLeaveNoZoneFiles()
      throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Map<String, Long> windows;
    Map<String, Long> sessions;
    Path saved;
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), props(f))) {
      TestInputTopic<String, String> in =
          d.createInputTopic("events", new StringSerializer(), new StringSerializer());
      for (int i = 0; i < EVENTS; i++) { // 35 minutes of events: segments of 5 minutes expire
        in.pipeInput("k" + i % 4, "e" + i, START.plusSeconds(35L * i));
      }
      windows = windows(d.getWindowStore("per-minute"));
      sessions = sessions(d.getSessionStore("sessions"));
      assertFalse(windows.isEmpty());
      assertFalse(sessions.isEmpty());
      saved = f.saveHostState();
    }
    f.awaitDeviceClosed();

    f.restoreHostState(saved);
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), props(f))) {
      assertEquals(windows, windows(d.getWindowStore("per-minute")));
      assertEquals(sessions, sessions(d.getSessionStore("sessions")));
      saved = f.saveHostState();
    }
    f.awaitDeviceClosed();
    f.restoreHostState(saved);
    // Segments expired during the first run had their host directories deleted by Streams; the
    // re-open destroyed their zone files. What is left on zones is what is on the host.
    assertEquals(hostStoreDirs(f.stateDir.resolve("win")), f.zoneStoreDirs());
    assertTrue(f.zoneStoreDirs().size() >= 3, f.zoneStoreDirs().toString());

    StreamsFixture.deleteTree(f.stateDir); // Streams' wipe (cleanUp)
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), props(f))) {
      assertEquals(Map.of(), windows(d.getWindowStore("per-minute")));
      assertEquals(Map.of(), sessions(d.getSessionStore("sessions")));
    }
    f.awaitDeviceClosed();
  }

  /** No record cache: the stores' contents are what RocksDB holds (the cache ignores retention). */
  private static java.util.Properties props(StreamsFixture f) {
    java.util.Properties p = f.props("win");
    p.put(org.apache.kafka.streams.StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
    return p;
  }

  private static Map<String, Long> windows(WindowStore<String, Long> store) {
    Map<String, Long> m = new TreeMap<>();
    // Windows within the retention period of the last event: all() may also return older windows
    // of segments not dropped yet, depending on the stream time the store has observed.
    try (KeyValueIterator<Windowed<String>, Long> it =
        store.fetchAll(LAST.minus(Duration.ofMinutes(9)), LAST)) {
      while (it.hasNext()) {
        KeyValue<Windowed<String>, Long> kv = it.next();
        m.put(kv.key.key() + "@" + kv.key.window().start(), kv.value);
      }
    }
    return m;
  }

  private static Map<String, Long> sessions(SessionStore<String, Long> store) {
    Map<String, Long> m = new TreeMap<>();
    for (int k = 0; k < 4; k++) {
      try (KeyValueIterator<Windowed<String>, Long> it = store.fetch("k" + k)) {
        while (it.hasNext()) {
          KeyValue<Windowed<String>, Long> kv = it.next();
          if (kv.key.window().end() < LAST.minus(Duration.ofMinutes(9)).toEpochMilli()) {
            continue; // as for windows: only sessions within the retention period
          }
          m.put(
              kv.key.key() + "@" + kv.key.window().start() + "-" + kv.key.window().end(), kv.value);
        }
      }
    }
    return m;
  }

  /** Store directories on the host: task/rocksdb/store and task/store/segment. */
  static TreeSet<String> hostStoreDirs(Path appDir) throws Exception {
    TreeSet<String> out = new TreeSet<>();
    try (Stream<Path> s = Files.walk(appDir, 3)) {
      s.filter(p -> appDir.relativize(p).getNameCount() == 3 && Files.isDirectory(p))
          .map(Path::toFile)
          .map(File::getAbsolutePath)
          .forEach(out::add);
    }
    return out;
  }
}
