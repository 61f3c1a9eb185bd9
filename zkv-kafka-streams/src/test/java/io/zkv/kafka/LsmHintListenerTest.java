package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.Options;

/** The config setter adds zkv's LSM hint listener to every store's options, beside the user's. */
class LsmHintListenerTest {
  @TempDir Path dir;

  @Test
  void everyStoreGetsTheHintListenerAndKeepsItsOwn() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Map<String, Object> configs = new HashMap<>();
    f.props("hints").forEach((k, v) -> configs.put((String) k, v));
    AbstractEventListener users = new AbstractEventListener() {};
    ZkvRocksDBConfigSetter setter = new ZkvRocksDBConfigSetter();
    try (Options options = new Options().setListeners(List.of(users))) {
      setter.setConfig("store", options, configs);
      List<AbstractEventListener> listeners = options.listeners();
      assertEquals(2, listeners.size(), listeners.toString());
      assertTrue(listeners.contains(users), listeners.toString());
      assertEquals("org.rocksdb.ZkvLsmListener", listeners.get(1).getClass().getName());
      setter.close("store", options);
    }
    users.close();
    f.awaitDeviceClosed();
  }
}
