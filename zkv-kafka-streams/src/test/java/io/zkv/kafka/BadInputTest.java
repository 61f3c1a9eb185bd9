package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input reaches the application as an exception naming the setting and what to do; nothing is
 * left open.
 */
class BadInputTest {
  @TempDir Path dir;

  @Test
  void aConfigWithoutDeviceNamesTheSetting() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Properties p = f.props("bad");
    p.remove(ZkvStreamsConfig.DEVICE);
    String m = failure(p, ConfigException.class);
    assertTrue(m.contains("zkv.device is not set") && m.contains("zkv.device=emu:"), m);
  }

  @Test
  void aDeviceOwnedByAnotherProcessIsRefusedWithWhatToDo() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                HoldDevice.class.getName(),
                f.uri)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("held", out.readLine());
      String m = failure(f.props("bad"), StreamsException.class);
      assertTrue(
          m.contains("zkv.device=" + f.uri)
              && m.contains("in use by another process")
              && m.contains("a device of its own"),
          m);
      assertTrue(!ZkvRocksDBConfigSetter.isDeviceOpen(f.uri));
    } finally {
      child.getOutputStream().close();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    }
    // Once the other process is gone the same configuration works.
    try (TopologyTestDriver d =
        new TopologyTestDriver(KeyValueStoreTest.topology(), f.props("bad"))) {
      assertEquals(null, d.getKeyValueStore("plain").get("x"));
    }
    f.awaitDeviceClosed();
  }

  @Test
  void anUnsupportedRocksJavaIsRefusedListingTheSupportedOnes() {
    ZkvRocksDBConfigSetter.requireSupportedRocksJava(); // the one this execution runs
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZkvRocksDBConfigSetter.requireSupported("9.6.1"));
    String m = e.getMessage();
    assertTrue(
        m.contains("rocksdb.config.setter")
            && m.contains("9.7.3 and 10.1.3")
            && m.contains("RocksDB 9.6.1")
            && m.contains("4.2.x-4.3.x (10.1.3)"),
        m);
  }

  @Test
  void aStateDirZkvCannotMapIsRefused() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Properties p = f.props("bad");
    Files.createDirectories(f.stateDir.resolve("a"));
    p.put(StreamsConfig.STATE_DIR_CONFIG, f.stateDir.resolve("a/../b").toString());
    String m = failure(p, ConfigException.class);
    assertTrue(m.contains("state.dir") && m.contains("must not") && m.contains("normalized"), m);

    Map<String, Object> noStateDir = new HashMap<>();
    noStateDir.put(ZkvStreamsConfig.DEVICE, f.uri);
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> new ZkvRocksDBConfigSetter().setConfig("s", null, noStateDir));
    assertTrue(e.getMessage().contains("lacks state.dir"), e.getMessage());
    assertTrue(!ZkvRocksDBConfigSetter.isDeviceOpen(f.uri));
  }

  @Test
  void aStoreWrittenOnTheHostWithoutZkvIsRefused() throws Exception {
    StreamsFixture f = new StreamsFixture(dir);
    Properties host = f.props("bad");
    host.remove(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
    Path saved;
    try (TopologyTestDriver d = new TopologyTestDriver(KeyValueStoreTest.topology(), host)) {
      d.createInputTopic("plain-in", new StringSerializer(), new StringSerializer())
          .pipeInput("k", "v");
      saved = f.saveHostState(); // a state directory as an application without zkv leaves it
    }
    f.restoreHostState(saved);
    assertTrue(Files.exists(f.stateDir.resolve("bad/0_0/rocksdb/plain/CURRENT")));
    String m = failure(f.props("bad"), StreamsException.class);
    assertTrue(
        m.contains("holds a RocksDB database on the host file system") && m.contains("cleanUp()"),
        m);
    f.awaitDeviceClosed();
  }

  @Test
  void badZkvSettingsNameTheSetting() {
    Map<String, Object> c = new HashMap<>();
    c.put(ZkvStreamsConfig.DEVICE, "emu:/x");
    c.put(ZkvStreamsConfig.PLACEMENT, "zonky");
    assertTrue(
        message(c).contains("zkv.placement") && message(c).contains("unknown placement 'zonky'"),
        message(c));
    c.put(ZkvStreamsConfig.PLACEMENT, "class:com.example.Missing");
    assertTrue(
        message(c).contains("zkv.placement") && message(c).contains("not on the class path"),
        message(c));
    c.remove(ZkvStreamsConfig.PLACEMENT);
    c.put(ZkvStreamsConfig.GC_VICTIM_POLICY, "class:java.lang.String");
    assertTrue(
        message(c).contains("zkv.gc.victim.policy")
            && message(c).contains("does not implement io.zkv.placement.VictimPolicy"),
        message(c));
    c.remove(ZkvStreamsConfig.GC_VICTIM_POLICY);
    c.put(ZkvStreamsConfig.GC_START_PERCENT, "120");
    assertTrue(
        message(c).contains("zkv.gc.start.percent") && message(c).contains("0..100"), message(c));
    c.remove(ZkvStreamsConfig.GC_START_PERCENT);
    c.put(ZkvStreamsConfig.FORMAT, "always");
    assertTrue(
        message(c).contains("zkv.format") && message(c).contains("if-unformatted"), message(c));
    c.remove(ZkvStreamsConfig.FORMAT);
    c.put(ZkvStreamsConfig.DEVICE, "nvme:/dev/ng0n1");
    c.put(ZkvStreamsConfig.EMULATOR_PROFILE, "zn540");
    assertTrue(message(c).contains("emulated devices only"), message(c));
    c.put(ZkvStreamsConfig.DEVICE, "emu:/x?profile=instant");
    assertTrue(message(c).contains("in one place only"), message(c));
    c.remove(ZkvStreamsConfig.EMULATOR_PROFILE);
    assertEquals("emu:/x?profile=instant", ZkvStreamsConfig.from(c).deviceUri());
  }

  private static String message(Map<String, Object> c) {
    return assertThrows(ConfigException.class, () -> ZkvStreamsConfig.from(c)).getMessage();
  }

  /** Opening a topology with stores fails; returns the message of the first {@code type} cause. */
  private static String failure(Properties p, Class<? extends Throwable> type) {
    Throwable t =
        assertThrows(
            Throwable.class, () -> new TopologyTestDriver(KeyValueStoreTest.topology(), p).close());
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c) && c.getMessage() != null && c.getMessage().contains("zkv")) {
        return c.getMessage();
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " from zkv in the causes", t);
  }
}
