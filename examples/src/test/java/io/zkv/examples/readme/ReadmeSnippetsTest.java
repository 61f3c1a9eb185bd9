package io.zkv.examples.readme;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.ZonedDevice;
import io.zkv.examples.Snippets;
import io.zkv.fs.ZoneFsSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rocksdb.AbstractEventListener;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.ZkvEnv;

/**
 * README.md's Java snippets marked {@code <!-- snippet:NAME -->}, run as pasted: the README shows
 * the region between {@code // snippet:NAME} and {@code // end:NAME} of the quickstart (a class of
 * examples/consumer, the project of its own that scripts/test.sh runs; it runs the quickstart
 * twice) and of this file, checked character for character (indentation aside) by {@link
 * #theReadmeShowsTheseSnippets}.
 */
class ReadmeSnippetsTest {
  @Test
  void rocksDbOnTheLowLevelEnv() throws Exception {
    // snippet:rawenv
    Path file = Files.createTempDirectory("zkv").resolve("dev.zkvemu");
    EmulatedDevice.format(file, DeviceGeometry.of(64, 64L << 20, 48L << 20, 14, 14, 1 << 20));
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "zn540"));
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.format()); // format first, default policies
        AbstractEventListener hints = env.newLsmHintListener();
        Options options =
            new Options().setCreateIfMissing(true).setEnv(env).setListeners(List.of(hints));
        RocksDB db = RocksDB.open(options, "/db/main")) { // a path inside the zone file system
      env.refreshLsmHints(db); // the hints of the SSTs the database already has
      db.put("key".getBytes(), "value".getBytes());
    }
    // end:rawenv
    try (ZonedDevice dev = ZonedDevice.open(EmulatedDevice.uri(file, "zn540"));
        ZkvEnv env = ZkvEnv.onZones(dev, ZoneFsSettings.mount()); // mount
        Options options = new Options().setEnv(env);
        RocksDB db = RocksDB.openReadOnly(options, "/db/main")) {
      assertArrayEquals("value".getBytes(), db.get("key".getBytes()));
    }
    Files.delete(file);
    Files.delete(file.getParent());
  }

  /**
   * README.md's ```java blocks after {@code <!-- snippet:NAME -->} are the quickstart's and this
   * file's regions.
   */
  @Test
  void theReadmeShowsTheseSnippets() throws Exception {
    Snippets.check(
        Path.of("..", "README.md"),
        Path.of("consumer", "src", "main", "java", "Quickstart.java"),
        Path.of(
            "src", "test", "java", "io", "zkv", "examples", "readme", "ReadmeSnippetsTest.java"));
  }
}
