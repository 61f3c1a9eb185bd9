package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Windowed and session stores (segmented: one RocksDB per segment, each with its own config setter)
 * through TopologyTestDriver: re-opened from the device, wiped, and the zone files of segments
 * Streams expired (it deletes their host directories) destroyed; then restored from their changelog
 * topics through Streams' restore path, and equal to the changelog. See {@link KeyValueStoreTest}
 * for why the host state directory is saved before {@code close()}.
 */
class WindowAndSessionStoreTest {
  private static final Instant START = Instant.parse("2026-11-23T00:00:00Z");
  private static final int EVENTS = 60;
  private static final Instant LAST = START.plusSeconds(35L * (EVENTS - 1));
  private static final Duration RETENTION = Duration.ofMinutes(10);
  private static final Duration MINUTE = Duration.ofMinutes(1);

  @TempDir Path dir;

  static Topology topology() {
    StreamsBuilder b = new StreamsBuilder();
    windowedCounts(b.stream("events", Consumed.with(Serdes.String(), Serdes.String())));
    return b.build();
  }

  /** Counts {@code events} per key and minute ("per-minute") and per session ("sessions"). */
  static void windowedCounts(KStream<String, String> events) {
    events
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(MINUTE, Duration.ZERO))
        .count(
            Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("per-minute")
                .withRetention(RETENTION));
    events
        .groupByKey()
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(30), Duration.ZERO))
        .count(
            Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("sessions")
                .withRetention(RETENTION));
  }

  @Test
  void segmentedStoresSurviveReopenAreEmptyAfterWipeAndAreRestoredFromTheirChangelogs()
      throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Map<String, Long> windows;
    Map<String, Long> sessions;
    List<TestRecord<byte[], byte[]>> windowLog;
    List<TestRecord<byte[], byte[]>> sessionLog;
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
      windowLog = changelog(d, "per-minute");
      sessionLog = changelog(d, "sessions");
      // The changelogs say what the stores hold (within the retention period).
      assertEquals(windows, windowsOf(windowLog));
      assertEquals(sessions, sessionsOf(sessionLog));
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
      saved = f.saveHostState();
    }
    f.awaitDeviceClosed();

    // Restore both stores from their changelogs, as the task's restore does after a wipe, in
    // batches (one WriteBatch per segment and batch, WAL off); then open them as a restart does.
    f.restoreHostState(saved);
    File taskDir = f.stateDir.resolve("win/0_0").toFile();
    try (StoreHarness h =
        new StoreHarness(
            Stores.persistentTimestampedWindowStore("per-minute", RETENTION, MINUTE, false).get(),
            props(f),
            new TaskId(0, 0),
            taskDir)) {
      for (int i = 0; i < windowLog.size(); i += 25) {
        h.restoreChangelog(windowLog.subList(i, Math.min(windowLog.size(), i + 25)), true);
      }
    }
    try (StoreHarness h =
        new StoreHarness(
            Stores.persistentSessionStore("sessions", RETENTION).get(),
            props(f),
            new TaskId(0, 0),
            taskDir)) {
      for (int i = 0; i < sessionLog.size(); i += 25) {
        h.restoreChangelog(sessionLog.subList(i, Math.min(sessionLog.size(), i + 25)), false);
      }
    }
    f.awaitDeviceClosed();
    saved = f.saveHostState();
    try (TopologyTestDriver d = new TopologyTestDriver(topology(), props(f))) {
      assertEquals(windowsOf(windowLog), windows(d.getWindowStore("per-minute")));
      assertEquals(sessionsOf(sessionLog), sessions(d.getSessionStore("sessions")));
    }
    f.awaitDeviceClosed();
    f.restoreHostState(saved);
    assertEquals(hostStoreDirs(f.stateDir.resolve("win")), f.zoneStoreDirs());
  }

  private static List<TestRecord<byte[], byte[]>> changelog(TopologyTestDriver d, String store) {
    return d.createOutputTopic(
            "win-" + store + "-changelog", new ByteArrayDeserializer(), new ByteArrayDeserializer())
        .readRecordsToList();
  }

  /**
   * A window store's state from its changelog: the last value of each window (key: the record key,
   * its window start, a sequence number), within the retention period as {@link #windows} reads.
   */
  private static Map<String, Long> windowsOf(List<TestRecord<byte[], byte[]>> log) {
    Map<String, Long> m = new TreeMap<>();
    for (TestRecord<byte[], byte[]> r : log) {
      ByteBuffer k = ByteBuffer.wrap(r.key());
      String key = new String(r.key(), 0, r.key().length - 12, StandardCharsets.UTF_8);
      long start = k.getLong(r.key().length - 12);
      put(m, key + "@" + start, r.value());
    }
    long from = LAST.minus(Duration.ofMinutes(9)).toEpochMilli();
    m.keySet().removeIf(w -> Long.parseLong(w.substring(w.indexOf('@') + 1)) < from);
    return m;
  }

  /** A session store's state from its changelog (key: record key, session end, session start). */
  private static Map<String, Long> sessionsOf(List<TestRecord<byte[], byte[]>> log) {
    Map<String, Long> m = new TreeMap<>();
    for (TestRecord<byte[], byte[]> r : log) {
      ByteBuffer k = ByteBuffer.wrap(r.key());
      int n = r.key().length - 16;
      long end = k.getLong(n);
      if (end < LAST.minus(Duration.ofMinutes(9)).toEpochMilli()) {
        continue;
      }
      String key = new String(r.key(), 0, n, StandardCharsets.UTF_8);
      put(m, key + "@" + k.getLong(n + 8) + "-" + end, r.value());
    }
    return m;
  }

  private static void put(Map<String, Long> m, String key, byte[] value) {
    if (value == null) {
      m.remove(key);
    } else {
      m.put(key, ByteBuffer.wrap(value).getLong());
    }
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
