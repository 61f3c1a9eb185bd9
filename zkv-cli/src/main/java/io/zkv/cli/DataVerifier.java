package io.zkv.cli;

import io.zkv.device.ZonedDevice;
import io.zkv.device.ZonedDeviceException;
import io.zkv.fs.FsFile;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.Logger;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.ZkvEnv;

/**
 * {@code zkv fsck --verify-data}: checks the data of every RocksDB database in the file system with
 * RocksDB's own checksums, changing nothing. Each database (a directory holding a {@code CURRENT}
 * file) is opened read-only through a read-only mount, with paranoid checks and WAL recovery in
 * absolute-consistency mode, so the MANIFEST and every record of every WAL are read and checked
 * (any checksum mismatch or torn record fails the open); then {@code verifyChecksum()} reads every
 * block of every SST file of every column family and checks its checksum.
 */
final class DataVerifier {
  private DataVerifier() {}

  /** The databases: directories holding a CURRENT file. */
  static List<String> databases(List<FsFile> files) {
    TreeSet<String> dbs = new TreeSet<>();
    for (FsFile f : files) {
      for (String name : f.names()) {
        if (name.endsWith("/CURRENT")) {
          dbs.add(name.substring(0, name.length() - "/CURRENT".length()));
        }
      }
    }
    return new ArrayList<>(dbs);
  }

  /** Verifies each database; returns one problem per damaged one, naming the damaged files. */
  static List<String> verify(ZonedDevice device, List<String> databases)
      throws ZonedDeviceException {
    RocksDB.loadLibrary();
    List<String> problems = new ArrayList<>();
    try (ZkvEnv env = ZkvEnv.readOnlyOnZones(device)) {
      for (String db : databases) {
        String problem = verifyOne(env, db);
        if (problem != null) {
          problems.add(problem);
        }
      }
    }
    return problems;
  }

  /** RocksDB's warnings about WAL records it drops name the WAL file ("/db/000004.log: ..."). */
  private static final class Warnings extends Logger {
    final List<String> lines = new ArrayList<>();

    Warnings() {
      super(InfoLogLevel.WARN_LEVEL);
    }

    @Override
    protected void log(InfoLogLevel level, String message) {
      if (message.contains(": dropping ")) {
        lines.add(message.trim().replaceFirst("^\\[[^]]*\\] ", "")); // without "[file.cc:line] "
      }
    }
  }

  private static String verifyOne(ZkvEnv env, String path) {
    try (Warnings warnings = new Warnings();
        Options listing = new Options().setEnv(env);
        DBOptions o =
            new DBOptions()
                .setEnv(env)
                .setParanoidChecks(true)
                .setWalRecoveryMode(WALRecoveryMode.AbsoluteConsistency)
                .setLogger(warnings)) {
      List<ColumnFamilyHandle> handles = new ArrayList<>();
      try {
        List<ColumnFamilyDescriptor> cfs = new ArrayList<>();
        for (byte[] name : RocksDB.listColumnFamilies(listing, path)) {
          cfs.add(new ColumnFamilyDescriptor(name));
        }
        try (RocksDB db = RocksDB.openReadOnly(o, path, cfs, handles)) {
          db.verifyChecksum();
        }
        return null;
      } catch (RocksDBException e) {
        String dropped =
            warnings.lines.isEmpty() ? "" : " [" + String.join("; ", warnings.lines) + "]";
        return "database " + path + ": " + e.getMessage() + dropped;
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }
}
