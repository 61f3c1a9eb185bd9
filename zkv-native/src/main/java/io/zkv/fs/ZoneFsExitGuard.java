package io.zkv.fs;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lets the JVM exit (System.exit, SIGTERM) while zone file systems are busy. RocksDB's background
 * threads attach to the JVM to ask the Java placement and GC policies; once the JVM has begun to
 * exit, such an attach blocks forever, and exit() itself then waits forever for that thread (the VM
 * thread runs RocksDB's static destructors, which join its thread pool). A shutdown hook therefore
 * uninstalls the Java policies of every mounted {@link ZoneFs} before the JVM goes: call-outs under
 * way finish first, later allocations and victims use the file system's safety rule (counted) and
 * never touch the JVM. The hook also tells the native side, so that threads attached for earlier
 * call-outs (they stay attached) do not detach when exit() joins them. Synced data is durable
 * already; nothing else needs the hook.
 */
final class ZoneFsExitGuard {
  private static final Set<ZoneFs> MOUNTED = ConcurrentHashMap.newKeySet();
  private static boolean exiting; // guarded by the class
  private static boolean hookInstalled; // guarded by the class

  private ZoneFsExitGuard() {}

  /** Registers a file system that has (or is about to get) Java call-outs. */
  static void watch(ZoneFs fs) {
    synchronized (ZoneFsExitGuard.class) {
      if (!hookInstalled) {
        try {
          Runtime.getRuntime()
              .addShutdownHook(new Thread(ZoneFsExitGuard::disableAll, "zkv-exit-guard"));
        } catch (IllegalStateException alreadyExiting) {
          exiting = true;
        }
        hookInstalled = true;
      }
    }
    MOUNTED.add(fs);
  }

  static void forget(ZoneFs fs) {
    MOUNTED.remove(fs);
  }

  /**
   * True once the JVM exits: no call-out may be installed any more. Installs hold the class's lock
   * while they look and install, so each is either seen by the hook or skipped.
   */
  static synchronized boolean exiting() {
    return exiting;
  }

  private static void disableAll() {
    synchronized (ZoneFsExitGuard.class) {
      exiting = true;
    }
    ZoneFs.jvmExiting();
    for (ZoneFs fs : MOUNTED) {
      fs.disableCallouts();
    }
  }
}
