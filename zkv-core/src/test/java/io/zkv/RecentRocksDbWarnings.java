package io.zkv;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Logger;
import org.rocksdb.RocksDB;

/**
 * RocksDB's info log at WARN and above, its last lines kept in memory, so that a test's failure
 * message carries RocksDB's own account (write stalls, background errors, compaction retries). The
 * log runs in RocksDB's threads, a call into Java per line: warnings only, a few per second. Close
 * it only after the database that uses it is closed.
 */
final class RecentRocksDbWarnings extends Logger {
  static {
    RocksDB.loadLibrary(); // the Logger's constructor is native
  }

  private final int keep;
  private final ArrayDeque<String> lines = new ArrayDeque<>();
  private long seen;

  RecentRocksDbWarnings(int keep) {
    super(InfoLogLevel.WARN_LEVEL);
    this.keep = keep;
  }

  @Override
  protected void log(InfoLogLevel level, String line) {
    synchronized (lines) {
      seen++;
      if (lines.size() == keep) {
        lines.removeFirst();
      }
      lines.addLast(level + " " + line.strip());
    }
  }

  /** The kept lines, oldest first, after a count of those dropped. */
  List<String> lines() {
    synchronized (lines) {
      List<String> out = new ArrayList<>();
      if (seen > lines.size()) {
        out.add("(" + (seen - lines.size()) + " earlier lines dropped)");
      }
      out.addAll(lines);
      return out;
    }
  }
}
