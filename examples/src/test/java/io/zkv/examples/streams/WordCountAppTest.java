package io.zkv.examples.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.zkv.kafka.StoreHarness;
import io.zkv.kafka.StreamsFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The word count on an emulated zoned device: 100,000 records (lines of 10 words, 1,000,000 words
 * over 30 minutes of record time), both stores checked against a model; closed, re-opened on the
 * same device and checked again; then wiped (the driver's close deletes the state directory), found
 * empty, and the word counts restored from their changelog through Streams' restore path, equal to
 * the model.
 *
 * <p>{@code TopologyTestDriver} commits after every record; on Kafka Streams 4.1 a commit flushes
 * every RocksDB store of the task and writes Streams' checkpoint file with an fsync on the host
 * (4.3 does neither). Where {@code /dev/shm} exists the state directory and the device file live
 * there, so that those fsyncs of Streams' own files cost nothing: the stores are on the emulated
 * zoned device either way ({@code docs/kafka-streams.md}: what the time of a record goes into).
 *
 * <p>{@code TopologyTestDriver.close()} always deletes the state directory. An application restart
 * does not: to re-open as a restart does, the test keeps a copy of the host state directory from
 * before {@code close()} and puts it back.
 */
class WordCountAppTest {
  private static final int LINES = 100_000;
  private static final int WORDS_PER_LINE = 10;
  private static final Instant START = Instant.parse("2026-11-23T00:00:00Z");

  @TempDir Path tempDir;

  @Test
  void hundredThousandRecordsCountedReopenedWipedAndRestored() throws Exception {
    Path shm = Path.of("/dev/shm");
    Path dir =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? Files.createTempDirectory(shm, "zkv-wordcount")
            : tempDir;
    try {
      run(dir);
    } finally {
      StreamsFixture.deleteTree(dir);
    }
  }

  private void run(Path dir) throws Exception {
    Path stateDir = dir.resolve("state");
    String uri = "emu:" + dir.resolve("wordcount.zkvemu") + "?profile=instant";
    Properties props = WordCountApp.config("localhost:9", stateDir.toString(), uri);

    Map<String, Long> counts = new TreeMap<>();
    Map<String, Long> perMinute = new TreeMap<>();
    List<KeyValue<byte[], byte[]>> changelog;
    Path saved = dir.resolve("saved");
    try (TopologyTestDriver d = new TopologyTestDriver(WordCountApp.topology(), props)) {
      TestInputTopic<String, String> lines =
          d.createInputTopic(WordCountApp.LINES, new StringSerializer(), new StringSerializer());
      Random rnd = new Random(42);
      for (int l = 0; l < LINES; l++) {
        Instant at = START.plusMillis(l * 18L); // 30 minutes of lines
        String line = line(rnd, WORDS_PER_LINE);
        for (String word : line.split(" ")) {
          counts.merge(word, 1L, Long::sum);
          perMinute.merge(word + "@" + at.toEpochMilli() / 60_000 * 60_000, 1L, Long::sum);
        }
        lines.pipeInput(null, line, at);
      }
      assertEquals(
          LINES * WORDS_PER_LINE, counts.values().stream().mapToLong(Long::longValue).sum());
      assertEquals(counts, counts(d.getKeyValueStore(WordCountApp.COUNTS)));
      assertEquals(perMinute, perMinute(d.getWindowStore(WordCountApp.PER_MINUTE)));
      TestOutputTopic<byte[], byte[]> log =
          d.createOutputTopic(
              "wordcount-" + WordCountApp.COUNTS + "-changelog",
              new ByteArrayDeserializer(),
              new ByteArrayDeserializer());
      changelog = log.readKeyValuesToList();
      copyTree(stateDir, saved);
    }
    awaitReleased(uri);

    copyTree(saved, stateDir); // as after a restart: the host state directory is still there
    try (TopologyTestDriver d = new TopologyTestDriver(WordCountApp.topology(), props)) {
      assertEquals(counts, counts(d.getKeyValueStore(WordCountApp.COUNTS)));
      assertEquals(perMinute, perMinute(d.getWindowStore(WordCountApp.PER_MINUTE)));
    }
    awaitReleased(uri); // this close wiped the state directory

    try (TopologyTestDriver d = new TopologyTestDriver(WordCountApp.topology(), props)) {
      assertEquals(Map.of(), counts(d.getKeyValueStore(WordCountApp.COUNTS)));
      assertEquals(Map.of(), perMinute(d.getWindowStore(WordCountApp.PER_MINUTE)));
    }
    awaitReleased(uri);

    // Restore the word counts from their changelog into the store, as a task's restore does.
    Path taskDir = Files.createDirectories(stateDir.resolve("wordcount/0_0"));
    assertFalse(changelog.isEmpty());
    try (StoreHarness h =
        new StoreHarness(
            Stores.persistentKeyValueStore(WordCountApp.COUNTS).get(),
            props,
            new TaskId(0, 0),
            taskDir.toFile())) {
      assertEquals(Map.of(), h.contentsRaw());
      h.restoreRaw(changelog);
      Map<String, Long> restored = new TreeMap<>();
      for (Map.Entry<Bytes, byte[]> e : h.contentsRaw().entrySet()) {
        restored.put(
            new String(e.getKey().get(), StandardCharsets.UTF_8),
            ByteBuffer.wrap(e.getValue()).getLong());
      }
      assertEquals(counts, restored);
    }
    awaitReleased(uri);
  }

  /** A line of {@code words} words from a vocabulary of 1,000 (normally distributed ranks). */
  static String line(Random rnd, int words) {
    StringBuilder line = new StringBuilder();
    for (int w = 0; w < words; w++) {
      if (w > 0) {
        line.append(' ');
      }
      line.append("w").append((int) Math.min(999, Math.abs(rnd.nextGaussian() * 250)));
    }
    return line.toString();
  }

  private static Map<String, Long> counts(KeyValueStore<String, Long> store) {
    Map<String, Long> m = new TreeMap<>();
    try (KeyValueIterator<String, Long> it = store.all()) {
      it.forEachRemaining(kv -> m.put(kv.key, kv.value));
    }
    return m;
  }

  private static Map<String, Long> perMinute(WindowStore<String, Long> store) {
    Map<String, Long> m = new TreeMap<>();
    try (KeyValueIterator<Windowed<String>, Long> it =
        store.fetchAll(START, START.plus(Duration.ofHours(1)))) {
      it.forEachRemaining(kv -> m.put(kv.key.key() + "@" + kv.key.window().start(), kv.value));
    }
    return m;
  }

  private static void awaitReleased(String uri) throws InterruptedException {
    StreamsFixture.awaitDeviceClosed(uri);
  }

  private static void copyTree(Path from, Path to) throws Exception {
    StreamsFixture.deleteTree(to);
    StreamsFixture.copyTree(from, to);
  }
}
