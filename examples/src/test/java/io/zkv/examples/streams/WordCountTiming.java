package io.zkv.examples.streams;

import io.zkv.kafka.StreamsFixture;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * Times the word count under {@code TopologyTestDriver}, on zkv or on Streams' default RocksDB (the
 * host file system), to see where the time of a record goes (run it under a profiler, e.g. JFR).
 * Not a test ({@code docs/kafka-streams.md}).
 *
 * <p>Arguments: {@code <dir> <records> <words per record> <zkv|host>}; prints the time per record
 * every 10% and at the end.
 */
public final class WordCountTiming {
  private WordCountTiming() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int records = Integer.parseInt(args[1]);
    int words = Integer.parseInt(args[2]);
    boolean host = args[3].equals("host");
    StreamsFixture.deleteTree(dir);
    String uri = "emu:" + dir.resolve("wordcount.zkvemu") + "?profile=instant";
    Properties props = WordCountApp.config("localhost:9", dir.resolve("state").toString(), uri);
    if (host) {
      props.remove(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
    }
    Instant start = Instant.parse("2026-11-23T00:00:00Z");
    Random rnd = new Random(42);
    long t0 = System.nanoTime();
    try (TopologyTestDriver d = new TopologyTestDriver(WordCountApp.topology(), props)) {
      TestInputTopic<String, String> lines =
          d.createInputTopic(WordCountApp.LINES, new StringSerializer(), new StringSerializer());
      for (int r = 0; r < records; r++) {
        lines.pipeInput(null, WordCountAppTest.line(rnd, words), start.plusMillis(r * 18L));
        if ((r + 1) % (records / 10) == 0) {
          System.out.printf(
              Locale.ROOT,
              "%s %d records: %.3f ms a record%n",
              host ? "host" : "zkv",
              r + 1,
              (System.nanoTime() - t0) / 1e6 / (r + 1));
        }
      }
    }
    if (!host) {
      StreamsFixture.awaitDeviceClosed(uri);
    }
    StreamsFixture.deleteTree(dir);
  }
}
