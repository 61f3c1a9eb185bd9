package io.zkv.bench.workload;

import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * YCSB's {@code CoreWorkload}: a load phase that inserts {@code recordCount} records, and a run
 * phase mixing reads, updates, inserts, scans and read-modify-writes.
 *
 * <p>Sources: YCSB {@code site.ycsb.workloads.CoreWorkload} and {@code workloads/workloada..f}
 * (brianfrankcooper/YCSB):
 *
 * <table>
 *   <caption>Core workloads</caption>
 *   <tr><th></th><th>read</th><th>update</th><th>insert</th><th>scan</th><th>RMW</th>
 *       <th>request distribution</th></tr>
 *   <tr><td>A</td><td>0.50</td><td>0.50</td><td></td><td></td><td></td><td>zipfian</td></tr>
 *   <tr><td>B</td><td>0.95</td><td>0.05</td><td></td><td></td><td></td><td>zipfian</td></tr>
 *   <tr><td>C</td><td>1.00</td><td></td><td></td><td></td><td></td><td>zipfian</td></tr>
 *   <tr><td>D</td><td>0.95</td><td></td><td>0.05</td><td></td><td></td><td>latest</td></tr>
 *   <tr><td>E</td><td></td><td></td><td>0.05</td><td>0.95</td><td></td>
 *       <td>zipfian; scan length uniform 1..100</td></tr>
 *   <tr><td>F</td><td>0.50</td><td></td><td></td><td></td><td>0.50</td><td>zipfian</td></tr>
 * </table>
 *
 * <p>Semantics kept from {@code CoreWorkload}:
 *
 * <ul>
 *   <li>The operation is chosen as YCSB's {@code DiscreteGenerator}: one uniform {@code u}, walked
 *       through the normalized proportions in the order read, update, insert, scan, RMW.
 *   <li>Load: records {@code 0..recordCount-1} in order from a shared counter ({@code
 *       keysequence}).
 *   <li>Run inserts take record numbers from {@code recordCount} on ({@link InsertCounter}, YCSB's
 *       {@code AcknowledgedCounterGenerator}); call {@link OperationMix#acknowledge} after each.
 *   <li>{@code zipfian} is {@link ScrambledZipfianGenerator#ycsb} over {@code [0, recordCount +
 *       expectedNewKeys]} with {@code expectedNewKeys = (int) (operationCount * insertProportion *
 *       2)}; like {@code nextKeynum}, draws at or above the insert limit are redrawn. {@code
 *       latest} is {@link SkewedLatestGenerator} on the insert counter. {@code uniform}, {@code
 *       hotspot} and {@code sequential} cover the loaded records {@code [0, recordCount)} only.
 *   <li>Scan lengths are uniform in {@code [minScanLength, maxScanLength]} (YCSB defaults 1 and
 *       1000; workload E sets 100).
 *   <li>With {@code insertorder=hashed} (YCSB's default) the key of record {@code n} is {@code
 *       fnvhash64(n)} ({@link Fnv64}), so records, and in D the latest ones, are scattered over the
 *       key space; {@link Operation#keyNumber()} keeps {@code n}. YCSB then prints the key as
 *       {@code "user" + number}; encode {@link Operation#key()} with {@link KeyFormat} instead.
 * </ul>
 *
 * <p>Value sizes: YCSB records have {@code fieldcount} fields of {@code fieldlength} bytes (10 x
 * 100 by default; ZWAL's emulated-SSD runs used 10 x 386). The RocksDB binding stores a record as
 * one value, {@code [int nameLength][name][int valueLength][value]} per field, and an update
 * rewrites the whole record, so every write-type operation carries {@link #rocksDbRecordBytes}
 * bytes (1140 by default, 4000 for ZWAL's 10 x 386).
 *
 * <p>Deviations: YCSB truncates key numbers to {@code int} in {@code nextKeynum}; here they stay
 * {@code long}. YCSB's {@code readallfields}/{@code writeallfields} only change which fields the
 * binding transfers, not the RocksDB operations, and are not modelled.
 */
public final class YcsbWorkload {
  /** The six core workloads. */
  public enum Core {
    A(new Proportions(0.5, 0.5, 0, 0, 0), RequestDistribution.ZIPFIAN, 1000),
    B(new Proportions(0.95, 0.05, 0, 0, 0), RequestDistribution.ZIPFIAN, 1000),
    C(new Proportions(1, 0, 0, 0, 0), RequestDistribution.ZIPFIAN, 1000),
    D(new Proportions(0.95, 0, 0.05, 0, 0), RequestDistribution.LATEST, 1000),
    E(new Proportions(0, 0, 0.05, 0.95, 0), RequestDistribution.ZIPFIAN, 100),
    F(new Proportions(0.5, 0, 0, 0, 0.5), RequestDistribution.ZIPFIAN, 1000);

    private final Proportions proportions;
    private final RequestDistribution distribution;
    private final int maxScanLength;

    Core(Proportions proportions, RequestDistribution distribution, int maxScanLength) {
      this.proportions = proportions;
      this.distribution = distribution;
      this.maxScanLength = maxScanLength;
    }

    public Proportions proportions() {
      return proportions;
    }

    public RequestDistribution distribution() {
      return distribution;
    }

    /** {@code maxscanlength}: 100 for E, YCSB's default 1000 otherwise. */
    public int maxScanLength() {
      return maxScanLength;
    }
  }

  /** YCSB's {@code requestdistribution} values (except {@code exponential}). */
  public enum RequestDistribution {
    UNIFORM,
    ZIPFIAN,
    LATEST,
    HOTSPOT,
    SEQUENTIAL
  }

  /** Operation proportions ({@code readproportion}, ...); normalized by their sum as in YCSB. */
  public record Proportions(double read, double update, double insert, double scan, double rmw) {
    public Proportions {
      if (read < 0 || update < 0 || insert < 0 || scan < 0 || rmw < 0) {
        throw new IllegalArgumentException("proportions must be non-negative");
      }
      if (read + update + insert + scan + rmw <= 0) {
        throw new IllegalArgumentException("proportions sum to zero");
      }
    }
  }

  /**
   * Workload settings.
   *
   * @param recordCount YCSB {@code recordcount}: records loaded before the run
   * @param operationCount YCSB {@code operationcount}; only sizes the Zipfian key space (see above)
   * @param fieldCount YCSB {@code fieldcount} (default 10)
   * @param fieldLength YCSB {@code fieldlength} (default 100)
   * @param minScanLength YCSB {@code minscanlength} (default 1)
   * @param maxScanLength YCSB {@code maxscanlength}
   * @param hashedInsertOrder YCSB {@code insertorder=hashed} (the default) or {@code ordered}
   * @param zipfianConstant theta of the Zipfian and latest distributions (YCSB: 0.99)
   */
  public record Settings(
      long recordCount,
      long operationCount,
      int fieldCount,
      int fieldLength,
      int minScanLength,
      int maxScanLength,
      boolean hashedInsertOrder,
      double zipfianConstant) {
    public Settings {
      if (recordCount < 1 || operationCount < 0 || fieldCount < 1 || fieldLength < 0) {
        throw new IllegalArgumentException("bad record or operation counts");
      }
      if (minScanLength < 0 || maxScanLength < minScanLength) {
        throw new IllegalArgumentException("bad scan lengths");
      }
    }

    /** YCSB defaults for a core workload: 10 x 100-byte fields, hashed insert order, theta 0.99. */
    public static Settings of(Core core, long recordCount, long operationCount) {
      return new Settings(
          recordCount,
          operationCount,
          10,
          100,
          1,
          core.maxScanLength(),
          true,
          ZipfianGenerator.YCSB_ZIPFIAN_CONSTANT);
    }

    /** The same settings with another field layout (ZWAL emulated runs: 10 x 386). */
    public Settings withFields(int count, int length) {
      return new Settings(
          recordCount,
          operationCount,
          count,
          length,
          minScanLength,
          maxScanLength,
          hashedInsertOrder,
          zipfianConstant);
    }
  }

  private final Proportions proportions;
  private final RequestDistribution distribution;
  private final Settings settings;
  private final int recordBytes;

  /** A core workload with YCSB's default settings. */
  public static YcsbWorkload core(Core core, long recordCount, long operationCount) {
    return new YcsbWorkload(core, Settings.of(core, recordCount, operationCount));
  }

  public YcsbWorkload(Core core, Settings settings) {
    this(core.proportions(), core.distribution(), settings);
  }

  public YcsbWorkload(
      Proportions proportions, RequestDistribution distribution, Settings settings) {
    this.proportions = proportions;
    this.distribution = distribution;
    this.settings = settings;
    this.recordBytes = rocksDbRecordBytes(settings.fieldCount(), settings.fieldLength());
  }

  /**
   * Bytes of one record as YCSB's RocksDB binding serializes it ({@code RocksDBClient
   * .serializeValues}): per field a 4-byte name length, the name ({@code "field" + i}), a 4-byte
   * value length and the value.
   */
  public static int rocksDbRecordBytes(int fieldCount, int fieldLength) {
    long total = 0;
    for (int i = 0; i < fieldCount; i++) {
      total += 4 + ("field" + i).length() + 4 + (long) fieldLength;
    }
    return Math.toIntExact(total);
  }

  public Settings settings() {
    return settings;
  }

  /** Bytes written by an insert or update. */
  public int recordBytes() {
    return recordBytes;
  }

  /** The key number for record {@code n}: {@code fnvhash64(n)} if hashed, else {@code n}. */
  public long keyOf(long record) {
    return settings.hashedInsertOrder() ? Fnv64.ycsbHash(record) : record;
  }

  /**
   * The load phase: {@code recordCount} INSERTs of records {@code 0, 1, ...} from one shared
   * counter (so threads sharing the mix split the records, as YCSB's load threads do).
   */
  public OperationMix load() {
    AtomicLong counter = new AtomicLong();
    return (rng, op) -> {
      long record = counter.getAndIncrement();
      op.set(OpType.INSERT, record, keyOf(record), recordBytes, 0);
    };
  }

  /** The run phase. Each call makes a new insert counter starting at {@code recordCount}. */
  public OperationMix run() {
    return new Run();
  }

  private final class Run implements OperationMix {
    private final double[] thresholds = new double[5];
    private final OpType[] types = {
      OpType.READ, OpType.UPDATE, OpType.INSERT, OpType.SCAN, OpType.READ_MODIFY_WRITE
    };
    private final InsertCounter inserts = new InsertCounter(settings.recordCount());
    private final KeyGenerator chooser;

    Run() {
      double[] w = {
        proportions.read(),
        proportions.update(),
        proportions.insert(),
        proportions.scan(),
        proportions.rmw()
      };
      double sum = 0;
      for (double x : w) {
        sum += x;
      }
      for (int i = 0; i < w.length; i++) {
        thresholds[i] = w[i] / sum;
      }
      long records = settings.recordCount();
      switch (distribution) {
        case UNIFORM:
          chooser = new UniformKeyGenerator(records);
          break;
        case SEQUENTIAL:
          chooser = new SequentialKeyGenerator(records);
          break;
        case HOTSPOT:
          chooser = HotspotKeyGenerator.ycsbDefault(records);
          break;
        case LATEST:
          chooser = new SkewedLatestGenerator(inserts, settings.zipfianConstant());
          break;
        case ZIPFIAN:
        default:
          // As YCSB: the raw insertproportion, "2 is fudge factor".
          long expectedNewKeys = (int) (settings.operationCount() * proportions.insert() * 2.0);
          chooser =
              ScrambledZipfianGenerator.ycsb(
                  0, records + expectedNewKeys, settings.zipfianConstant());
          break;
      }
    }

    @Override
    public void next(RandomGenerator rng, Operation op) {
      OpType type = chooseType(rng.nextDouble());
      if (type == OpType.INSERT) {
        long record = inserts.claim();
        op.set(OpType.INSERT, record, keyOf(record), recordBytes, 0);
        return;
      }
      long record = nextRecord(rng);
      switch (type) {
        case READ:
          op.set(OpType.READ, record, keyOf(record), 0, 0);
          break;
        case SCAN:
          int len =
              settings.minScanLength()
                  + rng.nextInt(settings.maxScanLength() - settings.minScanLength() + 1);
          op.set(OpType.SCAN, record, keyOf(record), 0, len);
          break;
        default:
          op.set(type, record, keyOf(record), recordBytes, 0);
          break;
      }
    }

    @Override
    public void acknowledge(Operation op) {
      if (op.type() == OpType.INSERT) {
        inserts.acknowledge(op.keyNumber());
      }
    }

    private OpType chooseType(double u) {
      double val = u;
      for (int i = 0; i < thresholds.length; i++) {
        if (thresholds[i] > 0 && val < thresholds[i]) {
          return types[i];
        }
        val -= thresholds[i];
      }
      // Rounding left u past the last threshold: the last non-zero proportion.
      for (int i = thresholds.length - 1; i >= 0; i--) {
        if (thresholds[i] > 0) {
          return types[i];
        }
      }
      throw new AssertionError("no operation has a positive proportion");
    }

    private long nextRecord(RandomGenerator rng) {
      long record;
      do {
        record = chooser.next(rng);
      } while (record >= inserts.limit());
      return record;
    }
  }
}
