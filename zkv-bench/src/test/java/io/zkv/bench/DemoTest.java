package io.zkv.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.cli.Zkv;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zkv demo}'s predictable-latency part, tiny: Base and O-Vigil each run, the summary puts
 * our Get figures next to the paper's, and the report and window plot are written. The figures
 * themselves are not asserted (speed claims belong to benchmarks).
 */
class DemoTest {
  @Test
  void thePlmPartComparesBaseWithOVigilNextToThePapersFigures(@TempDir Path tmp) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        Zkv.run(
            new String[] {
              "demo",
              "--part",
              "plm",
              "--plm-keys",
              "500",
              "--plm-ops",
              "1500",
              "--out",
              tmp.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, rc, text + err.toString(StandardCharsets.UTF_8));
    assertTrue(!text.contains("emulated ZNS SSD (zn540 timing)"), "--part plm runs that part only");
    assertTrue(text.contains("windows=base") && text.contains("windows=o-vigil"), text);
    assertTrue(text.contains("predictable latency, ycsb-a-run"), text);
    for (String row :
        new String[] {"Get avg us", "Get p99.9 us", "Get max us", "chunk reads rebuilt %"}) {
      assertTrue(text.contains(row), row + " missing:\n" + text);
    }
    assertTrue(text.contains("O-Vigil 3.19x lower than Base"), text);
    assertTrue(text.contains("every O-Vigil Get under 500 us"), text);
    Path report = tmp.resolve("plm").resolve("report.json");
    String json = Files.readString(report);
    assertTrue(json.contains("\"config\": \"base\"") && json.contains("\"config\": \"o-vigil\""));
    assertTrue(json.contains("\"chunkReadsRebuilt\""), "the plmarray: counters are reported");
    assertNotNull(ImageIO.read(tmp.resolve("plm").resolve("windows-ycsb-a-run.png").toFile()));
  }

  @Test
  void theWalPartComparesTheFileModeWithZwalNextToThePapersFigure(@TempDir Path tmp)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        Zkv.run(
            new String[] {"demo", "--part", "wal", "--wal-keys", "300", "--out", tmp.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, rc, text + err.toString(StandardCharsets.UTF_8));
    assertTrue(!text.contains("emulated ZNS SSD (zn540 timing)"), "--part wal runs that part only");
    assertTrue(!text.contains("predictable latency"), "--part wal runs that part only");
    assertTrue(text.contains("wal=zwal,wal-buffer=4K,wal-qd=32"), text);
    assertTrue(text.contains("WAL write path, 4 KiB buffer"), text);
    assertTrue(text.contains("fillrandom ops/s"), text);
    assertTrue(text.contains("ZWAL 13.94x ZenFS's at 4 KiB"), text);
    String json = Files.readString(tmp.resolve("report.json"));
    assertTrue(
        json.contains("\"config\": \"file-4K\"") && json.contains("\"config\": \"zwal-4K\""));
  }
}
