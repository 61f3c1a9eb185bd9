package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.File;
import java.util.Map;
import org.apache.kafka.streams.state.internals.MeteredSessionStore;
import org.apache.kafka.streams.state.internals.MeteredTimestampedKeyValueStore;
import org.apache.kafka.streams.state.internals.MeteredWindowStore;
import org.junit.jupiter.api.Test;

/** Streams' store tags from the directory a store's database opened in. */
class StoreTagsTest {
  private static final File APP = new File("/state/app");

  @Test
  void keyValueStoresAreKnownByTheirPath() {
    StoreTags t = StoreTags.of(APP, "/state/app/1_3/rocksdb/counts", "t-1", null);
    assertEquals("/state/app/1_3/rocksdb/counts", t.dir());
    assertEquals(
        Map.of("thread-id", "t-1", "task-id", "1_3", "rocksdb-state-id", "counts"), t.asMap());
    assertNull(StoreTags.segmentedStoreDir("/state/app/1_3/rocksdb/counts"));
  }

  @Test
  void segmentsShareTheirStoresTagsAndTakeTheScopeFromTheStack() {
    String segment = "/state/app/0_0/per-minute/per-minute.1700000000";
    StoreTags t = StoreTags.of(APP, segment, "t-2", StoreTags.WINDOW_SCOPE);
    assertEquals("/state/app/0_0/per-minute", t.dir());
    assertEquals(
        Map.of("thread-id", "t-2", "task-id", "0_0", "rocksdb-window-state-id", "per-minute"),
        t.asMap());
    assertEquals("/state/app/0_0/per-minute", StoreTags.segmentedStoreDir(segment));
    assertNull(StoreTags.of(APP, segment, "t-2", null), "a segment's scope must be known");
  }

  @Test
  void namedTopologiesPrefixTheTask() {
    StoreTags t = StoreTags.of(APP, "/state/app/__orders__/0_1/rocksdb/s", "t", null);
    assertEquals("orders__0_1", t.taskId());
  }

  @Test
  void pathsOutsideTheApplicationOrItsLayoutHaveNoTags() {
    assertNull(StoreTags.of(APP, "/state/other/0_0/rocksdb/s", "t", null));
    assertNull(StoreTags.of(APP, "/state/app/0_0/s", "t", null));
    assertNull(StoreTags.of(APP, "/state/app/0_0/w/x.1", "t", StoreTags.WINDOW_SCOPE));
  }

  @Test
  void scopesOfStreamsPublicStoreInterfaces() {
    assertEquals(StoreTags.SESSION_SCOPE, StoreTags.scopeOf(MeteredSessionStore.class));
    assertEquals(StoreTags.WINDOW_SCOPE, StoreTags.scopeOf(MeteredWindowStore.class));
    assertNull(StoreTags.scopeOf(MeteredTimestampedKeyValueStore.class));
    assertNull(StoreTags.scopeOf(String.class));
  }
}
