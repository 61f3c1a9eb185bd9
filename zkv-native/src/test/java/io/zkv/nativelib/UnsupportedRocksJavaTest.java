package io.zkv.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * zkv on a RocksJava release it has no build for: the whole load path refuses before any zkv native
 * code loads, and a user's first call gets the reason. The class path here has zkv-native's classes
 * and, in place of the rocksdbjni jar, a stand-in {@code org.rocksdb.RocksDB} that reports RocksDB
 * 9.6.1 (compiled by the test, in its own class loader, so nothing native is touched).
 */
class UnsupportedRocksJavaTest {
  private static final String STAND_IN =
      "package org.rocksdb;\n"
          + "public class RocksDB {\n"
          + "  public static void loadLibrary() {}\n"
          + "  public static Version rocksdbVersion() { return new Version(); }\n"
          + "  public static class Version {\n"
          + "    @Override public String toString() { return \"9.6.1\"; }\n"
          + "  }\n"
          + "}\n";

  @TempDir Path dir;

  @Test
  void zkvRefusesToLoadAndSaysWhichReleasesItSupports() throws Exception {
    Path src = dir.resolve("src/org/rocksdb/RocksDB.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, STAND_IN);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertEquals(0, javac.run(null, null, null, "-d", classes.toString(), src.toString()));

    URL zkvNativeClasses = ZkvNative.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL(), zkvNativeClasses},
            ClassLoader.getPlatformClassLoader())) {
      Class<?> zkvNative = Class.forName(ZkvNative.class.getName(), true, loader);
      assertEquals(false, zkvNative.getMethod("isAvailable").invoke(null));
      assertEquals(java.util.Optional.empty(), zkvNative.getMethod("rocksDbVersion").invoke(null));

      Class<?> device = Class.forName("io.zkv.device.ZonedDevice", true, loader);
      InvocationTargetException e =
          assertThrows(
              InvocationTargetException.class,
              () -> device.getMethod("open", String.class).invoke(null, "emu:/nowhere"));
      IllegalStateException refusal = assertInstanceOf(IllegalStateException.class, e.getCause());
      for (String part :
          List.of(
              "zkv native library unavailable",
              "zkv supports RocksJava (org.rocksdb:rocksdbjni) 9.7.3 and 10.1.3",
              "but RocksDB 9.6.1 is on the class path",
              "Depend on one of the supported rocksdbjni versions")) {
        assertTrue(refusal.getMessage().contains(part), refusal.getMessage());
      }
      assertInstanceOf(UnsupportedOperationException.class, refusal.getCause());
    }
  }
}
