package io.zkv.kafka;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/** Writes each record to a key-value store (a null value deletes). */
final class PutProcessor implements Processor<String, String, Void, Void> {
  private final String storeName;
  private KeyValueStore<String, String> store;

  PutProcessor(String storeName) {
    this.storeName = storeName;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    store = context.getStateStore(storeName);
  }

  @Override
  public void process(Record<String, String> r) {
    if (r.value() == null) {
      store.delete(r.key());
    } else {
      store.put(r.key(), r.value());
    }
  }
}
