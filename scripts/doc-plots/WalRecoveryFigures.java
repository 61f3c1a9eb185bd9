/*
 * Draws docs/img/wal-recovery-*.png from the recovery figures docs/wal.md lists (section "C.
 * Recovery": the size sweep and the barrier sweep, each measured with `zkv bench compare` as the
 * doc says). Run from the repository root after a build:
 *   java -cp "$(cat zkv-bench/target/classpath.txt)" scripts/doc-plots/WalRecoveryFigures.java
 */
import java.io.IOException;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

public class WalRecoveryFigures {
  public static void main(String[] args) throws IOException {
    // WAL size sweep on confzns (docs/wal.md, "WAL size sweep"): MiB -> recovery s
    double[] mib = {63, 126, 253, 505, 1010};
    XYChart size =
        new XYChartBuilder()
            .width(800)
            .height(480)
            .title("Recovery time by WAL size (confzns, 4 KiB buffer)")
            .xAxisTitle("WAL MiB")
            .yAxisTitle("recovery s (mount + replay)")
            .build();
    size.addSeries("FILE", mib, new double[] {0.63, 0.90, 1.35, 2.18, 3.96})
        .setMarker(SeriesMarkers.CIRCLE);
    size.addSeries("ZWAL (QD 32)", mib, new double[] {0.64, 0.85, 1.26, 2.01, 3.89})
        .setMarker(SeriesMarkers.DIAMOND);
    size.addSeries("paper ZWAL at 1 GiB", new double[] {1024}, new double[] {6.13})
        .setMarker(SeriesMarkers.SQUARE)
        .setLineStyle(SeriesLines.NONE);
    BitmapEncoder.saveBitmap(size, "docs/img/wal-recovery-size-confzns", BitmapEncoder.BitmapFormat.PNG);

    // Barrier sweep (docs/wal.md, "Barrier sweep"): barrier KiB -> recovery s of a 1 GiB WAL; the
    // paper gives 4 KiB (31.87 s) and the zone (6.13 s) only
    XYChart barrier =
        new XYChartBuilder()
            .width(800)
            .height(480)
            .title("Recovery of a 1 GiB WAL by ZWAL barrier (confzns)")
            .xAxisTitle("barrier KiB (log scale; 65,536 = the zone)")
            .yAxisTitle("recovery s")
            .build();
    barrier.getStyler().setXAxisLogarithmic(true);
    barrier.addSeries(
            "zkv ZWAL", new double[] {4, 32, 16384, 65536}, new double[] {4.80, 4.04, 4.40, 3.98})
        .setMarker(SeriesMarkers.CIRCLE);
    barrier
        .addSeries("paper ZWAL (two points)", new double[] {4, 65536}, new double[] {31.87, 6.13})
        .setMarker(SeriesMarkers.SQUARE)
        .setLineStyle(SeriesLines.NONE);
    BitmapEncoder.saveBitmap(
        barrier, "docs/img/wal-recovery-barrier-confzns", BitmapEncoder.BitmapFormat.PNG);
  }
}
