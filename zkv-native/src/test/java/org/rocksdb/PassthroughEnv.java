package org.rocksdb;

import io.zkv.nativelib.ZkvNative;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Test plumbing: an Env over the host file system that routes every file through zkv's native
 * FileSystem layer (a pass-through that counts calls), proving that RocksDB's file calls reach zkv.
 * Not part of the library: it lives in zkv-native's test sources, its native side in a test-only
 * library ({@code libzkv-rocksdb-test-<version>.so}, built beside the test classes), and other
 * modules' tests get both from the zkv-native test jar. In {@code org.rocksdb} because {@code
 * Env(long)} is package-private.
 */
public final class PassthroughEnv extends Env {
  private static final String TEST_LIBRARY_DIR = "/io/zkv/native/linux-x86_64/";
  private static volatile boolean loaded;

  private final long handle;

  private PassthroughEnv(long handle) {
    super(nEnvPointer(handle));
    this.handle = handle;
  }

  /** A new pass-through Env; close it after the databases and {@code Options} using it. */
  public static PassthroughEnv open() {
    loadTestLibrary();
    return new PassthroughEnv(nNew());
  }

  /**
   * zkv's library first (it binds RocksJava's symbols globally), then the test library for the same
   * release.
   */
  private static synchronized void loadTestLibrary() {
    if (loaded) {
      return;
    }
    ZkvNative.ensureLoaded();
    String name = "libzkv-rocksdb-test-" + ZkvNative.rocksDbVersion().orElseThrow() + ".so";
    try (InputStream in = PassthroughEnv.class.getResourceAsStream(TEST_LIBRARY_DIR + name)) {
      if (in == null) {
        throw new IllegalStateException(
            "the test classes have no " + TEST_LIBRARY_DIR + name + " (native test build missing)");
      }
      Path copy = Files.createTempFile("zkv-rocksdb-test", ".so");
      try {
        Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
        System.load(copy.toString());
      } finally {
        Files.deleteIfExists(copy); // the loaded mapping stays
      }
    } catch (IOException e) {
      throw new UncheckedIOException("loading " + name, e);
    }
    loaded = true;
  }

  /** Files RocksDB created through this Env's file system. */
  public long filesCreated() {
    checkOpen();
    return nFilesCreated(handle);
  }

  /** Files RocksDB opened for random reads through this Env's file system. */
  public long filesOpened() {
    checkOpen();
    return nFilesOpened(handle);
  }

  private void checkOpen() {
    if (!isOwningHandle()) {
      throw new IllegalStateException("PassthroughEnv is closed");
    }
  }

  @Override
  protected void disposeInternal(long envPointer) {
    nDispose(handle);
  }

  private static native long nNew();

  private static native long nEnvPointer(long handle);

  private static native void nDispose(long handle);

  private static native long nFilesCreated(long handle);

  private static native long nFilesOpened(long handle);
}
