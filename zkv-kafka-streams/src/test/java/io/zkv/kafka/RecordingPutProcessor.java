package io.zkv.kafka;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Reads each record's key from a key-value store and writes the record, and hands out the task's
 * RocksDB metrics recording trigger: {@code KafkaStreams} runs it every minute at recording level
 * DEBUG (it turns RocksDB statistics into {@code stream-state-metrics}); {@code TopologyTestDriver}
 * never does, so the test runs it.
 */
final class RecordingPutProcessor implements Processor<String, String, Void, Void> {
  private final String storeName;
  private final AtomicReference<Runnable> trigger;
  private KeyValueStore<String, String> store;

  RecordingPutProcessor(String storeName, AtomicReference<Runnable> trigger) {
    this.storeName = storeName;
    this.trigger = trigger;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    store = context.getStateStore(storeName);
    trigger.set(((StreamsMetricsImpl) context.metrics()).rocksDBMetricsRecordingTrigger());
  }

  @Override
  public void process(Record<String, String> r) {
    store.get(r.key());
    store.put(r.key(), r.value());
  }
}
