package org.rocksdb;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lets the JVM exit (System.exit, SIGTERM) while zoned Envs are busy. RocksDB's background threads
 * attach to the JVM to ask the Java placement and GC policies; once the JVM has begun to exit, such
 * an attach blocks forever, and exit() itself then waits forever for that thread (the VM thread
 * runs RocksDB's static destructors, which join its thread pool). A shutdown hook therefore
 * uninstalls the Java policies of every open zoned Env before the JVM goes: call-outs under way
 * finish first, later allocations and victims use the file system's safety rule (counted) and never
 * touch the JVM. The hook also tells the native side, so that threads attached for earlier
 * call-outs (they stay attached) do not detach when exit() joins them. Synced data is durable
 * already; nothing else needs the hook.
 */
final class ZkvEnvExitGuard {
  private static final Set<ZkvEnv> ENVS = ConcurrentHashMap.newKeySet();
  private static volatile boolean exiting;
  private static boolean hookInstalled; // guarded by the class

  private ZkvEnvExitGuard() {}

  /** Registers an Env that has (or is about to get) Java call-outs. */
  static void watch(ZkvEnv env) {
    synchronized (ZkvEnvExitGuard.class) {
      if (!hookInstalled) {
        try {
          Runtime.getRuntime()
              .addShutdownHook(new Thread(ZkvEnvExitGuard::disableAll, "zkv-exit-guard"));
        } catch (IllegalStateException alreadyExiting) {
          exiting = true;
        }
        hookInstalled = true;
      }
    }
    ENVS.add(env);
  }

  static void forget(ZkvEnv env) {
    ENVS.remove(env);
  }

  /** True once the JVM exits: no call-out may be installed any more. */
  static boolean exiting() {
    return exiting;
  }

  private static void disableAll() {
    exiting = true;
    ZkvEnv.jvmExiting();
    for (ZkvEnv env : ENVS) {
      env.disableCallouts();
    }
  }
}
