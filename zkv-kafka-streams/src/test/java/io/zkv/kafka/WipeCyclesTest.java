package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.fs.FsFile;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams' own RocksDB stores (plain and timestamped) in several task directories, opened, written,
 * closed and wiped at random the ways Streams wipes (a store's directory, a whole task directory),
 * seeded. Every open must show exactly the changelog's state, or nothing after a wipe; a wiped
 * store restored through Streams' restore callback must equal its changelog; at the end the zone
 * file system holds files only for stores whose host directory exists.
 */
class WipeCyclesTest {
  private static final String APP = "wipes";
  private static final List<TaskId> TASKS =
      List.of(new TaskId(0, 0), new TaskId(0, 1), new TaskId(1, 0));
  private static final List<String> STORES = List.of("plain", "stamped");

  @TempDir Path dir;

  private record Instance(TaskId task, String store) {}

  @Test
  void hundredRandomWipeCyclesLeaveNoStaleKeyAndNoOrphanedZoneBytes() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Properties props = f.props(APP);
    Random rnd = new Random(20261123L);
    Map<Instance, List<KeyValue<String, String>>> changelogs = new HashMap<>();
    Set<Instance> wiped = new HashSet<>();
    int restores = 0;
    int staleChecks = 0;
    for (int cycle = 0; cycle < 100; cycle++) {
      List<Instance> open = new ArrayList<>();
      int n = 1 + rnd.nextInt(2);
      while (open.size() < n) {
        Instance i = new Instance(TASKS.get(rnd.nextInt(TASKS.size())), STORES.get(rnd.nextInt(2)));
        if (!open.contains(i)) {
          open.add(i);
        }
      }
      List<StoreHarness> harnesses = new ArrayList<>();
      try {
        for (Instance i : open) {
          StoreHarness h = open(f, props, i);
          harnesses.add(h);
          List<KeyValue<String, String>> log =
              changelogs.computeIfAbsent(i, k -> new ArrayList<>());
          if (wiped.remove(i)) {
            assertEquals(
                Map.of(), h.contents(), "cycle " + cycle + ": stale data after wiping " + i);
            staleChecks++;
            h.restore(log);
            restores++;
          }
          assertEquals(materialize(log), h.contents(), "cycle " + cycle + ": " + i);
          for (int w = 0; w < 30; w++) {
            String k = "key-" + rnd.nextInt(60);
            String v = rnd.nextInt(5) == 0 ? null : "c" + cycle + "-" + w;
            h.put(k, v);
            log.add(KeyValue.pair(k, v));
          }
        }
      } finally {
        for (StoreHarness h : harnesses) {
          h.close();
        }
      }
      if (rnd.nextInt(10) < 4) {
        wipe(f, rnd, changelogs.keySet(), wiped);
      }
    }
    f.awaitDeviceClosed();
    assertTrue(restores >= 10 && staleChecks >= 10, "too few wipes exercised: " + restores);

    Set<String> hostStores = new HashSet<>();
    for (Instance i : changelogs.keySet()) {
      File d = storeDir(f, i);
      if (d.isDirectory()) {
        hostStores.add(d.getAbsolutePath());
      }
    }
    long orphanBytes = 0;
    List<String> orphans = new ArrayList<>();
    for (FsFile file : f.zoneFiles()) {
      String name = file.names().get(0);
      String parent = name.substring(0, name.lastIndexOf('/'));
      if (!hostStores.contains(parent) && !parent.equals(StoreCatalog.PATH)) {
        orphans.add(name);
        orphanBytes += file.size();
      }
    }
    assertEquals(List.of(), orphans, "zone files of wiped stores");
    assertEquals(0, orphanBytes);
    assertEquals(hostStores, f.zoneStoreDirs(), "every store on the host has its files on zones");
  }

  static StoreHarness open(StreamsFixture f, Properties props, Instance i) throws Exception {
    File taskDir = f.stateDir.resolve(APP).resolve(i.task.toString()).toFile();
    Files.createDirectories(taskDir.toPath()); // Streams' StateDirectory does this before init
    KeyValueStore<Bytes, byte[]> store =
        i.store.equals("plain")
            ? Stores.persistentKeyValueStore(i.store).get()
            : Stores.persistentTimestampedKeyValueStore(i.store).get();
    return new StoreHarness(store, props, i.task, taskDir);
  }

  private static File storeDir(StreamsFixture f, Instance i) {
    return f.stateDir
        .resolve(APP)
        .resolve(i.task.toString())
        .resolve("rocksdb")
        .resolve(i.store)
        .toFile();
  }

  /** Deletes one store's directory, or a whole task directory, as Streams' wipes do. */
  private static void wipe(StreamsFixture f, Random rnd, Set<Instance> known, Set<Instance> wiped)
      throws Exception {
    TaskId task = TASKS.get(rnd.nextInt(TASKS.size()));
    boolean wholeTask = rnd.nextBoolean();
    String store = STORES.get(rnd.nextInt(2));
    for (Instance i : known) {
      if (i.task.equals(task) && (wholeTask || i.store.equals(store))) {
        wiped.add(i);
      }
    }
    Path target =
        wholeTask
            ? f.stateDir.resolve(APP).resolve(task.toString())
            : storeDir(f, new Instance(task, store)).toPath();
    StreamsFixture.deleteTree(target);
  }

  static Map<String, String> materialize(List<KeyValue<String, String>> log) {
    Map<String, String> m = new TreeMap<>();
    for (KeyValue<String, String> kv : log) {
      if (kv.value == null) {
        m.remove(kv.key);
      } else {
        m.put(kv.key, kv.value);
      }
    }
    return m;
  }
}
