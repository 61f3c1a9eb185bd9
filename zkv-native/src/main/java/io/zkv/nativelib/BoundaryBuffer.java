package io.zkv.nativelib;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A buffer of the typed native boundary (native side: {@code jni/boundary.h}; format: {@code
 * docs/formats/native-boundary.md}): a header (magic, layout, version, length, section count), a
 * section table (offset, record size, count per section), then the sections' records, in host byte
 * order. Readers of one layout (flyweights) get fields by section, record index and field offset.
 *
 * <p>{@link #wrap} checks everything a reader relies on, so a native build and a Java build that
 * disagree on a layout fail with a message instead of reading the wrong bytes.
 */
public final class BoundaryBuffer {
  /** "ZKVB". */
  public static final int MAGIC = 0x42564B5A;

  /** Header: magic (4), layout (2), version (2), length (4), sections (4). */
  public static final int HEADER_SIZE = 16;

  /** A section table entry: offset (4), record size (4), count (4), reserved (4). */
  public static final int SECTION_SIZE = 16;

  private final ByteBuffer buf;

  private BoundaryBuffer(ByteBuffer buf) {
    this.buf = buf;
  }

  /**
   * Checks {@code raw} against the layout the caller reads: its id, version, and the record size of
   * each section ({@code recordSizes[i]} for section {@code i}).
   *
   * @throws IllegalStateException naming the first disagreement
   */
  public static BoundaryBuffer wrap(ByteBuffer raw, int layout, int version, int... recordSizes) {
    ByteBuffer b = raw.duplicate().order(ByteOrder.nativeOrder());
    b.position(0);
    if (b.capacity() < HEADER_SIZE || b.getInt(0) != MAGIC) {
      throw new IllegalStateException("not a zkv boundary buffer (" + b.capacity() + " bytes)");
    }
    int gotLayout = Short.toUnsignedInt(b.getShort(4));
    int gotVersion = Short.toUnsignedInt(b.getShort(6));
    if (gotLayout != layout || gotVersion != version) {
      throw new IllegalStateException(
          "native boundary layout "
              + gotLayout
              + " version "
              + gotVersion
              + ", this jar reads layout "
              + layout
              + " version "
              + version
              + ": the native library and the Java classes come from different zkv builds");
    }
    long length = Integer.toUnsignedLong(b.getInt(8));
    int sections = b.getInt(12);
    if (length > b.capacity() || sections != recordSizes.length) {
      throw new IllegalStateException(
          "boundary buffer of layout "
              + layout
              + " claims "
              + length
              + " bytes and "
              + sections
              + " sections; has "
              + b.capacity()
              + " bytes, expected "
              + recordSizes.length
              + " sections");
    }
    BoundaryBuffer bb = new BoundaryBuffer(b);
    for (int s = 0; s < sections; s++) {
      long end = bb.offset(s) + (long) bb.recordSize(s) * bb.count(s);
      if (bb.recordSize(s) != recordSizes[s] || bb.offset(s) % 8 != 0 || end > length) {
        throw new IllegalStateException(
            "boundary layout "
                + layout
                + " section "
                + s
                + ": records of "
                + bb.recordSize(s)
                + " bytes at "
                + bb.offset(s)
                + " x "
                + bb.count(s)
                + "; expected records of "
                + recordSizes[s]
                + " bytes within "
                + length);
      }
    }
    return bb;
  }

  /**
   * A new buffer of one section of one zeroed record, for Java to fill and hand to native code (the
   * native side checks it as {@link #wrap} does: {@code zkv_boundary_read_single}). {@link
   * #buffer()} is what crosses.
   */
  public static BoundaryBuffer single(int layout, int version, int recordSize) {
    int first = (HEADER_SIZE + SECTION_SIZE + 7) / 8 * 8;
    int length = first + (recordSize + 7) / 8 * 8;
    ByteBuffer b = ByteBuffer.allocateDirect(length).order(ByteOrder.nativeOrder());
    b.putInt(0, MAGIC);
    b.putShort(4, (short) layout);
    b.putShort(6, (short) version);
    b.putInt(8, length);
    b.putInt(12, 1);
    b.putInt(HEADER_SIZE, first);
    b.putInt(HEADER_SIZE + 4, recordSize);
    b.putInt(HEADER_SIZE + 8, 1);
    return new BoundaryBuffer(b);
  }

  /** The whole buffer (for a native call). */
  public ByteBuffer buffer() {
    return buf;
  }

  /** Byte offset of section {@code s}. */
  public int offset(int s) {
    return buf.getInt(HEADER_SIZE + s * SECTION_SIZE);
  }

  /** Bytes per record of section {@code s}. */
  public int recordSize(int s) {
    return buf.getInt(HEADER_SIZE + s * SECTION_SIZE + 4);
  }

  /** Records in section {@code s}. */
  public int count(int s) {
    return buf.getInt(HEADER_SIZE + s * SECTION_SIZE + 8);
  }

  private int at(int s, int index, int field) {
    if (index < 0 || index >= count(s)) {
      throw new IndexOutOfBoundsException(
          "record " + index + " of section " + s + " with " + count(s) + " records");
    }
    return offset(s) + index * recordSize(s) + field;
  }

  public long getLong(int s, int index, int field) {
    return buf.getLong(at(s, index, field));
  }

  /**
   * The record {@code index} of section {@code s} read as consecutive 64-bit counters, {@code
   * count} of them (layouts whose one record is a struct of {@code uint64_t} fields, such as the
   * zone and device counters).
   */
  public long[] getLongs(int s, int index, int count) {
    long[] v = new long[count];
    for (int i = 0; i < count; i++) {
      v[i] = getLong(s, index, i * Long.BYTES);
    }
    return v;
  }

  public int getInt(int s, int index, int field) {
    return buf.getInt(at(s, index, field));
  }

  public byte getByte(int s, int index, int field) {
    return buf.get(at(s, index, field));
  }

  public void putInt(int s, int index, int field, int value) {
    buf.putInt(at(s, index, field), value);
  }

  public void putLong(int s, int index, int field, long value) {
    buf.putLong(at(s, index, field), value);
  }

  /**
   * {@code length} bytes at {@code offset} of the byte section {@code s} (record size 1), or null
   * for a length of -1 (absent).
   */
  public byte[] bytes(int s, int offset, int length) {
    if (length < 0) {
      return null;
    }
    if (offset < 0 || (long) offset + length > count(s)) {
      throw new IndexOutOfBoundsException(
          length + " bytes at " + offset + " of a " + count(s) + "-byte section");
    }
    byte[] out = new byte[length];
    buf.get(offset(s) + offset, out, 0, length);
    return out;
  }
}
