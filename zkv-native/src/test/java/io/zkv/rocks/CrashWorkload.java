package io.zkv.rocks;

import io.zkv.device.ZonedDevice;
import io.zkv.fs.ZoneFsSettings;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;
import org.rocksdb.ZkvEnv;

/**
 * The child process of the crash test: synced puts to RocksDB on zones, each acknowledged on stdout
 * ("ack key version") only after RocksDB returned. Runs until killed.
 *
 * <p>Arguments: device URI, database path, seed, key count, whether to format first, and optionally
 * {@code zwal} (the WAL written by zone appends: {@link CrashTestSupport#ZWAL}).
 */
public final class CrashWorkload {
  private CrashWorkload() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    String path = args[1];
    SplittableRandom rnd = new SplittableRandom(Long.parseLong(args[2]));
    int keys = Integer.parseInt(args[3]);
    boolean format = Boolean.parseBoolean(args[4]);
    boolean zwal = args.length > 5 && args[5].equals("zwal");
    ZoneFsSettings settings =
        ZoneFsSettings.builder()
            .format(format)
            .wal(zwal ? CrashTestSupport.ZWAL : io.zkv.wal.WalOptions.defaults())
            .build();
    try (ZonedDevice dev = ZonedDevice.open(uri);
        ZkvEnv env = ZkvEnv.onZones(dev, settings);
        Options o =
            new Options()
                .setCreateIfMissing(true)
                .setEnv(env)
                .setWriteBufferSize(256 << 10)
                .setLevel0FileNumCompactionTrigger(2);
        RocksDB db = RocksDB.open(o, path);
        WriteOptions sync = new WriteOptions().setSync(true)) {
      System.out.println("ready");
      System.out.flush();
      byte[] value = new byte[300];
      long version = System.nanoTime(); // increases across runs of the child
      while (true) {
        int k = rnd.nextInt(keys);
        version++;
        ByteBuffer.wrap(value).putLong(version).putInt(k);
        db.put(sync, CrashTestSupport.key(k), value);
        System.out.println("ack " + k + " " + version);
      }
    }
  }
}
