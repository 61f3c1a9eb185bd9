package io.zkv.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import org.rocksdb.RocksDB;

/**
 * Loads zkv's native library next to the stock RocksJava one.
 *
 * <p>Order (see notes on loading a native RocksDB FileSystem): {@code RocksDB.loadLibrary()}; check
 * that RocksJava is 9.7.3; promote the already-loaded {@code librocksdbjni} to global symbol scope
 * ({@code RTLD_NOLOAD|RTLD_GLOBAL}, done by the tiny {@code libzkvboot.so}) so our library's
 * undefined {@code rocksdb::} symbols bind to it; then load {@code libzkv.so}. Both libraries are
 * extracted from this jar; the system property {@code zkv.native.dir} may name a directory holding
 * them to load instead (development builds).
 */
public final class ZkvNative {
  /** The RocksDB release zkv's native code is compiled against. */
  public static final String REQUIRED_ROCKSDB = "9.7.3";

  private static final String RESOURCE_DIR = "/io/zkv/native/linux-x86_64/";

  private static final Throwable CAUSE;
  private static volatile String rocksJavaLibrary;

  static {
    Throwable cause = null;
    try {
      load();
    } catch (Throwable t) {
      cause = t;
    }
    CAUSE = cause;
  }

  private ZkvNative() {}

  /** Whether the native library loaded; if not, {@link #unavailableCause()} says why. */
  public static boolean isAvailable() {
    return CAUSE == null;
  }

  public static Optional<Throwable> unavailableCause() {
    return Optional.ofNullable(CAUSE);
  }

  /** Throws {@link IllegalStateException} with the cause when the library is not loaded. */
  public static void ensureLoaded() {
    if (CAUSE != null) {
      throw new IllegalStateException(
          "zkv native library unavailable: " + CAUSE.getMessage(), CAUSE);
    }
  }

  private static void load() throws IOException {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new UnsupportedOperationException(
          "zkv's native library is built for linux-x86_64 only, not " + os + "-" + arch);
    }
    RocksDB.loadLibrary();
    checkRocksDbVersion(String.valueOf(RocksDB.rocksdbVersion()));
    System.load(libraryPath("libzkvboot.so").toString());
    rocksJavaLibrary = nPromoteGlobal("librocksdbjni");
    System.load(libraryPath("libzkv.so").toString());
    int headers = nRocksdbHeaderVersion();
    if (headers != 90703) {
      throw new UnsupportedOperationException(
          "libzkv.so was compiled against RocksDB headers " + headers + ", not 9.7.3");
    }
  }

  /** The RocksJava library file zkv bound to (for diagnostics). */
  public static Optional<String> rocksJavaLibrary() {
    return Optional.ofNullable(rocksJavaLibrary);
  }

  private static Path libraryPath(String name) throws IOException {
    String dir = System.getProperty("zkv.native.dir");
    if (dir != null) {
      return Path.of(dir, name).toAbsolutePath();
    }
    try (InputStream in = ZkvNative.class.getResourceAsStream(RESOURCE_DIR + name)) {
      if (in == null) {
        throw new IOException(
            "the zkv-native jar has no " + RESOURCE_DIR + name + " (native build missing)");
      }
      Path tmp = Files.createTempFile(name.replace(".so", ""), ".so");
      tmp.toFile().deleteOnExit();
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
      return tmp;
    }
  }

  /** Refuses any RocksJava but the one zkv's native code was compiled against. */
  static void checkRocksDbVersion(String found) {
    if (!REQUIRED_ROCKSDB.equals(found)) {
      throw new UnsupportedOperationException(
          "zkv needs RocksJava (org.rocksdb:rocksdbjni) "
              + REQUIRED_ROCKSDB
              + " but "
              + found
              + " is on the class path; its FileSystem ABI differs, so zkv refuses to load");
    }
  }

  private static native String nPromoteGlobal(String libraryNameFragment);

  private static native int nRocksdbHeaderVersion();
}
