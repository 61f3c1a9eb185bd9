package io.zkv.fs;

import static io.zkv.fs.ZoneView.*;

import io.zkv.nativelib.BoundaryBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes zone-view buffers in Java with the layout {@link ZoneView} reads (as jni/boundary.h
 * defines it; {@code NativeBoundaryLayoutTest} checks the two agree), so the Java side's readers
 * and projections can be tested on exact inputs.
 */
final class ZoneViewWriter {
  record Zone(
      long start,
      long capacity,
      long written,
      long live,
      long copy,
      int lifetime,
      boolean meta,
      boolean busy,
      boolean victimOk,
      int tag) {}

  record File(long id, String name, int lifetime, int level, long job, byte[] lo, byte[] hi) {}

  record Placement(int zone, long fileId, long live) {}

  record Request(
      long fileId,
      String name,
      int lifetime,
      int purpose,
      int level,
      long job,
      byte[] lo,
      byte[] hi,
      long[] inputs) {}

  final List<Zone> zones = new ArrayList<>();
  final List<File> files = new ArrayList<>();
  final List<Placement> placements = new ArrayList<>();
  Request request;
  int emptyZonesKept;
  int opZones;

  ByteBuffer build() {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    int[] sizes = {
      ZONE_SIZE, FILE_SIZE, ZONE_FILE_SIZE, 8, REQUEST_SIZE, DECISION_SIZE, 1, RESERVES_SIZE
    };
    int sections = sizes.length;
    int[] counts = new int[sections];
    counts[RESERVES] = 1;
    counts[ZONES] = zones.size();
    counts[FILES] = files.size();
    counts[ZONE_FILES] = placements.size();
    counts[INPUTS] = request == null ? 0 : request.inputs().length;
    counts[REQUEST] = request == null ? 0 : 1;
    counts[DECISION] = counts[REQUEST];
    // bytes first, so their section's size is known
    List<int[]> fileBytes = new ArrayList<>();
    for (File f : files) {
      fileBytes.add(
          new int[] {add(bytes, name(f.name())), addKey(bytes, f.lo()), addKey(bytes, f.hi())});
    }
    int[] requestBytes =
        request == null
            ? null
            : new int[] {
              add(bytes, name(request.name())),
              addKey(bytes, request.lo()),
              addKey(bytes, request.hi())
            };
    byte[] blob = bytes.toByteArray();
    counts[BYTES] = blob.length;
    int[] offsets = new int[sections];
    int at = align(BoundaryBuffer.HEADER_SIZE + sections * BoundaryBuffer.SECTION_SIZE);
    for (int s = 0; s < sections; s++) {
      offsets[s] = at;
      at = align(at + sizes[s] * counts[s]);
    }
    ByteBuffer b = ByteBuffer.allocateDirect(at).order(ByteOrder.nativeOrder());
    b.putInt(0, BoundaryBuffer.MAGIC).putShort(4, (short) LAYOUT).putShort(6, (short) VERSION);
    b.putInt(8, at).putInt(12, sections);
    for (int s = 0; s < sections; s++) {
      int e = BoundaryBuffer.HEADER_SIZE + s * BoundaryBuffer.SECTION_SIZE;
      b.putInt(e, offsets[s]).putInt(e + 4, sizes[s]).putInt(e + 8, counts[s]);
    }
    for (int i = 0; i < zones.size(); i++) {
      Zone z = zones.get(i);
      int o = offsets[ZONES] + i * ZONE_SIZE;
      b.putLong(o + Z_START, z.start()).putLong(o + Z_CAPACITY, z.capacity());
      b.putLong(o + Z_WRITE_POINTER, z.start() + z.written()).putLong(o + Z_LIVE, z.live());
      b.putLong(o + Z_COPY, z.copy()).putInt(o + Z_LIFETIME, z.lifetime());
      int flags =
          (z.meta() ? FLAG_META : 0)
              | (z.busy() ? FLAG_BUSY : 0)
              | (z.victimOk() ? FLAG_VICTIM_OK : 0);
      b.putInt(o + Z_FLAGS, flags).putInt(o + Z_TAG, z.tag());
      b.putInt(o + Z_CLASS, 0).putLong(o + Z_OWNER, -1); // no class, no owner
    }
    for (int i = 0; i < files.size(); i++) {
      File f = files.get(i);
      int o = offsets[FILES] + i * FILE_SIZE;
      b.putLong(o + F_ID, f.id())
          .putInt(o + F_LIFETIME, f.lifetime())
          .putInt(o + F_LEVEL, f.level());
      b.putLong(o + F_JOB, f.job());
      putBytes(b, o + F_NAME, fileBytes.get(i)[0], name(f.name()).length);
      putBytes(b, o + F_SMALLEST, fileBytes.get(i)[1], f.lo() == null ? -1 : f.lo().length);
      putBytes(b, o + F_LARGEST, fileBytes.get(i)[2], f.hi() == null ? -1 : f.hi().length);
    }
    for (int i = 0; i < placements.size(); i++) {
      Placement p = placements.get(i);
      int o = offsets[ZONE_FILES] + i * ZONE_FILE_SIZE;
      b.putLong(o + ZF_FILE, p.fileId())
          .putLong(o + ZF_LIVE, p.live())
          .putInt(o + ZF_ZONE, p.zone());
    }
    if (request != null) {
      Request r = request;
      for (int i = 0; i < r.inputs().length; i++) {
        b.putLong(offsets[INPUTS] + 8 * i, r.inputs()[i]);
      }
      int o = offsets[REQUEST];
      b.putLong(o + R_FILE, r.fileId()).putInt(o + R_LIFETIME, r.lifetime());
      b.putInt(o + R_PURPOSE, r.purpose()).putInt(o + R_LEVEL, r.level());
      b.putLong(o + R_JOB, r.job());
      putBytes(b, o + R_NAME, requestBytes[0], name(r.name()).length);
      putBytes(b, o + R_SMALLEST, requestBytes[1], r.lo() == null ? -1 : r.lo().length);
      putBytes(b, o + R_LARGEST, requestBytes[2], r.hi() == null ? -1 : r.hi().length);
      b.putInt(offsets[DECISION] + D_TAG, -1).putInt(offsets[DECISION] + D_LIFETIME, -1);
    }
    for (int i = 0; i < blob.length; i++) {
      b.put(offsets[BYTES] + i, blob[i]);
    }
    b.putInt(offsets[RESERVES] + RS_EMPTY_KEPT, emptyZonesKept);
    b.putInt(offsets[RESERVES] + RS_OP_ZONES, opZones);
    return b;
  }

  private static byte[] name(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static int add(java.io.ByteArrayOutputStream out, byte[] data) {
    int at = out.size();
    out.writeBytes(data);
    return at;
  }

  private static int addKey(java.io.ByteArrayOutputStream out, byte[] key) {
    return key == null ? 0 : add(out, key);
  }

  private static void putBytes(ByteBuffer b, int field, int offset, int length) {
    b.putInt(field + BYTES_OFFSET, offset).putInt(field + BYTES_LENGTH, length);
  }

  private static int align(int v) {
    return (v + 7) / 8 * 8;
  }
}
