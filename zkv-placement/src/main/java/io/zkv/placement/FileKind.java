package io.zkv.placement;

import java.util.Objects;

/**
 * What a RocksDB file is, derived from its name the way RocksDB's own {@code ParseFileName} ({@code
 * file/filename.cc}) reads names. The zone file system only ever sees names, and RocksDB does not
 * tell it the I/O type (ZenFS: "RocksDB does not set the right io type(!)"), so the name is the one
 * reliable source; LIZA needs it to give the WAL its priority.
 */
public enum FileKind {
  /** Write-ahead log: {@code 000123.log}, also under {@code archive/}. */
  WAL,
  /** Table file: {@code 000045.sst} (or LevelDB-style {@code .ldb}). */
  SST,
  /** Blob file (BlobDB): {@code 000012.blob}. */
  BLOB,
  /** Version edits: {@code MANIFEST-000005}. */
  MANIFEST,
  /** Names the live MANIFEST: {@code CURRENT}. */
  CURRENT,
  /** Options snapshot: {@code OPTIONS-000007}. */
  OPTIONS,
  /** Database identity: {@code IDENTITY}. */
  IDENTITY,
  /** Process lock: {@code LOCK}. */
  LOCK,
  /** RocksDB's info log: {@code LOG}, {@code LOG.old.<time>}, or {@code <prefix>_LOG...}. */
  INFO_LOG,
  /** Written then renamed into place: {@code 000009.dbtmp}, {@code OPTIONS-000007.dbtmp}. */
  TEMP,
  /** Obsolete meta database: {@code METADB-000003}. */
  META_DATABASE,
  /** Anything RocksDB did not name. */
  UNKNOWN;

  /** True for the WAL, which LIZA prioritises (ZenFS's {@code IOType::kWAL}). */
  public boolean isWal() {
    return this == WAL;
  }

  /** True for files holding key-value data that compaction rewrites: SST and blob files. */
  public boolean isData() {
    return this == SST || this == BLOB;
  }

  /** True for RocksDB's small bookkeeping files (MANIFEST, CURRENT, OPTIONS and the like). */
  public boolean isMetadata() {
    return switch (this) {
      case MANIFEST, CURRENT, OPTIONS, IDENTITY, LOCK, TEMP, META_DATABASE -> true;
      default -> false;
    };
  }

  /**
   * The kind of the file called {@code name}; a path is allowed, only its last component counts.
   *
   * <p>ZenFS itself treats any name ending in {@code .log} as the WAL; here a WAL must be named the
   * way RocksDB names it (decimal number, {@code .log}), so a stray {@code notes.log} is {@link
   * #UNKNOWN} rather than given the WAL's reserved open token.
   *
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty or ends with a path separator
   */
  public static FileKind fromName(String name) {
    Objects.requireNonNull(name, "file name");
    String base = name.substring(name.lastIndexOf('/') + 1);
    if (base.isEmpty()) {
      throw new IllegalArgumentException("no file name in '" + name + "'");
    }
    switch (base) {
      case "CURRENT":
        return CURRENT;
      case "IDENTITY":
        return IDENTITY;
      case "LOCK":
        return LOCK;
      default:
        break;
    }
    if (isInfoLog(base)) {
      return INFO_LOG;
    }
    if (base.startsWith("MANIFEST-")) {
      return isNumber(base.substring("MANIFEST-".length())) ? MANIFEST : UNKNOWN;
    }
    if (base.startsWith("METADB-")) {
      return isNumber(base.substring("METADB-".length())) ? META_DATABASE : UNKNOWN;
    }
    if (base.startsWith("OPTIONS-")) {
      String rest = base.substring("OPTIONS-".length());
      if (isNumber(rest)) {
        return OPTIONS;
      }
      if (rest.endsWith(".dbtmp") && isNumber(rest.substring(0, rest.length() - 6))) {
        return TEMP;
      }
      return UNKNOWN;
    }
    int dot = base.indexOf('.');
    if (dot <= 0 || !isNumber(base.substring(0, dot))) {
      return UNKNOWN;
    }
    switch (base.substring(dot)) {
      case ".log":
        return WAL;
      case ".sst":
      case ".ldb":
        return SST;
      case ".blob":
        return BLOB;
      case ".dbtmp":
        return TEMP;
      default:
        return UNKNOWN;
    }
  }

  /** {@code LOG}, {@code LOG.old.<n>}, and the {@code <escaped db path>_LOG} forms RocksDB uses. */
  private static boolean isInfoLog(String base) {
    String log;
    if (base.startsWith("LOG")) {
      log = base;
    } else {
      int at = base.lastIndexOf("_LOG");
      if (at < 0) {
        return false;
      }
      log = base.substring(at + 1);
    }
    if (log.equals("LOG")) {
      return true;
    }
    return log.startsWith("LOG.old.") && isNumber(log.substring("LOG.old.".length()));
  }

  private static boolean isNumber(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }
}
