package io.zkv.kafka;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * One of Kafka Streams' own RocksDB stores (key-value, plain or timestamped, from {@code
 * Stores.persistent...Store(name).get()}; or a window or session store for {@link
 * #restoreChangelog}), opened in a task directory the way a task opens it, with the changelog
 * restore callback Streams registers kept for {@link #restore}.
 */
public final class StoreHarness implements AutoCloseable {
  private final StateStore store;
  private StateRestoreCallback restoreCallback;

  /** Opens {@code store} (not initialized yet) in {@code taskDir}, as task {@code task} does. */
  public StoreHarness(StateStore store, Properties props, TaskId task, File taskDir) {
    this.store = store;
    MockProcessorContext<Object, Object> mock = new MockProcessorContext<>(props, task, taskDir);
    StateStoreContext inner = mock.getStateStoreContext();
    StateStoreContext context = new Capturing(inner);
    // Segmented (window, session) stores need Streams' internal context: its metrics and task id.
    store.init(store instanceof KeyValueStore ? context : internal(context, mock), store);
  }

  void put(String key, String value) {
    keyValueStore()
        .put(
            Bytes.wrap(key.getBytes(StandardCharsets.UTF_8)),
            value == null ? null : stored(value.getBytes(StandardCharsets.UTF_8)));
  }

  /** Streams' own restore path (RocksDBStore.restoreBatch): one WriteBatch, WAL off. */
  void restore(List<KeyValue<String, String>> changelog) {
    List<KeyValue<byte[], byte[]>> raw = new ArrayList<>();
    for (KeyValue<String, String> kv : changelog) {
      raw.add(
          KeyValue.pair(
              kv.key.getBytes(StandardCharsets.UTF_8),
              kv.value == null ? null : kv.value.getBytes(StandardCharsets.UTF_8)));
    }
    restoreRaw(raw);
  }

  /**
   * Restores changelog records (keys and values as the changelog topic holds them; a timestamped
   * store gets each value with an 8-byte timestamp in front, as Streams' restore converts them).
   */
  public void restoreRaw(List<KeyValue<byte[], byte[]>> changelog) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    long offset = 0;
    for (KeyValue<byte[], byte[]> kv : changelog) {
      records.add(
          new ConsumerRecord<>(
              "changelog",
              0,
              offset++,
              0L,
              TimestampType.CREATE_TIME,
              -1,
              -1,
              kv.key,
              kv.value == null ? null : stored(kv.value),
              new RecordHeaders(),
              Optional.empty()));
    }
    ((RecordBatchingStateRestoreCallback) restoreCallback).restoreBatch(records);
  }

  /**
   * Restores records of the store's changelog topic as they were written (key, value and record
   * timestamp), through Streams' restore path. A timestamped store ({@code timestamped}) gets each
   * value with the record's timestamp in front, as Streams' restore converts them.
   */
  public void restoreChangelog(List<TestRecord<byte[], byte[]>> changelog, boolean timestamped) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    long offset = 0;
    for (TestRecord<byte[], byte[]> r : changelog) {
      byte[] value = r.value();
      if (value != null && timestamped) {
        value = ByteBuffer.allocate(8 + value.length).putLong(r.timestamp()).put(value).array();
      }
      records.add(
          new ConsumerRecord<>(
              "changelog",
              0,
              offset++,
              r.timestamp(),
              TimestampType.CREATE_TIME,
              -1,
              -1,
              r.key(),
              value,
              new RecordHeaders(),
              Optional.empty()));
    }
    ((RecordBatchingStateRestoreCallback) restoreCallback).restoreBatch(records);
  }

  /**
   * Streams' internal context interface over {@code context}, for the few internal calls a
   * segmented store makes while it opens and restores: its methods go to {@code context}, then to
   * the mock context's public methods of the same signature; others answer null (none is called).
   */
  private static StateStoreContext internal(
      StateStoreContext context, MockProcessorContext<Object, Object> mock) {
    return (StateStoreContext)
        Proxy.newProxyInstance(
            StoreHarness.class.getClassLoader(),
            new Class<?>[] {InternalProcessorContext.class},
            (proxy, method, args) -> {
              for (Object target : new Object[] {context, mock}) {
                try {
                  Method m =
                      target.getClass().getMethod(method.getName(), method.getParameterTypes());
                  m.setAccessible(true);
                  return m.invoke(target, args);
                } catch (NoSuchMethodException e) {
                  // try the next
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              }
              if (method.getName().equals("metrics")) {
                return mock.metrics();
              }
              return null;
            });
  }

  @SuppressWarnings("unchecked")
  KeyValueStore<Bytes, byte[]> keyValueStore() {
    return (KeyValueStore<Bytes, byte[]>) store;
  }

  /** The store's contents as the changelog would carry them (without a timestamp). */
  public Map<Bytes, byte[]> contentsRaw() {
    Map<Bytes, byte[]> m = new TreeMap<>();
    try (KeyValueIterator<Bytes, byte[]> it = keyValueStore().all()) {
      while (it.hasNext()) {
        KeyValue<Bytes, byte[]> kv = it.next();
        int from = timestamped() ? 8 : 0;
        m.put(kv.key, Arrays.copyOfRange(kv.value, from, kv.value.length));
      }
    }
    return m;
  }

  /** The store's contents as strings. */
  Map<String, String> contents() {
    Map<String, String> m = new TreeMap<>();
    contentsRaw()
        .forEach(
            (k, v) ->
                m.put(
                    new String(k.get(), StandardCharsets.UTF_8),
                    new String(v, StandardCharsets.UTF_8)));
    return m;
  }

  private byte[] stored(byte[] v) {
    if (!timestamped()) {
      return v;
    }
    byte[] withTs = new byte[8 + v.length]; // ValueAndTimestamp's layout: timestamp, then value
    System.arraycopy(v, 0, withTs, 8, v.length);
    return withTs;
  }

  private boolean timestamped() {
    return store.getClass().getSimpleName().contains("Timestamped");
  }

  @Override
  public void close() {
    store.close();
  }

  /** Delegates, keeping the restore callback. */
  private final class Capturing implements StateStoreContext {
    private final StateStoreContext inner;

    Capturing(StateStoreContext inner) {
      this.inner = inner;
    }

    @Override
    public String applicationId() {
      return inner.applicationId();
    }

    @Override
    public TaskId taskId() {
      return inner.taskId();
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
      return inner.recordMetadata();
    }

    @Override
    public Serde<?> keySerde() {
      return inner.keySerde();
    }

    @Override
    public Serde<?> valueSerde() {
      return inner.valueSerde();
    }

    @Override
    public File stateDir() {
      return inner.stateDir();
    }

    @Override
    public StreamsMetrics metrics() {
      return inner.metrics();
    }

    @Override
    public void register(StateStore s, StateRestoreCallback callback) {
      register(s, callback, () -> {});
    }

    @Override
    public void register(StateStore s, StateRestoreCallback callback, CommitCallback checkpoint) {
      restoreCallback = callback;
      inner.register(s, callback, checkpoint);
    }

    @Override
    public Map<String, Object> appConfigs() {
      return inner.appConfigs();
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
      return inner.appConfigsWithPrefix(prefix);
    }
  }
}
