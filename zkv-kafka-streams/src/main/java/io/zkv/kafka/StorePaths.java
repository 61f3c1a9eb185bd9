package io.zkv.kafka;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Where a Kafka Streams store lives, on the host and in the zone file system.
 *
 * <p>Streams opens a store at {@code state.dir/<application.id>/<task>/rocksdb/<store>} (a window
 * or session segment at {@code .../<task>/<store>/<store>.<id>}, global stores under the task
 * directory {@code global}, named topologies one level deeper), creating that directory on the
 * host, and hands the absolute path to RocksDB. With zkv's Env every file of the store lives in the
 * zone file system under that same path; the host directory stays empty but for Streams' own files
 * beside it. The mapping is the identity on the absolute path string, built the way Streams builds
 * it ({@code java.io.File}), so the zone path of a store is its host path.
 *
 * <p>{@link ZkvRocksDBConfigSetter#setConfig} learns the store's name but not its task, so {@link
 * #candidates} lists the store's path in every task directory that exists: one of them is the store
 * being opened.
 */
final class StorePaths {
  /** Longest zone path zkv accepts for a store (the zone file system allows 4096 bytes a name). */
  static final int MAX_STORE_PATH = 4000;

  private static final Pattern SEGMENT = Pattern.compile("(.+)\\.\\d+");

  private StorePaths() {}

  /** The application's directory on the host, {@code state.dir/<application.id>}. */
  static File appDir(Map<String, ?> configs) {
    Object stateDir = configs.get(StreamsConfig.STATE_DIR_CONFIG);
    Object appId = configs.get(StreamsConfig.APPLICATION_ID_CONFIG);
    if (stateDir == null || appId == null) {
      throw new ConfigException(
          "zkv maps each store to the zone file system by its directory under "
              + StreamsConfig.STATE_DIR_CONFIG
              + "/"
              + StreamsConfig.APPLICATION_ID_CONFIG
              + ", but the configuration given to the config setter lacks "
              + (stateDir == null
                  ? StreamsConfig.STATE_DIR_CONFIG
                  : StreamsConfig.APPLICATION_ID_CONFIG)
              + "; use ZkvRocksDBConfigSetter only as Kafka Streams' rocksdb.config.setter");
    }
    for (Path p : Path.of(stateDir.toString()).toAbsolutePath()) {
      String part = p.toString();
      if (part.equals(".") || part.equals("..")) {
        throw new ConfigException(
            StreamsConfig.STATE_DIR_CONFIG,
            stateDir,
            "zkv names a store in the zone file system by its absolute host path, which must not"
                + " contain '.' or '..' (the host resolves them, the zone file system does not);"
                + " set state.dir to a normalized absolute path");
      }
    }
    return new File(new File(stateDir.toString()), appId.toString()).getAbsoluteFile();
  }

  /**
   * The store's path in every task directory of the application that exists now (the store's {@code
   * rocksdb/} directory, and for a segment name {@code <store>.<id>} its {@code <store>/} directory
   * too).
   *
   * @throws ConfigException if a path is too long for the zone file system
   */
  static List<String> candidates(File appDir, String storeName) {
    List<String> out = new ArrayList<>();
    Matcher segment = SEGMENT.matcher(storeName);
    String segmentParent = segment.matches() ? segment.group(1) : null;
    for (File taskDir : taskDirs(appDir)) {
      add(out, new File(new File(taskDir, "rocksdb"), storeName), storeName);
      if (segmentParent != null) {
        add(out, new File(new File(taskDir, segmentParent), storeName), storeName);
      }
    }
    return out;
  }

  private static void add(List<String> out, File dir, String storeName) {
    String p = dir.getAbsolutePath();
    if (p.length() > MAX_STORE_PATH) {
      throw new ConfigException(
          StreamsConfig.STATE_DIR_CONFIG,
          p,
          "store "
              + storeName
              + " would live at a path of "
              + p.length()
              + " characters, but the zone file system takes at most "
              + MAX_STORE_PATH
              + " for a store; use a shorter state.dir, application.id or store name");
    }
    out.add(p);
  }

  /** Task directories (and those of named topologies, {@code __name__/<task>}). */
  private static List<File> taskDirs(File appDir) {
    List<File> dirs = new ArrayList<>();
    File[] children = appDir.listFiles(File::isDirectory);
    if (children == null) {
      return dirs;
    }
    for (File c : children) {
      if (c.getName().startsWith("__") && c.getName().endsWith("__")) {
        File[] tasks = c.listFiles(File::isDirectory);
        if (tasks != null) {
          dirs.addAll(List.of(tasks));
        }
      } else {
        dirs.add(c);
      }
    }
    return dirs;
  }
}
