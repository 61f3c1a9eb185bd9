package io.zkv.cli;

import io.zkv.nativelib.ZkvNative;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What a result was measured with, as JMH records it: zkv's version and the git commit it was built
 * from, the RocksDB release RocksJava loaded (rocksdbjni bundles it, so both carry one version) and
 * the JVM. {@code zkv --version} prints it; every {@code zkv bench} report records it.
 *
 * @param zkv zkv's Maven version
 * @param commit the commit built (12 hex digits, "-dirty" after them when the checkout had local
 *     changes), or "unknown" when built outside a git checkout
 * @param rocksDb the loaded RocksDB release, or why it is unknown
 * @param java the Java version
 * @param jvm the virtual machine's name and vendor
 */
public record Versions(String zkv, String commit, String rocksDb, String java, String jvm) {
  private static final String UNKNOWN = "unknown";

  /** The versions of this process. */
  public static Versions current() {
    Properties p = new Properties();
    try (InputStream in = Versions.class.getResourceAsStream("zkv-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // both stay unknown
    }
    String rocks;
    try {
      ZkvNative.ensureLoaded();
      rocks = ZkvNative.rocksDbVersion().orElse(UNKNOWN);
    } catch (RuntimeException e) {
      rocks = "not loadable (" + e.getMessage() + ")";
    }
    return new Versions(
        filtered(p.getProperty("version")),
        commit(p),
        rocks,
        System.getProperty("java.version"),
        System.getProperty("java.vm.name") + ", " + System.getProperty("java.vm.vendor"));
  }

  /** The commit, "-dirty" when the build had local changes. */
  private static String commit(Properties p) {
    String commit = filtered(p.getProperty("commit"));
    return commit.equals(UNKNOWN) || !"true".equals(p.getProperty("dirty"))
        ? commit
        : commit + "-dirty";
  }

  /** A value Maven filled in, else "unknown" (a build outside git leaves the placeholder). */
  private static String filtered(String value) {
    return value == null || value.isBlank() || value.startsWith("${") ? UNKNOWN : value;
  }

  /** One line: "zkv 0.1.0 (commit abc), RocksDB 9.7.3 (rocksdbjni 9.7.3), Java 17 (VM)". */
  public String line() {
    return zkvPart() + ", " + rocksDbPart("") + ", " + javaPart();
  }

  /** "zkv 0.1.0 (commit abc)". */
  String zkvPart() {
    return "zkv " + zkv + " (commit " + commit + ")";
  }

  /** "RocksDB 9.7.3 (rocksdbjni 9.7.3" + {@code more} + ")". */
  String rocksDbPart(String more) {
    return "RocksDB " + rocksDb + " (rocksdbjni " + rocksDb + more + ")";
  }

  /** "Java 17 (VM, vendor)". */
  String javaPart() {
    return "Java " + java + " (" + jvm + ")";
  }
}
