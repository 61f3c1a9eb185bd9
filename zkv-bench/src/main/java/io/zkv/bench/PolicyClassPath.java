package io.zkv.bench;

import io.zkv.bench.driver.BenchInvocation;
import io.zkv.cli.Arguments.UsageException;
import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code zkv bench --classpath} (or {@code ZKV_CLASSPATH}): where the policies a configuration
 * names as {@code class:com.example.MyPolicy} are found, besides the tool's own class path. Entries
 * as {@code java -cp} takes them: directories of classes, jars, and {@code dir/*} for every jar in
 * a directory; separated by {@link File#pathSeparator}. A missing entry is a bad command line (a
 * typo would otherwise surface as "class not found").
 */
final class PolicyClassPath implements AutoCloseable {
  private final ClassLoader loader;
  private final URLClassLoader own; // null when no path was given

  private PolicyClassPath(ClassLoader loader, URLClassLoader own) {
    this.loader = loader;
    this.own = own;
  }

  /** A loader over {@code paths} whose parent is {@code parent}; {@code parent} itself if none. */
  static PolicyClassPath of(String paths, ClassLoader parent) {
    if (paths == null || paths.isBlank()) {
      return new PolicyClassPath(parent, null);
    }
    List<URL> urls = new ArrayList<>();
    for (String entry : paths.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      if (entry.endsWith("/*")) {
        Path dir = existing(entry.substring(0, entry.length() - 2), entry);
        try (Stream<Path> jars = Files.list(dir)) {
          for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).sorted().toList()) {
            urls.add(url(jar));
          }
        } catch (IOException e) {
          throw new UsageException("--classpath: cannot list " + dir + ": " + e.getMessage());
        }
      } else {
        urls.add(url(existing(entry, entry)));
      }
    }
    URLClassLoader own = new URLClassLoader("zkv-policies", urls.toArray(URL[]::new), parent);
    return new PolicyClassPath(own, own);
  }

  ClassLoader loader() {
    return loader;
  }

  @Override
  public void close() throws IOException {
    if (own != null) {
      own.close();
    }
  }

  private static Path existing(String path, String entry) {
    Path p;
    try {
      p = Path.of(path);
    } catch (InvalidPathException e) {
      throw new UsageException(
          "--classpath (or "
              + BenchInvocation.CLASSPATH_ENV
              + ") entry "
              + entry
              + ": "
              + e.getMessage());
    }
    if (!Files.exists(p)) {
      throw new UsageException(
          "--classpath (or "
              + BenchInvocation.CLASSPATH_ENV
              + ") entry "
              + entry
              + " does not exist");
    }
    return p;
  }

  private static URL url(Path p) {
    try {
      return p.toAbsolutePath().toUri().toURL();
    } catch (MalformedURLException e) {
      throw new UsageException("--classpath entry " + p + ": " + e.getMessage());
    }
  }
}
