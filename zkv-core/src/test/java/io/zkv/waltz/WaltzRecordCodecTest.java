package io.zkv.waltz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** WALTZ's record format (docs/formats/zkv-wal.md): round trips, parts, and damaged input. */
class WaltzRecordCodecTest {
  private static final int BLOCK = 4096;
  private static final int MAX_APPEND = 16 << 10;
  private static final long[] KEY = {0x0706050403020100L, 0x0F0E0D0C0B0A0908L};

  private static List<WaltzOp> ops(SplittableRandom r, int n, int valueSize) {
    List<WaltzOp> ops = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] k = new byte[1 + r.nextInt(20)];
      r.nextBytes(k);
      byte[] v = new byte[r.nextInt(valueSize + 1)];
      r.nextBytes(v);
      ops.add(
          switch (i % 3) {
            case 0 -> WaltzOp.put(k, v);
            case 1 -> WaltzOp.delete(k);
            default -> WaltzOp.deleteRange(k, v);
          });
    }
    return ops;
  }

  private static ByteBuffer encode(long db, long seq, List<WaltzOp> ops, int[][] sizes) {
    long size = WaltzRecordCodec.encodedSize(WaltzRecordCodec.payloadSize(ops), BLOCK, MAX_APPEND);
    ByteBuffer b = ByteBuffer.allocate((int) size);
    sizes[0] = WaltzRecordCodec.encode(db, seq, ops, BLOCK, MAX_APPEND, b);
    assertEquals(size, java.util.Arrays.stream(sizes[0]).sum());
    int at = 0;
    for (int s : sizes[0]) { // each part signed for its zone, as the log does before its append
      WaltzRecordCodec.sign(b.slice(at, s), KEY);
      at += s;
    }
    return b;
  }

  private static void assertSameOps(List<WaltzOp> want, List<WaltzOp> got) {
    assertEquals(want.size(), got.size());
    for (int i = 0; i < want.size(); i++) {
      assertEquals(want.get(i).kind(), got.get(i).kind());
      assertArrayEquals(want.get(i).a(), got.get(i).a());
      assertArrayEquals(want.get(i).b(), got.get(i).b());
    }
  }

  @Test
  void recordsOfOneAndManyPartsComeBackWhole() throws Exception {
    SplittableRandom r = new SplittableRandom(3);
    for (int n : new int[] {1, 3, 40, 400}) {
      List<WaltzOp> want = ops(r, n, 300);
      int[][] sizes = new int[1][];
      ByteBuffer b = encode(77, 1000 + n, want, sizes);
      assertTrue(sizes[0].length >= 1);
      java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream();
      int at = 0;
      for (int k = 0; k < sizes[0].length; k++) {
        assertEquals(0, sizes[0][k] % BLOCK);
        assertTrue(sizes[0][k] <= MAX_APPEND);
        WaltzRecordCodec.Part p = WaltzRecordCodec.decodePart(b, at, b.capacity() - at, BLOCK, KEY);
        assertEquals(77, p.dbId());
        assertEquals(1000 + n, p.seq());
        assertEquals(k, p.part());
        assertEquals(sizes[0].length, p.parts());
        assertEquals(sizes[0][k], p.paddedSize());
        joined.writeBytes(p.payload());
        at += sizes[0][k];
      }
      assertSameOps(want, WaltzRecordCodec.decodePayload(joined.toByteArray()));
    }
  }

  /**
   * A flushed-through mark is a version-4 record of one operation; version 4 holds nothing else and
   * version 3 never a mark.
   */
  @Test
  void aMarkIsAVersionTwoRecordOfItsOwn() throws Exception {
    List<WaltzOp> mark = List.of(WaltzOp.flushedThrough(123_456_789_012L));
    int[][] sizes = new int[1][];
    ByteBuffer b = encode(77, 9, mark, sizes);
    WaltzRecordCodec.Part p = WaltzRecordCodec.decodePart(b, 0, b.capacity(), BLOCK, KEY);
    assertEquals(WaltzRecordCodec.MARK_VERSION, p.version());
    List<WaltzOp> got = WaltzRecordCodec.decodePayload(p.payload(), p.version());
    assertEquals(123_456_789_012L, got.get(0).markedSequence());
    WaltzRecordCodec.FormatException e =
        assertThrows(
            WaltzRecordCodec.FormatException.class,
            () -> WaltzRecordCodec.decodePayload(p.payload(), WaltzRecordCodec.VERSION));
    assertTrue(e.getMessage().contains("mark in a version 3 record"), e.getMessage());
    // a put's payload under version 2
    ByteBuffer put = encode(77, 10, List.of(WaltzOp.put(new byte[] {1}, new byte[] {2})), sizes);
    byte[] putPayload = WaltzRecordCodec.decodePart(put, 0, put.capacity(), BLOCK, KEY).payload();
    e =
        assertThrows(
            WaltzRecordCodec.FormatException.class,
            () -> WaltzRecordCodec.decodePayload(putPayload, WaltzRecordCodec.MARK_VERSION));
    assertTrue(e.getMessage().contains("without a mark"), e.getMessage());
    // a mark with company is refused when written
    assertThrows(
        IllegalArgumentException.class,
        () ->
            encode(
                77, 11, List.of(WaltzOp.flushedThrough(1), WaltzOp.delete(new byte[] {1})), sizes));
    // and read: a payload of a mark and a delete
    ByteBuffer two = ByteBuffer.allocate(64).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    two.putInt(2)
        .put((byte) 4)
        .putInt(8)
        .putLong(1)
        .putInt(0)
        .put((byte) 2)
        .putInt(1)
        .put((byte) 1);
    byte[] twoPayload = java.util.Arrays.copyOf(two.array(), two.position());
    e =
        assertThrows(
            WaltzRecordCodec.FormatException.class,
            () -> WaltzRecordCodec.decodePayload(twoPayload, WaltzRecordCodec.MARK_VERSION));
    assertTrue(e.getMessage().contains("among other operations"), e.getMessage());
    // a mark of a wrong length
    ByteBuffer shortMark = ByteBuffer.allocate(64).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    shortMark.putInt(1).put((byte) 4).putInt(4).putInt(7).putInt(0);
    byte[] shortPayload = java.util.Arrays.copyOf(shortMark.array(), shortMark.position());
    assertThrows(
        WaltzRecordCodec.FormatException.class,
        () -> WaltzRecordCodec.decodePayload(shortPayload, WaltzRecordCodec.MARK_VERSION));
  }

  /** Every byte of a part's header and payload is covered: a flip anywhere fails cleanly. */
  @Test
  void everyDamagedByteIsRefusedCleanly() throws Exception {
    List<WaltzOp> want = ops(new SplittableRandom(5), 5, 100);
    int[][] sizes = new int[1][];
    ByteBuffer b = encode(9, 42, want, sizes);
    int used = WaltzRecordCodec.HEADER + (int) WaltzRecordCodec.payloadSize(want);
    for (int i = 0; i < used; i++) {
      ByteBuffer d = ByteBuffer.allocate(b.capacity()).put(0, b, 0, b.capacity());
      d.put(i, (byte) (d.get(i) ^ 0x01));
      assertThrows(
          WaltzRecordCodec.FormatException.class,
          () -> WaltzRecordCodec.decodePart(d, 0, d.capacity(), BLOCK, KEY),
          "byte " + i);
    }
  }

  /**
   * SipHash-2-4 as its paper gives it (key 00..0f; messages 00..0e and empty, and the first vectors
   * of the reference implementation's table).
   */
  @Test
  void sipHashMatchesTheReferenceVectors() {
    byte[] m = new byte[64];
    for (int i = 0; i < m.length; i++) {
      m[i] = (byte) i;
    }
    assertEquals(0xa129ca6149be45e5L, SipHash.hash(KEY[0], KEY[1], m, 0, 15));
    assertEquals(0x726fdb47dd0e0e31L, SipHash.hash(KEY[0], KEY[1], m, 0, 0));
    assertEquals(0x74f839c593dc67fdL, SipHash.hash(KEY[0], KEY[1], m, 0, 1));
    assertEquals(0x93f5f5799a932462L, SipHash.hash(KEY[0], KEY[1], m, 0, 8));
  }

  /**
   * A part counts only under the key of its zone's lease: another key, no signature (the codec's
   * output before its zone is known), or a part of the first, unsigned format in a zone leased with
   * a key are refused; a zone leased without one (a version 7 file system's) reads the first format
   * only.
   */
  @Test
  void aPartCountsOnlyUnderItsZonesKey() throws Exception {
    List<WaltzOp> want = List.of(WaltzOp.put(new byte[] {1, 2}, new byte[] {3}));
    int[][] sizes = new int[1][];
    ByteBuffer signed = encode(5, 6, want, sizes);
    WaltzRecordCodec.decodePart(signed, 0, signed.capacity(), BLOCK, KEY);
    long[] other = {KEY[0], KEY[1] ^ 1};
    WaltzRecordCodec.FormatException e =
        assertThrows(
            WaltzRecordCodec.FormatException.class,
            () -> WaltzRecordCodec.decodePart(signed, 0, signed.capacity(), BLOCK, other));
    assertTrue(e.getMessage().contains("signature mismatch"), e.getMessage());
    ByteBuffer unsigned = ByteBuffer.allocate(signed.capacity());
    WaltzRecordCodec.encode(5, 6, want, BLOCK, MAX_APPEND, unsigned);
    assertThrows(
        WaltzRecordCodec.FormatException.class,
        () -> WaltzRecordCodec.decodePart(unsigned, 0, unsigned.capacity(), BLOCK, KEY));
    // in a keyless zone a signed part is refused by its version, a first-format one read
    e =
        assertThrows(
            WaltzRecordCodec.FormatException.class,
            () -> WaltzRecordCodec.decodePart(signed, 0, signed.capacity(), BLOCK, new long[2]));
    assertTrue(e.getMessage().contains("without a key holds versions 1 and 2"), e.getMessage());
    ByteBuffer first = firstFormat(5, 7, new byte[] {9});
    WaltzRecordCodec.Part p =
        WaltzRecordCodec.decodePart(first, 0, first.capacity(), BLOCK, new long[2]);
    assertEquals(WaltzRecordCodec.UNSIGNED_VERSION, p.version());
    assertSameOps(
        List.of(WaltzOp.put(new byte[] {9}, new byte[] {9})),
        WaltzRecordCodec.decodePayload(p.payload(), p.version()));
    e =
        assertThrows(
            WaltzRecordCodec.FormatException.class,
            () -> WaltzRecordCodec.decodePart(first, 0, first.capacity(), BLOCK, KEY));
    assertTrue(e.getMessage().contains("with a key holds versions 3 and 4"), e.getMessage());
  }

  /** A version 1 part of one put (key = value = {@code kv}), as the first format wrote it. */
  private static ByteBuffer firstFormat(long db, long seq, byte[] kv) {
    ByteBuffer payload = ByteBuffer.allocate(64).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    payload.putInt(1).put((byte) 1).putInt(kv.length).put(kv).putInt(kv.length).put(kv);
    int len = payload.position();
    ByteBuffer o = ByteBuffer.allocate(BLOCK).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    o.putInt(WaltzRecordCodec.MAGIC).putShort((short) 1).putShort((short) 40);
    o.putLong(db).putLong(seq).putShort((short) 0).putShort((short) 1).putInt(len).putInt(len);
    o.put(40, payload.array(), 0, len);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(o.array(), 0, 36);
    crc.update(o.array(), 40, len);
    o.putInt(36, (int) crc.getValue());
    return o;
  }

  @Test
  void truncatedAndRandomInputFailsCleanly() {
    List<WaltzOp> want = ops(new SplittableRandom(8), 3, 50);
    int[][] sizes = new int[1][];
    ByteBuffer b = encode(1, 1, want, sizes);
    int used = WaltzRecordCodec.HEADER + (int) WaltzRecordCodec.payloadSize(want);
    for (int avail = 0; avail < used; avail++) {
      int a = avail;
      assertThrows(
          WaltzRecordCodec.FormatException.class,
          () -> WaltzRecordCodec.decodePart(b, 0, a, BLOCK, KEY));
    }
    SplittableRandom r = new SplittableRandom(11);
    for (int i = 0; i < 2000; i++) {
      byte[] junk = new byte[r.nextInt(200)];
      r.nextBytes(junk);
      if (junk.length >= 4 && i % 2 == 0) { // a valid magic and version, junk after
        ByteBuffer.wrap(junk)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN)
            .putInt(0, WaltzRecordCodec.MAGIC);
      }
      ByteBuffer j = ByteBuffer.wrap(junk);
      assertThrows(
          WaltzRecordCodec.FormatException.class,
          () -> WaltzRecordCodec.decodePart(j, 0, junk.length, BLOCK, KEY));
      try {
        WaltzRecordCodec.decodePayload(junk); // may parse by chance; must not throw anything else
      } catch (WaltzRecordCodec.FormatException expected) {
        // refused cleanly
      }
    }
  }

  @Test
  void tooLargeWritesAreRefused() {
    byte[] huge = new byte[(MAX_APPEND - WaltzRecordCodec.HEADER) * WaltzRecordCodec.MAX_PARTS];
    ByteBuffer b = ByteBuffer.allocate(16);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                WaltzRecordCodec.encode(
                    1, 1, List.of(WaltzOp.put(new byte[1], huge)), BLOCK, MAX_APPEND, b));
    assertTrue(e.getMessage().contains("too large"), e.getMessage());
  }
}
