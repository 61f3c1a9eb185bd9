package org.rocksdb;

import io.zkv.nativelib.ZkvNative;

/**
 * Test plumbing: an Env over the host file system that routes every file through zkv's native
 * FileSystem layer (a pass-through that counts calls), proving that RocksDB's file calls reach zkv.
 * Not part of the library: it lives in zkv-native's test sources, and other modules' tests get it
 * from the zkv-native test jar. In {@code org.rocksdb} because {@code Env(long)} is
 * package-private.
 */
public final class PassthroughEnv extends Env {
  private final long handle;

  private PassthroughEnv(long handle) {
    super(nEnvPointer(handle));
    this.handle = handle;
  }

  /** A new pass-through Env; close it after the databases and {@code Options} using it. */
  public static PassthroughEnv open() {
    ZkvNative.ensureLoaded();
    return new PassthroughEnv(nNew());
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
