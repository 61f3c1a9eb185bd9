package io.zkv.fs;

import io.zkv.nativelib.BoundaryBuffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Reads the zone view the zone file system hands its Java call-outs (layout {@link #LAYOUT}, native
 * {@code jni/boundary.h}, documented in {@code docs/formats/native-boundary.md}): the zones, the
 * files with live data and their LSM hints (level, job, key range), which file has how many live
 * bytes in which zone, and for an allocation the request and the decision Java writes back. A
 * flyweight over native memory valid only during the call-out: nothing may keep it.
 */
public final class ZoneView {
  public static final int LAYOUT = 1;
  public static final int VERSION = 5;

  // sections
  static final int ZONES = 0, FILES = 1, ZONE_FILES = 2, INPUTS = 3, REQUEST = 4, DECISION = 5;
  static final int BYTES = 6, RESERVES = 7;

  /** zkv_bnd_zone: field offsets and size. */
  static final int Z_START = 0, Z_CAPACITY = 8, Z_WRITE_POINTER = 16, Z_LIVE = 24, Z_COPY = 32;

  static final int Z_LIFETIME = 40, Z_FLAGS = 44, Z_TAG = 48, Z_CLASS = 52, Z_OWNER = 56;
  static final int ZONE_SIZE = 64;
  static final int FLAG_META = 1,
      FLAG_BUSY = 2,
      FLAG_VICTIM_OK = 4,
      FLAG_WAL_RESERVED = 8,
      FLAG_LEASED = 16;

  /** zkv_bnd_file. Bytes fields are (offset, length) pairs of ints. */
  static final int F_ID = 0, F_LIFETIME = 8, F_LEVEL = 12, F_JOB = 16, F_NAME = 24;

  static final int F_SMALLEST = 32, F_LARGEST = 40, FILE_SIZE = 48;

  /** zkv_bnd_zone_file. */
  static final int ZF_FILE = 0, ZF_LIVE = 8, ZF_ZONE = 16, ZONE_FILE_SIZE = 24;

  /** zkv_bnd_request. */
  static final int R_FILE = 0, R_LIFETIME = 8, R_PURPOSE = 12, R_LEVEL = 16, R_ACTIVE_LIMIT = 20;

  static final int R_JOB = 24, R_NAME = 32, R_SMALLEST = 40, R_LARGEST = 48;

  /** The request's purpose (R_PURPOSE; view version 4). */
  static final int PURPOSE_FILE_WRITE = 0, PURPOSE_GC_MIGRATION = 1, PURPOSE_WAL_RESERVE = 2;

  static final int R_EXPECTED_SIZE = 56, REQUEST_SIZE = 64;

  /** zkv_bnd_decision. */
  static final int D_ACTION = 0, D_ZONE = 4, D_FINISH_COUNT = 8, D_TAG = 12, D_LIFETIME = 16;

  static final int D_FINISH = 24, MAX_FINISH = 16, DECISION_SIZE = D_FINISH + 4 * MAX_FINISH;

  /** zkv_bnd_reserves. */
  static final int RS_EMPTY_KEPT = 0, RS_OP_ZONES = 4, RESERVES_SIZE = 8;

  /** zkv_bnd_bytes. */
  static final int BYTES_OFFSET = 0, BYTES_LENGTH = 4, BYTES_SIZE = 8;

  private final BoundaryBuffer b;

  private ZoneView(BoundaryBuffer b) {
    this.b = b;
  }

  /**
   * @throws IllegalStateException if the buffer is not a zone view of this version
   */
  public static ZoneView wrap(ByteBuffer buffer) {
    return new ZoneView(
        BoundaryBuffer.wrap(
            buffer,
            LAYOUT,
            VERSION,
            ZONE_SIZE,
            FILE_SIZE,
            ZONE_FILE_SIZE,
            Long.BYTES,
            REQUEST_SIZE,
            DECISION_SIZE,
            1,
            RESERVES_SIZE));
  }

  /** This view as placement policies see it ({@link io.zkv.placement.ZoneTable}). */
  public io.zkv.placement.ZoneTable table(io.zkv.device.DeviceGeometry geometry) {
    return ZoneTableProjection.forAllocation(this, geometry);
  }

  public int zoneCount() {
    return b.count(ZONES);
  }

  public long zoneStart(int z) {
    return b.getLong(ZONES, z, Z_START);
  }

  public long zoneCapacity(int z) {
    return b.getLong(ZONES, z, Z_CAPACITY);
  }

  public long zoneWritePointer(int z) {
    return b.getLong(ZONES, z, Z_WRITE_POINTER);
  }

  /** Bytes of live file data in the zone. */
  public long zoneLive(int z) {
    return b.getLong(ZONES, z, Z_LIVE);
  }

  /**
   * Bytes GC would copy to empty the zone: the blocks its live data occupies (sync padding too).
   */
  public long zoneCopy(int z) {
    return b.getLong(ZONES, z, Z_COPY);
  }

  public int zoneLifetime(int z) {
    return b.getInt(ZONES, z, Z_LIFETIME);
  }

  /** One of the file system's metadata zones. */
  public boolean zoneMeta(int z) {
    return (b.getInt(ZONES, z, Z_FLAGS) & FLAG_META) != 0;
  }

  /** Held: a writer owns it, or a write or GC is under way in it. */
  public boolean zoneBusy(int z) {
    return (b.getInt(ZONES, z, Z_FLAGS) & FLAG_BUSY) != 0;
  }

  /** Kept empty for a WAL's next zone by the WAL reserve (busy too). */
  public boolean zoneWalReserved(int z) {
    return (b.getInt(ZONES, z, Z_FLAGS) & FLAG_WAL_RESERVED) != 0;
  }

  /** Leased to an owner's own appends (WALTZ's log; busy too): no file's data, never a victim. */
  public boolean zoneLeased(int z) {
    return (b.getInt(ZONES, z, Z_FLAGS) & FLAG_LEASED) != 0;
  }

  /** Garbage collection may take it as its victim now. */
  public boolean zoneVictimOk(int z) {
    return (b.getInt(ZONES, z, Z_FLAGS) & FLAG_VICTIM_OK) != 0;
  }

  /** The tag the placement policy gave the zone when it opened it, -1 for none. */
  public int zoneTag(int z) {
    return b.getInt(ZONES, z, Z_TAG);
  }

  /**
   * The I/O class the zone's writes carry: 0 none (empty, or not known after a mount on a device
   * that does not bind zones to classes), 1 data (flushes, compactions, GC), 2 WAL, 3 the file
   * system's metadata (zkv/device.h {@code ZKV_CLASS_*}).
   */
  public int zoneIoClass(int z) {
    return b.getInt(ZONES, z, Z_CLASS);
  }

  /** The id of the file whose writer holds the zone, -1 for none. */
  public long zoneOwner(int z) {
    return b.getLong(ZONES, z, Z_OWNER);
  }

  public int fileCount() {
    return b.count(FILES);
  }

  public long fileId(int f) {
    return b.getLong(FILES, f, F_ID);
  }

  public int fileLifetime(int f) {
    return b.getInt(FILES, f, F_LIFETIME);
  }

  /** LSM level, -1 when unknown. */
  public int fileLevel(int f) {
    return b.getInt(FILES, f, F_LEVEL);
  }

  /**
   * The flush or compaction job writing the file; -1 once RocksDB lists it as live (its key range
   * is then its own, not its compaction's inputs' union), or when unknown.
   */
  public long fileJob(int f) {
    return b.getLong(FILES, f, F_JOB);
  }

  /** The file's name; "" for a file deleted while a handle is open. */
  public String fileName(int f) {
    return new String(bytesAt(FILES, f, F_NAME), StandardCharsets.UTF_8);
  }

  /** Smallest user key, null when unknown. */
  public byte[] fileSmallest(int f) {
    return bytesAt(FILES, f, F_SMALLEST);
  }

  /** Largest user key, null when unknown. */
  public byte[] fileLargest(int f) {
    return bytesAt(FILES, f, F_LARGEST);
  }

  public int zoneFileCount() {
    return b.count(ZONE_FILES);
  }

  public long zoneFileId(int k) {
    return b.getLong(ZONE_FILES, k, ZF_FILE);
  }

  public long zoneFileLive(int k) {
    return b.getLong(ZONE_FILES, k, ZF_LIVE);
  }

  public int zoneFileZone(int k) {
    return b.getInt(ZONE_FILES, k, ZF_ZONE);
  }

  /**
   * The empty zones the file system keeps from the writer this view was taken for (an SST writer
   * for a victim choice or a GC trigger): it starts an empty zone only while more are left.
   */
  public int emptyZonesKept() {
    return b.getInt(RESERVES, 0, RS_EMPTY_KEPT);
  }

  /** The over-provisioning reserve: empty zones kept for GC's copies (part of the kept ones). */
  public int opZones() {
    return b.getInt(RESERVES, 0, RS_OP_ZONES);
  }

  /** Whether this view comes with an allocation request (not for a victim choice). */
  public boolean hasRequest() {
    return b.count(REQUEST) == 1;
  }

  /** Bytes the writer is about to write into the zone (more may follow while it has room). */
  public long requestExpectedSize() {
    return b.getLong(REQUEST, 0, R_EXPECTED_SIZE);
  }

  public long requestFileId() {
    return b.getLong(REQUEST, 0, R_FILE);
  }

  public int requestLifetime() {
    return b.getInt(REQUEST, 0, R_LIFETIME);
  }

  /** Why the zone is asked for: a file's write, a GC migration, the WAL reserve (PURPOSE_*). */
  public int requestPurpose() {
    return b.getInt(REQUEST, 0, R_PURPOSE);
  }

  /** A GC migration rather than a file's own write. */
  public boolean requestForGc() {
    return requestPurpose() == PURPOSE_GC_MIGRATION;
  }

  /** The WAL reserve's request for an empty zone to keep for WAL files. */
  public boolean requestForWalReserve() {
    return requestPurpose() == PURPOSE_WAL_RESERVE;
  }

  public int requestLevel() {
    return b.getInt(REQUEST, 0, R_LEVEL);
  }

  public int requestActiveLimit() {
    return b.getInt(REQUEST, 0, R_ACTIVE_LIMIT);
  }

  public long requestJob() {
    return b.getLong(REQUEST, 0, R_JOB);
  }

  public String requestFileName() {
    return new String(bytesAt(REQUEST, 0, R_NAME), StandardCharsets.UTF_8);
  }

  public byte[] requestSmallest() {
    return bytesAt(REQUEST, 0, R_SMALLEST);
  }

  public byte[] requestLargest() {
    return bytesAt(REQUEST, 0, R_LARGEST);
  }

  /** File ids of the request's compaction inputs (those with live data on this device). */
  public long[] requestInputs() {
    long[] ids = new long[b.count(INPUTS)];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = b.getLong(INPUTS, i, 0);
    }
    return ids;
  }

  /**
   * Writes the decision back (allocation views only).
   *
   * @param tag the tag for an empty zone the decision opens, -1 for none
   * @param lifetime the write lifetime for an empty zone the decision opens, -1 for the request's
   * @throws IllegalArgumentException for more than {@value #MAX_FINISH} zones to finish
   */
  public void decide(int action, int zone, List<Integer> finishFirst, int tag, int lifetime) {
    if (finishFirst.size() > MAX_FINISH) {
      throw new IllegalArgumentException(
          "policy asked to finish " + finishFirst.size() + " zones at once; at most " + MAX_FINISH);
    }
    b.putInt(DECISION, 0, D_ACTION, action);
    b.putInt(DECISION, 0, D_ZONE, zone);
    b.putInt(DECISION, 0, D_FINISH_COUNT, finishFirst.size());
    b.putInt(DECISION, 0, D_TAG, tag);
    b.putInt(DECISION, 0, D_LIFETIME, lifetime);
    for (int i = 0; i < finishFirst.size(); i++) {
      b.putInt(DECISION, 0, D_FINISH + 4 * i, finishFirst.get(i));
    }
  }

  /** The decision as written (for tests): action, zone, finish count, tag, lifetime. */
  int[] decision() {
    return new int[] {
      b.getInt(DECISION, 0, D_ACTION),
      b.getInt(DECISION, 0, D_ZONE),
      b.getInt(DECISION, 0, D_FINISH_COUNT),
      b.getInt(DECISION, 0, D_TAG),
      b.getInt(DECISION, 0, D_LIFETIME)
    };
  }

  private byte[] bytesAt(int section, int index, int field) {
    return b.bytes(
        BYTES,
        b.getInt(section, index, field + BYTES_OFFSET),
        b.getInt(section, index, field + BYTES_LENGTH));
  }
}
