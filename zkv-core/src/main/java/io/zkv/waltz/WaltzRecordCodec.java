package io.zkv.waltz;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * WALTZ's record format, versions 3 and 4, and the reading of versions 1 and 2 ({@code
 * docs/formats/zkv-wal.md} is the reference): a record is one logged write, split into parts of at
 * most the device's largest zone append; each part is one append, block aligned, with its own
 * header, CRC-32C and signature, so a torn, lost or foreign part is found on its own and a record
 * counts only when all its parts are there.
 *
 * <pre>
 * offset size  field (little-endian)
 *  0     4     magic 0x544C575A ("ZWLT")
 *  4     2     version (3; 4 for a flushed-through mark)
 *  6     2     header size (48)
 *  8     8     database id (the log's owner)
 * 16     8     sequence number (the writer's, from 1)
 * 24     2     part index (0..parts-1)
 * 26     2     parts
 * 28     4     payload bytes in this part
 * 32     4     payload bytes of the whole record
 * 36     4     CRC-32C of bytes 0..35 and this part's payload
 * 40     8     signature: SipHash-2-4 of bytes 0..39 under the key of the zone's lease
 * 48     ...   payload bytes, then zeros to the block
 * </pre>
 *
 * The signature is why versions 3 and 4 exist: every other field can be computed by anyone who
 * knows the database's path, so a value holding the image of a part became a record of its own when
 * a power cut tore the record around it and recovery moved on block by block (issue 42). The key is
 * the lease's secret, drawn by the file system when the zone was leased and kept in its metadata
 * log, never in the zone; a part is signed for the zone it is appended to ({@link #sign}), once its
 * zone is known. Versions 1 and 2 (header 40, no signature) are read only in zones leased without a
 * key (by a version 7 file system), and only they are read there.
 *
 * <p>The payload (all parts' bytes joined): u32 operation count, then per operation u8 kind (1 put,
 * 2 delete, 3 delete range, 4 flushed-through mark), u32 length and bytes of the key (range start;
 * a mark's u64 sequence), and for a put, a range or a mark u32 length and bytes of the value (range
 * end; a mark's are empty). A mark is alone in its record, which is version 4 (2 unsigned); all
 * others are version 3 (1 unsigned).
 */
public final class WaltzRecordCodec {
  public static final int MAGIC = 0x544C575A;

  /** The version of a record (not a mark) this codec writes: signed. */
  public static final int VERSION = 3;

  /** The version of a record holding a flushed-through mark (and nothing else): signed. */
  public static final int MARK_VERSION = 4;

  /** The first format's versions, read in zones leased without a key: unsigned. */
  public static final int UNSIGNED_VERSION = 1;

  public static final int UNSIGNED_MARK_VERSION = 2;

  /** Header bytes of versions 3 and 4. */
  public static final int HEADER = 48;

  /** Header bytes of versions 1 and 2. */
  public static final int UNSIGNED_HEADER = 40;

  /** Where the signature lies in a part, and the header bytes it covers. */
  static final int SIGNATURE = 40;

  /** A record's parts: at most this many (a u16 in the header, kept well below it). */
  public static final int MAX_PARTS = 4096;

  private WaltzRecordCodec() {}

  /** Payload bytes of {@code ops}. */
  public static long payloadSize(List<WaltzOp> ops) {
    long n = 4;
    for (WaltzOp op : ops) {
      n += op.encodedSize();
    }
    return n;
  }

  /** Payload bytes one part carries when appends are at most {@code maxAppend} bytes. */
  static int partPayload(int block, int maxAppend) {
    return (maxAppend / block) * block - HEADER;
  }

  /** Device bytes the record of {@code payload} bytes takes, all parts padded. */
  public static long encodedSize(long payload, int block, int maxAppend) {
    int per = partPayload(block, maxAppend);
    long full = payload / per; // each exactly HEADER + per bytes: a whole number of blocks
    long rest = payload % per;
    long size = full * (HEADER + per);
    if (rest > 0 || full == 0) {
      size += (HEADER + rest + block - 1) / block * block;
    }
    return size;
  }

  /**
   * Encodes the record at {@code out}'s position onward (its parts one after another) and returns
   * each part's padded size. {@code out} must hold {@link #encodedSize}.
   *
   * @throws IllegalArgumentException if the record would need more than {@link #MAX_PARTS} parts
   */
  public static int[] encode(
      long dbId, long seq, List<WaltzOp> ops, int block, int maxAppend, ByteBuffer out) {
    long payloadLong = payloadSize(ops);
    int per = partPayload(block, maxAppend);
    if (per <= 0 || payloadLong > (long) per * MAX_PARTS || payloadLong > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "a write of "
              + payloadLong
              + " bytes is too large for the log (at most "
              + (long) per * MAX_PARTS
              + ")");
    }
    int payload = (int) payloadLong;
    int parts = Math.max(1, (payload + per - 1) / per);
    int[] sizes = new int[parts];
    ByteBuffer o = out.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int at = out.position();
    int version = isMark(ops) ? MARK_VERSION : VERSION;
    if (parts == 1) { // the usual case: the payload goes straight to its place, no copy
      o.position(at + HEADER);
      putOps(o, ops);
      sizes[0] = finishPart(o, at, version, dbId, seq, 0, 1, payload, payload, block);
      return sizes;
    }
    ByteBuffer body = ByteBuffer.allocate(payload).order(ByteOrder.LITTLE_ENDIAN);
    putOps(body, ops);
    for (int k = 0; k < parts; k++) {
      int from = k * per;
      int len = Math.min(per, payload - from);
      o.put(at + HEADER, body.array(), from, len);
      sizes[k] = finishPart(o, at, version, dbId, seq, k, parts, len, payload, block);
      at += sizes[k];
    }
    return sizes;
  }

  /** Whether {@code ops} is a flushed-through mark (alone, as a mark must be). */
  static boolean isMark(List<WaltzOp> ops) {
    boolean any = false;
    for (WaltzOp op : ops) {
      any |= op.kind() == WaltzOp.Kind.FLUSHED_THROUGH;
    }
    if (any && ops.size() != 1) {
      throw new IllegalArgumentException("a flushed-through mark goes alone in its record");
    }
    return any;
  }

  private static void putOps(ByteBuffer dst, List<WaltzOp> ops) {
    dst.putInt(ops.size());
    for (WaltzOp op : ops) {
      dst.put((byte) op.kind().code).putInt(op.a().length).put(op.a());
      if (op.b() != null) {
        dst.putInt(op.b().length).put(op.b());
      }
    }
  }

  /**
   * Writes the header of the part at {@code at} whose {@code len} payload bytes are in place after
   * it, with their checksum, and the zero padding; returns the part's padded size.
   */
  private static int finishPart(
      ByteBuffer o,
      int at,
      int version,
      long dbId,
      long seq,
      int k,
      int parts,
      int len,
      int payload,
      int block) {
    int padded = (HEADER + len + block - 1) / block * block;
    o.position(at);
    o.putInt(MAGIC).putShort((short) version).putShort((short) HEADER);
    o.putLong(dbId).putLong(seq);
    o.putShort((short) k).putShort((short) parts).putInt(len).putInt(payload);
    CRC32C crc = new CRC32C();
    crc.update(o.duplicate().position(at).limit(at + 36));
    crc.update(o.duplicate().position(at + HEADER).limit(at + HEADER + len));
    o.putInt(at + 36, (int) crc.getValue());
    o.putLong(at + SIGNATURE, 0); // unsigned until its zone is known (sign)
    for (int i = at + HEADER + len; i < at + padded; i++) {
      o.put(i, (byte) 0);
    }
    return padded;
  }

  /**
   * Signs the encoded part at position 0 of {@code part} for the zone whose lease key is {@code
   * key} (two longs): the signature over its first 40 header bytes, which hold the CRC of its
   * payload. Called right before each append, with the key of the zone it goes to.
   */
  public static void sign(ByteBuffer part, long[] key) {
    part.duplicate().order(ByteOrder.LITTLE_ENDIAN).putLong(SIGNATURE, signature(part, 0, key));
  }

  private static long signature(ByteBuffer b, int pos, long[] key) {
    byte[] head = new byte[SIGNATURE];
    b.get(pos, head);
    return SipHash.hash(key[0], key[1], head, 0, SIGNATURE);
  }

  /** Whether {@code key} is a lease's key: a lease recorded without one reads as zeros. */
  public static boolean isKey(long[] key) {
    return key != null && (key[0] != 0 || key[1] != 0);
  }

  /** Whether parts of {@code version} hold a flushed-through mark. */
  public static boolean isMarkVersion(int version) {
    return version == MARK_VERSION || version == UNSIGNED_MARK_VERSION;
  }

  /** The header size of parts of {@code version} (1 to 4). */
  static int headerOf(int version) {
    return version == VERSION || version == MARK_VERSION ? HEADER : UNSIGNED_HEADER;
  }

  /** One decoded part: its header's fields, its payload bytes and its padded size. */
  public record Part(
      int version,
      long dbId,
      long seq,
      int part,
      int parts,
      int totalPayload,
      byte[] payload,
      int paddedSize) {}

  /** Why bytes are not a valid part (zone and offset are the caller's to add). */
  public static final class FormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public FormatException(String message) {
      super(message);
    }
  }

  /** Whether the {@code n} bytes at {@code pos} are all zero (unwritten, or a lost append). */
  public static boolean allZero(ByteBuffer in, int pos, int n) {
    for (int i = 0; i < n; i++) {
      if (in.get(pos + i) != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Decodes the part at {@code pos}, of which {@code avail} bytes are readable, in a zone whose
   * lease key is {@code key}: a signed part (version 3 or 4) whose signature that key verifies; or,
   * where the lease has no key ({@link #isKey} false: a version 7 file system's lease), an unsigned
   * part (version 1 or 2), as that file system's zkv wrote them.
   *
   * @throws FormatException for anything but a whole, valid part of this zone
   */
  public static Part decodePart(ByteBuffer in, int pos, int avail, int block, long[] key)
      throws FormatException {
    boolean keyed = isKey(key);
    int expectHeader = keyed ? HEADER : UNSIGNED_HEADER;
    if (avail < expectHeader) {
      throw new FormatException(
          "cut short: " + avail + " bytes left, a header takes " + expectHeader);
    }
    ByteBuffer b = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int magic = b.getInt(pos);
    if (magic != MAGIC) {
      throw new FormatException(String.format("bad magic 0x%08x", magic));
    }
    int version = b.getShort(pos + 4) & 0xffff;
    int record = keyed ? VERSION : UNSIGNED_VERSION;
    int mark = keyed ? MARK_VERSION : UNSIGNED_MARK_VERSION;
    if (version != record && version != mark) {
      throw new FormatException(
          "version "
              + version
              + " (a zone leased "
              + (keyed ? "with" : "without")
              + " a key holds versions "
              + record
              + " and "
              + mark
              + ")");
    }
    int header = b.getShort(pos + 6) & 0xffff;
    int part = b.getShort(pos + 24) & 0xffff;
    int parts = b.getShort(pos + 26) & 0xffff;
    int len = b.getInt(pos + 28);
    int total = b.getInt(pos + 32);
    if (header != expectHeader
        || parts == 0
        || parts > MAX_PARTS
        || part >= parts
        || len < 0
        || total < 4
        || len > total
        || len > avail - expectHeader) {
      throw new FormatException(
          "impossible header (header "
              + header
              + ", part "
              + part
              + "/"
              + parts
              + ", "
              + len
              + " of "
              + total
              + " bytes)");
    }
    CRC32C crc = new CRC32C();
    ByteBuffer head = b.duplicate();
    head.position(pos).limit(pos + 36);
    crc.update(head);
    ByteBuffer body = b.duplicate();
    body.position(pos + expectHeader).limit(pos + expectHeader + len);
    crc.update(body);
    if ((int) crc.getValue() != b.getInt(pos + 36)) {
      throw new FormatException("checksum mismatch");
    }
    if (keyed && signature(b, pos, key) != b.getLong(pos + SIGNATURE)) {
      throw new FormatException("signature mismatch (not signed with this zone's lease key)");
    }
    byte[] payload = new byte[len];
    b.get(pos + expectHeader, payload);
    int padded = (expectHeader + len + block - 1) / block * block;
    return new Part(
        version, b.getLong(pos + 8), b.getLong(pos + 16), part, parts, total, payload, padded);
  }

  /**
   * The operations of a whole record's payload (its parts' bytes joined in part order), not a mark.
   *
   * @throws FormatException if it does not parse to exactly its length
   */
  public static List<WaltzOp> decodePayload(byte[] payload) throws FormatException {
    return decodePayload(payload, VERSION);
  }

  /**
   * The operations of a whole record's payload of {@code version}: a flushed-through mark alone in
   * versions 4 and 2, none in versions 3 and 1.
   *
   * @throws FormatException if it does not parse to exactly its length, or breaks that rule
   */
  public static List<WaltzOp> decodePayload(byte[] payload, int version) throws FormatException {
    List<WaltzOp> ops = decodeOps(payload);
    boolean mark;
    try {
      mark = isMark(ops);
    } catch (IllegalArgumentException e) {
      throw new FormatException("a flushed-through mark among other operations");
    }
    if (mark != isMarkVersion(version)) {
      throw new FormatException(
          mark
              ? "a flushed-through mark in a version " + version + " record"
              : "a version " + version + " record without a mark");
    }
    return ops;
  }

  private static List<WaltzOp> decodeOps(byte[] payload) throws FormatException {
    ByteBuffer p = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
    try {
      int n = p.getInt();
      if (n < 0 || n > payload.length) {
        throw new FormatException("operation count " + n + " in " + payload.length + " bytes");
      }
      List<WaltzOp> ops = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        WaltzOp.Kind kind = WaltzOp.Kind.of(p.get());
        if (kind == null) {
          throw new FormatException("unknown operation kind at payload byte " + (p.position() - 1));
        }
        byte[] a = bytes(p);
        byte[] b = kind == WaltzOp.Kind.DELETE ? null : bytes(p);
        try {
          ops.add(new WaltzOp(kind, a, b));
        } catch (IllegalArgumentException e) {
          throw new FormatException(e.getMessage());
        }
      }
      if (p.hasRemaining()) {
        throw new FormatException(p.remaining() + " bytes after the last operation");
      }
      return ops;
    } catch (java.nio.BufferUnderflowException e) {
      throw new FormatException("payload cut short");
    }
  }

  private static byte[] bytes(ByteBuffer p) throws FormatException {
    int len = p.getInt();
    if (len < 0 || len > p.remaining()) {
      throw new FormatException("field of " + len + " bytes with " + p.remaining() + " left");
    }
    byte[] v = new byte[len];
    p.get(v);
    return v;
  }
}
