package io.zkv.bench.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs in its own surefire execution without {@code -Xcheck:jni} (see the module's pom): the JDK's
 * FreeType font scaler, which draws the charts' text, makes JNI calls that {@code -Xcheck:jni}
 * reports as warnings. These tests load no zkv native code.
 */
class PlotsTest {
  @Test
  void aRealRunOnTheDefaultEnvWritesPlotsThatDecode(@TempDir Path dir) throws Exception {
    BenchInvocation inv =
        BenchInvocation.parse(
            io.zkv.cli.Arguments.of(
                "--target",
                "rocksdb-default",
                "--workload",
                "fillrandom,ycsb-b",
                "--keys",
                "2000",
                "--out",
                dir.resolve("out").toString(),
                "--dir",
                dir.resolve("scratch").toString(),
                "--progress",
                "false"));
    BenchEngine.Outcome o =
        BenchEngine.execute(
            inv,
            new java.io.PrintStream(
                new java.io.ByteArrayOutputStream(),
                true,
                java.nio.charset.StandardCharsets.UTF_8));
    // latency and throughput per phase; the write P99 timeline for fillrandom (YCSB's phases
    // insert and update, they have no WRITE)
    assertEquals(7, o.plots().size(), o.plots().toString());
    assertTrue(o.plots().contains(dir.resolve("out").resolve("write-p99-fillrandom.png")));
    for (Path f : o.plots()) {
      BufferedImage img = ImageIO.read(f.toFile());
      assertNotNull(img, f + " does not decode as an image");
      assertEquals(Plots.WIDTH, img.getWidth());
      assertTrue(distinctColours(img) > 4, f + " looks blank");
    }
  }

  @Test
  void writesALatencyAThroughputAndAWriteP99PngPerPhase(@TempDir Path dir) throws Exception {
    List<Path> files = Plots.write(SampleReports.twoConfigs(), dir);
    assertEquals(
        List.of(
            dir.resolve("latency-fillrandom.png"),
            dir.resolve("throughput-fillrandom.png"),
            dir.resolve("write-p99-fillrandom.png")),
        files);
    for (Path f : files) {
      assertTrue(Files.size(f) > 1000, f + " is " + Files.size(f) + " bytes");
      BufferedImage img = ImageIO.read(f.toFile());
      assertNotNull(img, f + " does not decode as an image");
      assertEquals(Plots.WIDTH, img.getWidth());
      assertEquals(Plots.HEIGHT, img.getHeight());
      assertTrue(distinctColours(img) > 4, f + " looks blank");
    }
  }

  @Test
  void percentileCurveStopsWhereTheSamplesStopResolving() {
    Histogram h = LatencyStats.newHistogram();
    for (int us = 1; us <= 1000; us++) {
      h.recordValue(us * 1000L);
    }
    double[][] xy = Plots.percentileCurve(h);
    // 1000 samples resolve three nines: x from 0 to 3 in steps of 1/20.
    assertEquals(61, xy[0].length);
    assertEquals(3.0, xy[0][60], 1e-12);
    assertEquals(1, xy[1][0], 0.01, "x = 0 is the minimum");
    assertEquals(900, xy[1][20], 1, "x = 1 is P90");
    assertEquals(990, xy[1][40], 1, "x = 2 is P99");
  }

  @Test
  void phaseNamesBecomeSafeFileNames() {
    assertEquals("ycsb-a-run", Plots.fileName("ycsb-a-run"));
    assertEquals("a_b_c", Plots.fileName("a/b c"));
  }

  private static int distinctColours(BufferedImage img) {
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int y = 0; y < img.getHeight(); y += 7) {
      for (int x = 0; x < img.getWidth(); x += 7) {
        seen.add(img.getRGB(x, y));
      }
    }
    return seen.size();
  }
}
