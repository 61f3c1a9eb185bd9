package io.zkv.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where demos and benchmarks put emulated devices when the user names no directory: tmpfs ({@code
 * /dev/shm}) when present, because a device written at hundreds of MB/s on a disk file system makes
 * the kernel throttle the writer for page-cache writeback, which would be measured as device
 * latency. Falls back to the default temporary directory.
 */
public final class ScratchDir {
  private ScratchDir() {}

  public static Path create(String prefix) throws IOException {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      return Files.createTempDirectory(shm, prefix);
    }
    return Files.createTempDirectory(prefix);
  }
}
