package io.zkv.waltz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.ZonedEnv;
import io.zkv.ZonedEnvOptions;
import io.zkv.device.DeviceGeometry;
import io.zkv.device.EmulatedDevice;
import io.zkv.device.FaultInjector;
import io.zkv.device.ZonedDevice;
import io.zkv.wal.WalOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42: a value that carries the image of a log part must never come back as a record of its
 * own. Every field of a part can be computed by anyone who knows the database's path (magic,
 * database id, CRC), so a scan that moves on block by block after damage finds such an image inside
 * a torn record's value. Here a value holds, block aligned, an image of a part of this database (as
 * the current codec writes it, signed with a key the writer does not know), one in the first
 * format's (version 1, unsigned), and one of another database; its record is torn by a power cut
 * during its append at every block boundary (the emulator keeps exactly that prefix), and recovery
 * must never replay any of them, nor lose a write acknowledged before.
 */
class WaltzForgeryTest {
  private static final int BLOCK = 4096;
  private static final DeviceGeometry GEOMETRY =
      DeviceGeometry.of(16, 4L << 20, 3L << 20, 14, 14, 1 << 20);
  private static final long OWNER = 0x5EC12E7L;
  private static final long OTHER = 0x0DDBA11L;
  private static final byte[] VICTIM = "victim".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  private static ZonedEnvOptions options() {
    return ZonedEnvOptions.builder().wal(WalOptions.builder().reservedZones(0).build()).build();
  }

  @Test
  void aTornRecordNeverReplaysThePartsItsValueCarries() throws Exception {
    byte[] value = forgingValue();
    long blocks =
        WaltzRecordCodec.encodedSize(
                WaltzRecordCodec.payloadSize(List.of(WaltzOp.put(VICTIM, value))),
                BLOCK,
                GEOMETRY.zasl())
            / BLOCK;
    List<String> seen = new ArrayList<>();
    for (int keep = 0; keep <= blocks; keep++) {
      seen.add(tearAndRecover(keep, value, blocks));
    }
    System.out.println("WaltzForgeryTest: " + String.join("; ", seen));
  }

  /** Writes two records, tears the third after {@code keep} blocks, recovers; what was found. */
  private String tearAndRecover(int keep, byte[] value, long blocks) throws Exception {
    Path file = dir.resolve("tear-" + keep + ".zkvemu");
    EmulatedDevice.format(file, GEOMETRY);
    String uri = EmulatedDevice.uri(file, "instant", "");
    try (ZonedDevice dev = ZonedDevice.open(uri)) {
      ZonedEnv env = ZonedEnv.open(dev, ZonedEnv.Mode.FORMAT, options());
      EnvZoneLeases leases = new EnvZoneLeases(env.zoneFs(), OWNER);
      WaltzLog log = new WaltzLog(leases, BLOCK, 1, () -> 0, Long.MAX_VALUE, () -> {});
      WaltzWriter w = new WaltzWriter(log, OWNER, BLOCK, GEOMETRY.zasl(), 0);
      w.write(List.of(WaltzOp.put(b("a"), b("1"))), ops -> 1);
      w.write(List.of(WaltzOp.put(b("b"), b("2"))), ops -> 2);
      dev.faults().cutPowerDuring(EnumSet.of(FaultInjector.Op.APPEND), -1, 0, keep);
      assertThrows(
          WaltzLogException.class, () -> w.write(List.of(WaltzOp.put(VICTIM, value)), ops -> 3));
      log.close();
      try {
        env.close();
      } catch (RuntimeException powerIsGone) {
        // its unmount cannot write any more
      }
    }
    try (ZonedDevice dev = ZonedDevice.open(uri);
        ZonedEnv env = ZonedEnv.open(dev, ZonedEnv.Mode.MOUNT, options())) {
      WaltzRecovery.Result r = WaltzRecovery.scan(new EnvZoneLeases(env.zoneFs(), OWNER), OWNER);
      List<Long> seqs = new ArrayList<>();
      for (WaltzRecovery.Record rec : r.records()) {
        seqs.add(rec.seq());
        for (WaltzOp op : rec.ops()) {
          String k = new String(op.a(), StandardCharsets.UTF_8);
          assertTrue(
              !k.startsWith("forged"),
              "keep " + keep + " of " + blocks + " blocks: replayed " + k + ", records " + seqs);
        }
      }
      assertTrue(r.maxSeq() < 1000, "keep " + keep + ": a forged sequence counted: " + r.maxSeq());
      // the acknowledged writes are there; the torn one only if all its blocks landed
      assertEquals(keep == blocks ? List.of(1L, 2L, 3L) : List.of(1L, 2L), seqs, "keep " + keep);
      return "keep " + keep + ": records " + seqs + ", " + r.problems().size() + " problems";
    }
  }

  /**
   * A value whose bytes, once in its record, put three part images at block boundaries of the zone:
   * this database's as the codec writes it (its key is the log's secret: the image carries none, or
   * a made-up one), this database's in the first format (version 1, no key), another database's.
   */
  private static byte[] forgingValue() {
    // the value's first byte in the part: header, op count, kind, key length, key, value length
    int prefix = WaltzRecordCodec.HEADER + 4 + 1 + 4 + VICTIM.length + 4;
    int pad = (BLOCK - prefix % BLOCK) % BLOCK;
    ByteBuffer v = ByteBuffer.allocate(pad + 3 * BLOCK + 100);
    v.position(pad);
    v.put(image(OWNER, 1000, "forged-same"));
    v.put(legacyImage(OWNER, 1001, "forged-legacy"));
    v.put(image(OTHER, 1002, "forged-other"));
    return v.array();
  }

  /** One block: a part of {@code db} as the current codec encodes it. */
  private static byte[] image(long db, long seq, String key) {
    ByteBuffer out = ByteBuffer.allocate(BLOCK);
    int[] sizes =
        WaltzRecordCodec.encode(
            db, seq, List.of(WaltzOp.put(b(key), b("x"))), BLOCK, GEOMETRY.zasl(), out);
    assertEquals(1, sizes.length);
    return out.array();
  }

  /** One block: a version 1 part (docs/formats/zkv-wal.md), made by hand. */
  private static byte[] legacyImage(long db, long seq, String key) {
    ByteBuffer payload = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    byte[] k = b(key);
    payload.putInt(1).put((byte) 1).putInt(k.length).put(k).putInt(1).put((byte) 'x');
    int len = payload.position();
    ByteBuffer o = ByteBuffer.allocate(BLOCK).order(ByteOrder.LITTLE_ENDIAN);
    o.putInt(0x544C575A).putShort((short) 1).putShort((short) 40).putLong(db).putLong(seq);
    o.putShort((short) 0).putShort((short) 1).putInt(len).putInt(len);
    o.put(40, payload.array(), 0, len);
    CRC32C crc = new CRC32C();
    crc.update(o.array(), 0, 36);
    crc.update(o.array(), 40, len);
    o.putInt(36, (int) crc.getValue());
    return o.array();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
