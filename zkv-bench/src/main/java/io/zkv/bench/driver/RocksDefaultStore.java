package io.zkv.bench.driver;

import io.zkv.ZkvOptions;
import io.zkv.device.HostLateness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.rocksdb.Env;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * RocksJava on its default Env (the host file system) in a fresh directory, deleted on close. The
 * RocksDB options are zkv's ({@link ZkvOptions#toRocksOptions}) with the default Env, so the two
 * targets differ only in where the files live.
 */
final class RocksDefaultStore implements BenchStore {
  private final Path dir;
  private final Options options;
  private final WriteOptions writeOptions;
  private RocksDB db; // replaced by a reopen (the recover workload), between phases only

  private RocksDefaultStore(Path dir, Options options, WriteOptions writeOptions, RocksDB db) {
    this.dir = dir;
    this.options = options;
    this.writeOptions = writeOptions;
    this.db = db;
  }

  static RocksDefaultStore open(TargetConfig c, BenchSettings s, Path scratchDir) {
    ZkvOptions zo = s.dbOptions(c.sync(), c.lsm());
    Path parent = c.dir() != null ? Path.of(c.dir()) : scratchDir;
    Path dir;
    try {
      Files.createDirectories(parent);
      dir = Files.createTempDirectory(parent, "rocksdb-default-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a database directory in " + parent, e);
    }
    Options o = zo.toRocksOptions(Env.getDefault());
    WriteOptions w = zo.toWriteOptions();
    try {
      return new RocksDefaultStore(dir, o, w, RocksDB.open(o, dir.toString()));
    } catch (RocksDBException e) {
      o.close();
      w.close();
      deleteTree(dir);
      throw new IllegalStateException("cannot open RocksDB in " + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void put(byte[] key, byte[] value) {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB put in " + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] get(byte[] key) {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB get in " + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public int scan(byte[] from, int count) {
    int n = 0;
    try (RocksIterator it = db.newIterator()) {
      // The same work as ZkvStore's scan: a seek, then a copy of each entry's key and value.
      for (it.seek(from); n < count && it.isValid(); it.next()) {
        if (it.key() != null && it.value() != null) {
          n++;
        }
      }
    }
    return n;
  }

  @Override
  public boolean settle(long timeoutMillis) throws InterruptedException {
    try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
      db.flush(f);
      return Settling.awaitIdle(this::longProperty, timeoutMillis);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB flush in " + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public long longProperty(String name) {
    try {
      return Long.parseLong(db.getProperty(name).trim()); // also string-valued integers
    } catch (RocksDBException e) {
      throw new IllegalStateException(
          "RocksDB property " + name + " in " + dir + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String stringProperty(String name) {
    try {
      return db.getProperty(name);
    } catch (RocksDBException e) {
      throw new IllegalStateException(
          "RocksDB property " + name + " in " + dir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Syncs the WAL and closes RocksDB without a flush (its close with the WAL on flushes no
   * memtable), then opens it again with {@code avoid_flush_during_recovery} and flushes. The host
   * file system has no mount to measure: its figures are 0.
   */
  @Override
  public RecoveryFigures reopen() {
    long entries = count();
    try {
      db.flushWal(true);
      long walBytes = 0;
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.filter(f -> f.toString().endsWith(".log")).toList()) {
          walBytes += Files.size(f);
        }
      }
      db.close();
      db = null;
      long start = System.nanoTime();
      options.setAvoidFlushDuringRecovery(true);
      db = RocksDB.open(options, dir.toString());
      long opened = System.nanoTime();
      try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        db.flush(f);
      }
      long flushed = System.nanoTime();
      long after = count();
      if (after != entries) {
        throw new IllegalStateException(
            "recovery lost data: " + entries + " entries before the reopen, " + after + " after");
      }
      double replay = (opened - start) / 1e9;
      HostLateness none = new HostLateness(0, 0, 0); // no emulated device
      return new RecoveryFigures(
          replay,
          0,
          0,
          0,
          0,
          0,
          0,
          replay,
          0,
          0,
          (flushed - opened) / 1e9,
          walBytes,
          entries,
          none,
          none);
    } catch (RocksDBException e) {
      throw new IllegalStateException("RocksDB reopen in " + dir + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }

  private long count() {
    long n = 0;
    try (RocksIterator it = db.newIterator()) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        n++;
      }
    }
    return n;
  }

  @Override
  public ZoneCounters counters() {
    return null;
  }

  @Override
  public void close() {
    try {
      if (db != null) {
        db.close();
      }
      writeOptions.close();
      options.close();
    } finally {
      deleteTree(dir);
    }
  }

  static void deleteTree(Path p) {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + p, e);
    }
  }
}
