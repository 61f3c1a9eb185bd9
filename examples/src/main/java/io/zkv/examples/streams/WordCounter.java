package io.zkv.examples.streams;

import java.util.Locale;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;

/** Counts the words of each line: in total, and per minute of the line's timestamp. */
final class WordCounter implements Processor<String, String, Void, Void> {
  private KeyValueStore<String, Long> counts;
  private WindowStore<String, Long> perMinute;

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    counts = context.getStateStore(WordCountApp.COUNTS);
    perMinute = context.getStateStore(WordCountApp.PER_MINUTE);
  }

  @Override
  public void process(Record<String, String> line) {
    long window = line.timestamp() - line.timestamp() % WordCountApp.WINDOW.toMillis();
    for (String word : line.value().toLowerCase(Locale.ROOT).split("\\W+")) {
      if (word.isEmpty()) {
        continue;
      }
      Long n = counts.get(word);
      counts.put(word, n == null ? 1 : n + 1);
      Long m = perMinute.fetch(word, window);
      perMinute.put(word, m == null ? 1 : m + 1, window);
    }
  }
}
