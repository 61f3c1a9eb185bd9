package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Arguments.UsageException;
import org.junit.jupiter.api.Test;

/** The {@code threads} key: a configuration's own client threads, for scaling in one run. */
class TargetConfigThreadsTest {
  private static BenchSettings settings() {
    return new BenchSettings(
        java.util.List.of("fillrandom"),
        1,
        16,
        100,
        100,
        1000,
        1000,
        0,
        false,
        1 << 20,
        0,
        1,
        1,
        1);
  }

  @Test
  void aConfigurationRunsWithItsOwnThreads() {
    TargetConfig four = TargetConfig.parse("zkv:threads=4,label=4t", SampleReports.defaults());
    assertEquals(4, four.threads());
    assertEquals(4, four.settingsFor(settings()).threads());
    assertEquals(1000, four.settingsFor(settings()).keys());
    assertTrue(four.describe().contains(", 4 client threads; LSM: "), four.describe());
    TargetConfig global = TargetConfig.parse("zkv", SampleReports.defaults());
    assertSame(settings().getClass(), global.settingsFor(settings()).getClass());
    assertEquals(1, global.settingsFor(settings()).threads());
    assertEquals(
        2, TargetConfig.parse("rocksdb-default:threads=2", SampleReports.defaults()).threads());
  }

  @Test
  void threadCountsOutsideOneTo256AreRefused() {
    assertThrows(
        UsageException.class, () -> TargetConfig.parse("zkv:threads=0", SampleReports.defaults()));
    assertThrows(
        UsageException.class,
        () -> TargetConfig.parse("zkv:threads=1000", SampleReports.defaults()));
  }
}
