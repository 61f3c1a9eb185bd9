package org.rocksdb;

/**
 * The Java face of zkv's native LSM hint listener ({@code rocks/lsm_hints.h}): RocksJava holds it
 * like one of its own listeners, but every event is handled natively, feeding the hints of the
 * zoned Env it is bound to; nothing calls back into Java (upcalls from RocksDB's threads would slow
 * every flush and hang the JVM's exit). Made by {@link ZkvEnv#newLsmHintListener}; close it after
 * the database that uses it.
 */
final class ZkvLsmListener extends AbstractEventListener {
  ZkvLsmListener(long envHandle) {
    super();
    nBind(nativeHandle_, envHandle);
  }

  /**
   * Called by RocksJava's constructor: the native listener instead of RocksJava's upcalling one.
   */
  @Override
  protected long initializeNative(long... nativeParameterHandles) {
    return nNewListener();
  }

  @Override
  protected void disposeInternal() {
    nDispose(nativeHandle_);
  }

  /** The largest RocksDB sequence number a completed flush of its database persisted (0: none). */
  long flushedSequence() {
    return nFlushedSequence(nativeHandle_);
  }

  private native long nNewListener();

  private static native long nFlushedSequence(long listener);

  private static native void nBind(long listener, long envHandle);

  private static native void nDispose(long listener);
}
