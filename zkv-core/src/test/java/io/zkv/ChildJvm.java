package io.zkv;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM running a test workload on this test's class path. */
final class ChildJvm {
  private ChildJvm() {}

  /**
   * {@code java -Xmx256m [jvmOptions] -Djava.io.tmpdir=dir -cp ... main args}: RocksJava extracts
   * its library into the temporary directory, and an exiting child may not delete it.
   */
  static List<String> command(Path dir, List<String> jvmOptions, Class<?> main, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.addAll(jvmOptions);
    cmd.add("-Djava.io.tmpdir=" + dir);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }
}
