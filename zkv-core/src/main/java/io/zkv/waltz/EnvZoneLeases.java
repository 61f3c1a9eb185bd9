package io.zkv.waltz;

import io.zkv.device.DeviceGeometry;
import io.zkv.fs.ZoneFs;
import java.nio.ByteBuffer;

/** {@link ZoneLeases} of a mounted zone file system ({@link ZoneFs}), for one owner. */
public final class EnvZoneLeases implements ZoneLeases {
  private final ZoneFs fs;
  private final long owner;
  private final DeviceGeometry geometry;

  public EnvZoneLeases(ZoneFs fs, long owner) {
    if (owner == 0) {
      throw new IllegalArgumentException("owner 0 means no owner");
    }
    this.fs = fs;
    this.owner = owner;
    this.geometry = fs.geometry();
  }

  /**
   * Of the file system under a RocksDB Env.
   *
   * @deprecated use {@link #EnvZoneLeases(ZoneFs, long)} with {@code env.zoneFs()}
   */
  @Deprecated
  public EnvZoneLeases(org.rocksdb.ZkvEnv env, long owner, DeviceGeometry geometry) {
    this(env.zoneFs(), owner);
  }

  @Override
  public int lease() {
    return fs.leaseZone(owner);
  }

  @Override
  public int giveBack(int zone) {
    return fs.returnLease(owner, zone);
  }

  @Override
  public int giveBackAll() {
    return fs.returnAllLeases(owner);
  }

  @Override
  public int giveBackSet(int[] zones) {
    return fs.returnLeaseSet(owner, zones);
  }

  @Override
  public int giveBackKeepingEmpty(int keep) {
    return fs.returnLeasesKeepEmpty(owner, keep);
  }

  @Override
  public int[] leased() {
    return fs.leasedZones(owner);
  }

  @Override
  public long[] key(int zone) {
    return fs.leaseKey(owner, zone);
  }

  @Override
  public int renew(int zone) {
    return fs.renewLease(owner, zone);
  }

  @Override
  public long append(int zone, ByteBuffer buf, int len) {
    return fs.leaseAppend(owner, zone, buf, len, true); // FUA: durable with a volatile cache too
  }

  @Override
  public boolean isZoneFull(long result) {
    return ZoneFs.isZoneFull(result);
  }

  @Override
  public int read(int zone, long offset, ByteBuffer buf, int len) {
    return fs.leaseRead(owner, zone, offset, buf, len);
  }

  @Override
  public long written(int zone) {
    return fs.leaseWritten(owner, zone);
  }

  @Override
  public int finish(int zone) {
    return fs.finishLease(owner, zone);
  }

  @Override
  public int blockSize() {
    return geometry.lbaSize();
  }

  @Override
  public int maxAppend() {
    return geometry.zasl();
  }

  @Override
  public long zoneCapacity() {
    return geometry.zoneCapacity();
  }
}
