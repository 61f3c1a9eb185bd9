package org.rocksdb;

import io.zkv.nativelib.ZkvNative;

/**
 * A RocksDB {@link Env} whose file system is zkv's, for {@code Options.setEnv(...)}.
 *
 * <p>It lives in package {@code org.rocksdb} because {@code Env(long)} is package-private in
 * RocksJava 9.7.3 (and {@code RocksEnv.close()} is broken there). The native handle RocksJava sees
 * is the raw {@code rocksdb::Env*}; closing this object frees the Env and its file system, so close
 * every database and {@code Options} using it first.
 */
public final class ZkvEnv extends Env {
  private final long zkvHandle;

  private ZkvEnv(long zkvHandle) {
    super(nEnvPointer(zkvHandle));
    this.zkvHandle = zkvHandle;
  }

  /**
   * An Env over the host file system that routes every file through zkv's native FileSystem layer
   * (a pass-through that counts calls); proves the plumbing until the zone file system.
   */
  public static ZkvEnv passthrough() {
    ZkvNative.ensureLoaded();
    return new ZkvEnv(nNewPassthrough());
  }

  /** Files RocksDB created through this Env's file system. */
  public long filesCreated() {
    checkOpen();
    return nFilesCreated(zkvHandle);
  }

  /** Files RocksDB opened for random reads through this Env's file system. */
  public long filesOpened() {
    checkOpen();
    return nFilesOpened(zkvHandle);
  }

  private void checkOpen() {
    if (!isOwningHandle()) {
      throw new IllegalStateException("ZkvEnv is closed");
    }
  }

  @Override
  protected void disposeInternal(long envPointer) {
    nDispose(zkvHandle);
  }

  private static native long nNewPassthrough();

  private static native long nEnvPointer(long handle);

  private static native void nDispose(long handle);

  private static native long nFilesCreated(long handle);

  private static native long nFilesOpened(long handle);
}
