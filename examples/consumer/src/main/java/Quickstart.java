// README.md's quickstart, character for character between the markers (ReadmeSnippetsTest checks
// it): a user pastes it into a new project. Main runs it twice, in JVMs of their own.
// snippet:quickstart
import io.zkv.ZkvDb;
import io.zkv.ZonedEnv;
import io.zkv.device.DeviceGeometry;
import java.nio.file.Path;

public class Quickstart {
  public static void main(String[] args) {
    Path file = Path.of(System.getProperty("java.io.tmpdir"), "zkv-quickstart.zkvemu");
    try (ZonedEnv zoned = ZonedEnv.openOrCreateEmulated(file, "zn540", DeviceGeometry.small());
        ZkvDb db = ZkvDb.open(zoned, "/quickstart")) { // a database: a path on the device
      byte[] seen = db.get("runs".getBytes());
      int runs = seen == null ? 1 : Integer.parseInt(new String(seen)) + 1;
      db.put("runs".getBytes(), Integer.toString(runs).getBytes());
      System.out.println("run " + runs + " on " + zoned.uri());
    }
  }
}
// end:quickstart
