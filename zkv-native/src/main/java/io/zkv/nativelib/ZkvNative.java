package io.zkv.nativelib;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.rocksdb.RocksDB;

/**
 * Loads zkv's native library next to the stock RocksJava one.
 *
 * <p>zkv's RocksDB-facing native code is compiled once per supported RocksJava release, against
 * that release's headers ({@code libzkv-rocksdb-<version>.so}): the layouts of the option structs
 * its FileSystem receives differ between releases, and nothing at link time tells them apart.
 *
 * <p>Order (docs/native-library.md): {@code RocksDB.loadLibrary()}; read the RocksDB version
 * RocksJava reports and refuse any release not in {@link #SUPPORTED_ROCKSDB}; promote the
 * already-loaded {@code librocksdbjni} to global symbol scope ({@code RTLD_NOLOAD|RTLD_GLOBAL},
 * done by the tiny {@code libzkvboot.so}) so our library's undefined {@code rocksdb::} symbols bind
 * to it; then load the library built for that release and check the headers it was compiled
 * against. The libraries are extracted from this jar; the system property {@code zkv.native.dir}
 * may name a directory holding them to load instead (development builds).
 */
public final class ZkvNative {
  /**
   * The RocksJava ({@code org.rocksdb:rocksdbjni}) releases zkv has a native build for: 9.7.3 (the
   * default dependency; Kafka Streams 4.0.x-4.1.x) and 10.1.3 (Kafka Streams 4.2.x-4.3.x).
   */
  public static final List<String> SUPPORTED_ROCKSDB = List.of("9.7.3", "10.1.3");

  static final String RESOURCE_DIR = "/io/zkv/native/linux-x86_64/";

  private static final Throwable CAUSE;
  private static volatile String rocksJavaLibrary;
  private static volatile String rocksDbVersion;

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
    String rocksdb = String.valueOf(RocksDB.rocksdbVersion());
    String library = libraryFor(rocksdb);
    loadOnce(libraryPath("libzkvboot.so"));
    rocksJavaLibrary = nPromoteGlobal("librocksdbjni");
    loadOnce(libraryPath(library));
    checkHeaders(library, nRocksdbHeaderVersion(), rocksdb);
    // RocksDB's default Env (whose thread pools exit()'s static destructors join) exists before a
    // zone file system's call-out can register zkv's exit handler, which must run before them
    // (jni/java_callouts.cc): a ZoneFs starts GC, and may call out, before any Env is built.
    org.rocksdb.Env.getDefault();
    rocksDbVersion = rocksdb;
  }

  /**
   * The RocksDB release zkv's native library was loaded for (the one RocksJava reported), if it
   * loaded.
   */
  public static Optional<String> rocksDbVersion() {
    return Optional.ofNullable(rocksDbVersion);
  }

  /** The RocksJava library file zkv bound to (for diagnostics). */
  public static Optional<String> rocksJavaLibrary() {
    return Optional.ofNullable(rocksJavaLibrary);
  }

  /**
   * Loads a library; a copy extracted from the jar is deleted at once (the loaded mapping stays),
   * so a JVM that is killed leaves no copy behind in the temporary directory (deleteOnExit does not
   * run then, and crash tests kill many).
   */
  private static void loadOnce(Path library) throws IOException {
    System.load(library.toString());
    if (System.getProperty("zkv.native.dir") == null) {
      Files.deleteIfExists(library);
    }
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

  /**
   * The file name of zkv's native library built for RocksDB {@code found}; refuses a release zkv
   * has no build for, with a message listing the supported ones.
   */
  static String libraryFor(String found) {
    if (!SUPPORTED_ROCKSDB.contains(found)) {
      throw new UnsupportedOperationException(
          "zkv supports RocksJava (org.rocksdb:rocksdbjni) "
              + String.join(" and ", SUPPORTED_ROCKSDB)
              + ", but RocksDB "
              + found
              + " is on the class path: zkv's FileSystem is compiled against each supported"
              + " release's headers, whose layouts differ, so it refuses to load. Depend on one"
              + " of the supported rocksdbjni versions (9.7.3 is what Kafka Streams 4.0.x-4.1.x"
              + " use, 10.1.3 what 4.2.x-4.3.x use)");
    }
    return "libzkv-rocksdb-" + found + ".so";
  }

  /** Checks that {@code library} was compiled against the headers of RocksDB {@code expected}. */
  static void checkHeaders(String library, int headers, String expected) {
    String compiled = headers / 10000 + "." + headers / 100 % 100 + "." + headers % 100;
    if (!compiled.equals(expected)) {
      throw new UnsupportedOperationException(
          library
              + " was compiled against RocksDB "
              + compiled
              + " headers, not "
              + expected
              + "'s (a broken zkv-native build)");
    }
  }

  private static native String nPromoteGlobal(String libraryNameFragment);

  private static native int nRocksdbHeaderVersion();
}
