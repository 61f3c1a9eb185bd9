package io.zkv.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.ZkvDb;
import io.zkv.ZkvOptions;
import io.zkv.ZonedEnv;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.ZoneCondition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ZoneConditionCountsTest {
  @TempDir Path dir;

  @Test
  void oneZoneReportServesTheGaugesForASecond() {
    AtomicLong now = new AtomicLong();
    ZoneConditionCounts counts = new ZoneConditionCounts(now::get);
    DeviceGeometry g = DeviceGeometry.of(16, 8L << 20, 6L << 20, 8, 8, 1 << 20);
    ZonedEnv env = ZonedEnv.createEmulated(dir.resolve("dev.zkvemu"), "instant", g);
    try {
      double emptyAtStart = counts.count(env, ZoneCondition.EMPTY);
      try (ZkvDb db =
          ZkvDb.open(env, "/db", ZkvOptions.builder().writeBufferSize(1L << 20).build())) {
        db.put("k".getBytes(StandardCharsets.UTF_8), new byte[4096]);
        db.flush(); // an SST file and a WAL: data zones are no longer empty
      }
      now.set(ZoneConditionCounts.MAX_AGE_NANOS - 1);
      assertEquals(emptyAtStart, counts.count(env, ZoneCondition.EMPTY), "the cached report");
      now.set(ZoneConditionCounts.MAX_AGE_NANOS);
      double emptyAfter = counts.count(env, ZoneCondition.EMPTY);
      assertTrue(emptyAfter < emptyAtStart, emptyAtStart + " -> " + emptyAfter);
    } finally {
      env.close();
    }
    now.addAndGet(ZoneConditionCounts.MAX_AGE_NANOS);
    assertTrue(Double.isNaN(counts.count(env, ZoneCondition.EMPTY)), "a closed env reads NaN");
  }
}
