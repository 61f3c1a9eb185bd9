package io.zkv;

import io.zkv.nativelib.ZkvNative;
import io.zkv.wal.WalMode;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Env;
import org.rocksdb.Options;
import org.rocksdb.WriteOptions;

/**
 * Options of a {@link ZkvDb}: an immutable value built with {@link #builder()}; bad values are
 * refused by the builder with an {@link IllegalArgumentException} naming the option, the value and
 * the allowed range.
 *
 * <p>Defaults: create if missing, 64 MiB write buffer (RocksDB's), asynchronous writes with the WAL
 * on, {@link Placement#LIZA}, {@link Compression#SNAPPY} (RocksDB's), no Bloom filter (RocksDB's).
 * With {@link Builder#walMode walMode(WALTZ)} every write is durable when it returns, whatever
 * {@code syncWrites} says (docs/wal.md, "WALTZ mode").
 */
public final class ZkvOptions {
  /** Smallest accepted write buffer (memtable) size. */
  public static final long MIN_WRITE_BUFFER_SIZE = 64L << 10;

  /** Largest accepted write buffer (memtable) size. */
  public static final long MAX_WRITE_BUFFER_SIZE = 64L << 30;

  /** Memtables RocksDB may hold per database (one being written, one being flushed). */
  public static final int MAX_WRITE_BUFFER_NUMBER = 2;

  /**
   * RocksDB's info logs (LOG, LOG.old.*) live in zones too, and RocksDB keeps 1000 of them of
   * unbounded size by default: a busy database restarted a few dozen times filled a 78 MiB device
   * with logs. zkv keeps {@value} files ...
   */
  public static final int INFO_LOG_FILES_KEPT = 4;

  /** ... of at most this many bytes each (RocksDB starts a new LOG beyond it). */
  public static final long INFO_LOG_FILE_MAX_BYTES = 4L << 20;

  /**
   * Largest accepted Bloom filter size per key, in bits (RocksDB's filters gain nothing beyond).
   */
  public static final double MAX_BLOOM_BITS_PER_KEY = 64;

  private static final ZkvOptions DEFAULTS = new Builder().build();

  private final boolean createIfMissing;
  private final long writeBufferSize;
  private final boolean syncWrites;
  private final boolean disableWal;
  private final WalMode walMode;
  private final Placement placement;
  private final Compression compression;
  private final double bloomFilterBitsPerKey;
  private final Consumer<Options> rocksDbTuning;

  private ZkvOptions(Builder b) {
    this.createIfMissing = b.createIfMissing;
    this.writeBufferSize = b.writeBufferSize;
    this.syncWrites = b.syncWrites;
    this.disableWal = b.disableWal;
    this.walMode = b.walMode;
    this.placement = b.placement;
    this.compression = b.compression;
    this.bloomFilterBitsPerKey = b.bloomFilterBitsPerKey;
    this.rocksDbTuning = b.rocksDbTuning;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The defaults (see the class comment). */
  public static ZkvOptions defaults() {
    return DEFAULTS;
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.createIfMissing = createIfMissing;
    b.writeBufferSize = writeBufferSize;
    b.syncWrites = syncWrites;
    b.disableWal = disableWal;
    b.walMode = walMode;
    b.placement = placement;
    b.compression = compression;
    b.bloomFilterBitsPerKey = bloomFilterBitsPerKey;
    b.rocksDbTuning = rocksDbTuning;
    return b;
  }

  public boolean createIfMissing() {
    return createIfMissing;
  }

  public long writeBufferSize() {
    return writeBufferSize;
  }

  public boolean syncWrites() {
    return syncWrites;
  }

  public boolean disableWal() {
    return disableWal;
  }

  /**
   * The database's WAL mode: empty (the default) for RocksDB's WAL files in the env's mode ({@link
   * ZonedEnvOptions#wal()}), {@link WalMode#WALTZ} for zkv's own per-writer log (docs/wal.md,
   * "WALTZ mode"), or FILE/ZWAL to insist on the env's.
   */
  public java.util.Optional<WalMode> walMode() {
    return java.util.Optional.ofNullable(walMode);
  }

  /** Whether writes go through WALTZ's log (RocksDB's WAL then stays off). */
  public boolean waltz() {
    return walMode == WalMode.WALTZ;
  }

  /** The placement this database asks for; empty (the default) takes the env's. */
  public java.util.Optional<Placement> placement() {
    return java.util.Optional.ofNullable(placement);
  }

  public Compression compression() {
    return compression;
  }

  /** Bits per key of the SST files' Bloom filters; 0 (the default) for none. */
  public double bloomFilterBitsPerKey() {
    return bloomFilterBitsPerKey;
  }

  /**
   * RocksDB options for a database on {@code env}; the caller closes them after the database. The
   * {@linkplain Builder#rocksDbTuning tuning hook} runs last.
   *
   * @throws IllegalArgumentException if the tuning hook replaced the Env
   */
  public Options toRocksOptions(Env env) {
    Objects.requireNonNull(env, "env");
    ZkvNative.ensureLoaded(); // loads RocksJava's library too
    Options o = new Options();
    try {
      o.setEnv(env)
          .setCreateIfMissing(createIfMissing)
          .setWriteBufferSize(writeBufferSize)
          .setMaxWriteBufferNumber(MAX_WRITE_BUFFER_NUMBER)
          .setCompressionType(compression.rocksType())
          .setKeepLogFileNum(INFO_LOG_FILES_KEPT)
          .setMaxLogFileSize(INFO_LOG_FILE_MAX_BYTES);
      if (bloomFilterBitsPerKey > 0) {
        o.setTableFormatConfig(tableWithBloomFilter(bloomFilterBitsPerKey));
      }
      if (rocksDbTuning != null) {
        rocksDbTuning.accept(o);
        if (o.getEnv() != env) {
          throw new IllegalArgumentException(
              "the RocksDB tuning hook must not replace the Env: zkv databases live on the"
                  + " ZonedEnv's device");
        }
      }
      return o;
    } catch (RuntimeException e) {
      o.close();
      throw e;
    }
  }

  /**
   * One filter policy per bits-per-key value for the process, never closed: the options keep a
   * reference to it in their table config (a tuning hook may apply that again), and RocksDB shares
   * a policy between tables anyway. A few bytes each.
   */
  private static final Map<Double, BloomFilter> BLOOM_FILTERS = new ConcurrentHashMap<>();

  /** RocksDB's block cache by default (BlockBasedTableOptions: 32 MiB, one per table factory). */
  static final long ROCKSDB_DEFAULT_BLOCK_CACHE_BYTES = 32L << 20;

  /**
   * RocksDB's default table with a Bloom filter. RocksJava's table config differs from RocksDB's
   * default in one respect, its block cache of 8 MiB: set to RocksDB's 32 MiB here, through the
   * (deprecated) size setter, so that the factory owns its cache as RocksDB's default does.
   */
  @SuppressWarnings("deprecation")
  private static BlockBasedTableConfig tableWithBloomFilter(double bitsPerKey) {
    BloomFilter filter = BLOOM_FILTERS.computeIfAbsent(bitsPerKey, BloomFilter::new);
    return new BlockBasedTableConfig()
        .setFilterPolicy(filter)
        .setBlockCacheSize(ROCKSDB_DEFAULT_BLOCK_CACHE_BYTES);
  }

  /** RocksDB write options for {@link #syncWrites()} and {@link #disableWal()}; caller closes. */
  public WriteOptions toWriteOptions() {
    ZkvNative.ensureLoaded();
    // WALTZ: RocksDB's WAL off, the log above it makes each write durable before it is applied
    return waltz()
        ? new WriteOptions().setDisableWAL(true)
        : new WriteOptions().setSync(syncWrites).setDisableWAL(disableWal);
  }

  @Override
  public String toString() {
    return "ZkvOptions{createIfMissing="
        + createIfMissing
        + ", writeBufferSize="
        + writeBufferSize
        + ", syncWrites="
        + syncWrites
        + ", disableWal="
        + disableWal
        + (walMode != null ? ", walMode=" + walMode : "")
        + ", placement="
        + (placement == null ? "env's" : placement)
        + ", compression="
        + compression
        + (bloomFilterBitsPerKey > 0 ? ", bloomFilterBitsPerKey=" + bloomFilterBitsPerKey : "")
        + (rocksDbTuning != null ? ", with RocksDB tuning" : "")
        + "}";
  }

  /** Builds {@link ZkvOptions}; each setter validates its argument. Not thread-safe. */
  public static final class Builder {
    private boolean createIfMissing = true;
    private long writeBufferSize = 64L << 20;
    private boolean syncWrites;
    private boolean disableWal;
    private WalMode walMode; // null: the env's
    private Placement placement; // null: whatever the env's placement is
    private Compression compression = Compression.SNAPPY;
    private double bloomFilterBitsPerKey;
    private Consumer<Options> rocksDbTuning;

    private Builder() {}

    /** Create the database when its path holds none (default true); else opening one fails. */
    public Builder createIfMissing(boolean create) {
      this.createIfMissing = create;
      return this;
    }

    /**
     * Bytes a memtable gathers before it is flushed to an SST file, between {@link
     * #MIN_WRITE_BUFFER_SIZE} and {@link #MAX_WRITE_BUFFER_SIZE}. {@link ZkvDb#open} also checks
     * that {@link #MAX_WRITE_BUFFER_NUMBER} of them fit in the device's data zones.
     */
    public Builder writeBufferSize(long bytes) {
      if (bytes < MIN_WRITE_BUFFER_SIZE || bytes > MAX_WRITE_BUFFER_SIZE) {
        throw new IllegalArgumentException(
            "writeBufferSize must be between "
                + MIN_WRITE_BUFFER_SIZE
                + " (64 KiB) and "
                + MAX_WRITE_BUFFER_SIZE
                + " (64 GiB) bytes, not "
                + bytes);
      }
      this.writeBufferSize = bytes;
      return this;
    }

    /** Sync the WAL before each write returns (default false). Needs the WAL. */
    public Builder syncWrites(boolean sync) {
      this.syncWrites = sync;
      return this;
    }

    /**
     * Write without RocksDB's WAL (default false): faster, but writes not yet flushed to SST files
     * are lost in a crash (Kafka Streams runs its stores this way; its changelog restores them).
     */
    public Builder disableWal(boolean disable) {
      this.disableWal = disable;
      return this;
    }

    /**
     * The placement this database expects (default: none, the env's). Placement is per device and
     * set with {@link ZonedEnvOptions.Builder#placement(io.zkv.placement.PlacementPolicy)}; naming
     * one here only checks it. Placement is per device: {@link ZkvDb#open(ZonedEnv, String,
     * ZkvOptions)} refuses options naming another placement than the env's ({@link
     * ZonedEnvOptions#placement()}).
     */
    public Builder walMode(WalMode mode) {
      this.walMode = java.util.Objects.requireNonNull(mode, "walMode must not be null");
      return this;
    }

    public Builder placement(Placement p) {
      this.placement = Objects.requireNonNull(p, "placement must not be null");
      return this;
    }

    public Builder compression(Compression c) {
      this.compression = Objects.requireNonNull(c, "compression must not be null");
      return this;
    }

    /**
     * Gives every SST file a Bloom filter of {@code bits} bits per key (10 is the usual choice,
     * about 1% false positives), so that a Get skips the files that cannot hold its key instead of
     * reading a data block from each: fewer device reads per Get, at the cost of the filters'
     * memory. Between 0 (no filter, the default, as RocksDB's) and {@link #MAX_BLOOM_BITS_PER_KEY}.
     * A {@linkplain #rocksDbTuning tuning hook} that sets its own table format replaces it.
     */
    public Builder bloomFilterBitsPerKey(double bits) {
      if (!(bits >= 0 && bits <= MAX_BLOOM_BITS_PER_KEY)) {
        throw new IllegalArgumentException(
            "bloomFilterBitsPerKey must be between 0 (no filter) and "
                + MAX_BLOOM_BITS_PER_KEY
                + ", not "
                + bits);
      }
      this.bloomFilterBitsPerKey = bits;
      return this;
    }

    /**
     * Advanced: a hook that adjusts the RocksDB {@link Options} after zkv has set its own (for
     * example file sizes or compaction triggers). It must not replace the Env. {@code null} removes
     * it.
     */
    public Builder rocksDbTuning(Consumer<Options> tuning) {
      this.rocksDbTuning = tuning;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalArgumentException for combinations that cannot work
     */
    public ZkvOptions build() {
      if (walMode == WalMode.WALTZ && disableWal) {
        throw new IllegalArgumentException(
            "walMode WALTZ is a write-ahead log: it cannot be combined with disableWal(true)");
      }
      if (syncWrites && disableWal) {
        throw new IllegalArgumentException(
            "syncWrites needs the WAL: syncWrites(true) and disableWal(true) cannot be combined");
      }
      return new ZkvOptions(this);
    }
  }
}
