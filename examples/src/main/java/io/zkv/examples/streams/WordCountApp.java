package io.zkv.examples.streams;

import io.zkv.kafka.ZkvRocksDBConfigSetter;
import io.zkv.kafka.ZkvStreamsConfig;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.state.Stores;

/**
 * Word count with a windowed aggregation, its state stores on a zoned device through zkv: each line
 * of topic {@value #LINES} is split into words; store {@value #COUNTS} counts every word, store
 * {@value #PER_MINUTE} counts them per minute (a window store: one RocksDB per time segment). Both
 * are persistent RocksDB stores with changelogs, as Streams builds them; the only zkv parts are two
 * settings ({@link #config}).
 *
 * <p>The counting is one processor ({@link WordCounter}) that updates both stores for a whole line,
 * so a word is counted in the partition of its line (for counts over all partitions, key the lines'
 * topic by something that keeps a word's lines together, or repartition by word). It avoids a
 * repartition topic on purpose: Kafka Streams 4.1 flushes every RocksDB store of a task at each
 * commit, and its test driver commits after every record, so a repartition by word would multiply
 * the flushes of the test (100,000 lines of 10 words) by ten.
 *
 * <p>Run against a Kafka cluster: {@code WordCountApp <bootstrap servers> <state dir> <device
 * URI>}, e.g. {@code localhost:9092 /var/lib/wordcount
 * emu:/var/lib/wordcount/state.zkvemu?profile=zn540} (an emulated device file is created on first
 * use: 64 zones of 64 MiB). Its test drives it with Kafka Streams' TopologyTestDriver.
 */
public final class WordCountApp {
  public static final String LINES = "lines";
  public static final String COUNTS = "word-counts";
  public static final String PER_MINUTE = "word-counts-per-minute";
  static final Duration WINDOW = Duration.ofMinutes(1);

  private WordCountApp() {}

  public static Topology topology() {
    StreamsBuilder b = new StreamsBuilder();
    b.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(COUNTS), Serdes.String(), Serdes.Long()));
    b.addStateStore(
        Stores.windowStoreBuilder(
            Stores.persistentWindowStore(PER_MINUTE, Duration.ofHours(1), WINDOW, false),
            Serdes.String(),
            Serdes.Long()));
    b.stream(LINES, Consumed.with(Serdes.String(), Serdes.String()))
        .process(WordCounter::new, COUNTS, PER_MINUTE);
    return b.build();
  }

  /** The application's configuration: every state store on the zoned device {@code deviceUri}. */
  public static Properties config(String bootstrapServers, String stateDir, String deviceUri) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "wordcount");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    // zkv: the config setter and the device
    p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, ZkvRocksDBConfigSetter.class);
    p.put(ZkvStreamsConfig.DEVICE, deviceUri);
    p.put(ZkvStreamsConfig.EMULATOR_ZONES, "64"); // create an emulated device file if missing
    return p;
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 3) {
      System.err.println("usage: WordCountApp <bootstrap servers> <state dir> <device URI>");
      System.exit(2);
    }
    try (KafkaStreams streams = new KafkaStreams(topology(), config(args[0], args[1], args[2]))) {
      Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
      streams.start();
      Thread.currentThread().join();
    }
  }
}
