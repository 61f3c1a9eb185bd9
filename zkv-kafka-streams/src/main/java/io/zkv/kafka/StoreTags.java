package io.zkv.kafka;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The tags Kafka Streams gives a RocksDB store's metrics (group {@code stream-state-metrics}):
 * {@code thread-id}, {@code task-id} and {@code <scope>-state-id}, where the scope is {@code
 * rocksdb} for key-value stores (versioned ones too: Streams keeps one in a single database at
 * {@code <task>/rocksdb/<store>}), {@code rocksdb-window} and {@code rocksdb-session} for window
 * and session stores. zkv's per-store meters carry the same, learned without Streams' internals:
 *
 * <ul>
 *   <li>thread: the config setter runs on the thread that opens the store, which is the thread
 *       Streams names in its tags (it registers the store's metrics just before, on that thread);
 *   <li>task and store: from the directory the database opened in ({@code
 *       <state.dir>/<application.id>/<task>/rocksdb/<store>}, a window or session segment at {@code
 *       .../<task>/<store>/<store>.<id>}); all segments of a store share its meters, as Streams'
 *       own metrics sum them;
 *   <li>scope of a segmented store: window and session segments look alike on disk, so it comes
 *       from the opening thread's stack: the first class there that implements Streams' public
 *       {@link SessionStore} or {@link WindowStore} (the store's metered layer when it initializes
 *       or writes). A segment opened with neither on the stack (a new segment created by a restore)
 *       takes the tags of its store learned earlier in this process, or has no meters.
 * </ul>
 *
 * @param dir the store's directory: the database's, or for a segmented store the segments' parent
 */
record StoreTags(String dir, String threadId, String taskId, String scopeTag, String store) {
  static final String KEY_VALUE_SCOPE = "rocksdb";
  static final String WINDOW_SCOPE = "rocksdb-window";
  static final String SESSION_SCOPE = "rocksdb-session";

  StoreTags {
    Objects.requireNonNull(dir);
    Objects.requireNonNull(threadId);
    Objects.requireNonNull(taskId);
    Objects.requireNonNull(scopeTag);
    Objects.requireNonNull(store);
  }

  /** Streams' tags, in its order. */
  Map<String, String> asMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("thread-id", threadId);
    m.put("task-id", taskId);
    m.put(scopeTag, store);
    return m;
  }

  /**
   * The tags of the database opened at {@code openedDir}, or null if the directory is not a Streams
   * store's under {@code appDir}, or a segment's whose scope is unknown ({@code stackScope} null).
   */
  static StoreTags of(File appDir, String openedDir, String threadId, String stackScope) {
    String app = appDir.getAbsolutePath() + "/";
    if (!openedDir.startsWith(app)) {
      return null;
    }
    String[] parts = openedDir.substring(app.length()).split("/");
    int first = 0;
    String topology = "";
    if (parts.length == 4 && parts[0].startsWith("__") && parts[0].endsWith("__")) {
      topology = parts[0].substring(2, parts[0].length() - 2) + "__"; // a named topology's tasks
      first = 1;
    }
    if (parts.length - first != 3) {
      return null;
    }
    String task = topology + parts[first];
    String parent = parts[first + 1];
    String name = parts[first + 2];
    if (parent.equals("rocksdb")) {
      return new StoreTags(openedDir, threadId, task, tag(KEY_VALUE_SCOPE), name);
    }
    if (stackScope == null || !name.startsWith(parent + ".")) {
      return null;
    }
    String dir = openedDir.substring(0, openedDir.length() - name.length() - 1);
    return new StoreTags(dir, threadId, task, tag(stackScope), parent);
  }

  /** Whether {@code openedDir} is a segment of a store (its tags may come from earlier opens). */
  static String segmentedStoreDir(String openedDir) {
    int slash = openedDir.lastIndexOf('/');
    String parent = openedDir.substring(0, slash);
    String parentName = parent.substring(parent.lastIndexOf('/') + 1);
    return !parentName.equals("rocksdb")
            && openedDir.substring(slash + 1).startsWith(parentName + ".")
        ? parent
        : null;
  }

  /** The scope of the first window or session store on the calling thread's stack. */
  static String scopeOnStack() {
    return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
        .walk(
            frames ->
                frames
                    .map(f -> scopeOf(f.getDeclaringClass()))
                    .filter(Objects::nonNull)
                    .findFirst()
                    .orElse(null));
  }

  static String scopeOf(Class<?> c) {
    if (SessionStore.class.isAssignableFrom(c)) {
      return SESSION_SCOPE;
    }
    if (WindowStore.class.isAssignableFrom(c)) {
      return WINDOW_SCOPE;
    }
    return null;
  }

  private static String tag(String scope) {
    return scope + "-state-id";
  }
}
