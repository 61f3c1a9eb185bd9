package io.zkv.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The examples run in CI: the README must stay true. */
class DeviceQuickstartTest {
  @Test
  void quickstartAppendsAndReadsBack() throws Exception {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      DeviceQuickstart.main(new String[0]);
    } finally {
      System.setOut(old);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    assertTrue(
        out.contains(
            "appended at byte 0, read back \"hello, zoned world\"; zone 0 is IMPLICITLY_OPEN with 8192 bytes written"),
        out);
  }
}
