package io.zkv.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.nativelib.ZkvNative;
import java.util.Optional;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.streams.StreamsBuilder;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDB;

/** Each surefire execution runs the module's tests on the Kafka Streams and RocksJava it names. */
class ReleasesTest {
  @Test
  void theExecutionRunsTheReleasesItNames() {
    String streams = System.getProperty("zkv.test.kafka.streams.version");
    String rocks = System.getProperty("zkv.test.rocksdb.version");
    assertEquals(streams, AppInfoParser.getVersion(), "kafka-clients on the class path");
    String streamsJar =
        StreamsBuilder.class.getProtectionDomain().getCodeSource().getLocation().getPath();
    assertTrue(streamsJar.endsWith("/kafka-streams-" + streams + ".jar"), streamsJar);
    RocksDB.loadLibrary();
    assertEquals(rocks, RocksDB.rocksdbVersion().toString());
    ZkvNative.ensureLoaded();
    assertEquals(Optional.of(rocks), ZkvNative.rocksDbVersion());
  }
}
