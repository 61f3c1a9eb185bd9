package io.zkv.waltz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads WALTZ's leased zones back (docs/wal.md, "WALTZ recovery"): every block from each zone's
 * start to its write pointer, every valid record kept, not only a prefix, since appends land in any
 * order and a later acknowledged write may follow a lost unacknowledged one. A part that fails its
 * checksum, its signature or does not parse is reported with its zone and offset and the scan goes
 * on at the next block; a record counts only with all its parts. Moving on block by block inside
 * damage reads users' values too; a part counts only if it is signed with its zone's lease key,
 * which no value can know, so no value is ever taken for a part (docs/formats/zkv-wal.md; a zone
 * leased without a key, by a version 7 file system, is read as that zkv wrote it). The records come
 * back in sequence order, the order the caller replays them in: the stripes held from sequence to
 * apply make that each key's write order, and replaying is idempotent (puts, deletes and range
 * deletes only).
 */
public final class WaltzRecovery {
  private WaltzRecovery() {}

  /** A whole record. */
  public record Record(long seq, List<WaltzOp> ops) {}

  /**
   * What the scan found.
   *
   * @param records whole records to replay, in sequence order: those after the last flushed-through
   *     mark (the marks themselves are not records)
   * @param problems one line per bad part or incomplete record: zone, offset, reason
   * @param zones leased zones that had been written (empty ones, kept for a start, are not counted)
   * @param bytesRead bytes read from them
   * @param zeroBlocks all-zero blocks below a write pointer (appends lost in a power cut)
   * @param unreadZones zones whose write pointer or data could not be read: their records are
   *     unknown, so the caller must not give them back
   * @param flushedThrough the largest flushed-through mark: every record up to it is in an SST and
   *     was left out of {@code records}; 0 if none
   * @param maxSeq the largest sequence of any valid part of this database (a mark's, a skipped or
   *     an incomplete record's too), 0 if none: a new writer must start above it, or a record of
   *     its could meet an old one's parts under the same sequence at the next recovery
   */
  public record Result(
      List<Record> records,
      List<String> problems,
      int zones,
      long bytesRead,
      long zeroBlocks,
      int unreadZones,
      long flushedThrough,
      long maxSeq) {}

  private static final class Assembly {
    final int version;
    final byte[][] parts;
    int found;

    Assembly(int version, int n) {
      this.version = version;
      parts = new byte[n][];
    }
  }

  /** Scans every zone leased to the log's owner. */
  public static Result scan(ZoneLeases leases, long dbId) {
    int block = leases.blockSize();
    int window = (int) Math.min(leases.zoneCapacity(), Math.max(4 << 20, 2L * leases.maxAppend()));
    window = Math.max(block, window / block * block);
    ByteBuffer buf = ByteBuffer.allocateDirect(window + 4096).alignedSlice(4096);
    Map<Long, Assembly> bySeq = new HashMap<>();
    List<String> problems = new ArrayList<>();
    long bytesRead = 0;
    long zeroBlocks = 0;
    int unread = 0;
    long maxSeq = 0;
    int[] zones = leases.leased();
    int writtenZones = 0;
    for (int zone : zones) {
      long written = leases.written(zone);
      if (written != 0) {
        writtenZones++;
      }
      if (written < 0) {
        problems.add("zone " + zone + ": cannot read its write pointer (error " + written + ")");
        unread++;
        continue;
      }
      long[] key = leases.key(zone);
      if (key == null) {
        problems.add("zone " + zone + ": cannot read its lease's key");
        unread++;
        continue;
      }
      long winStart = 0;
      int winLen = 0;
      long at = 0;
      while (at < written) {
        if (at + WaltzRecordCodec.HEADER > winStart + winLen
            || at + block > winStart + winLen
            || needsMore(buf, at, winStart, winLen, written, leases.maxAppend(), key)) {
          winStart = at;
          winLen = (int) Math.min(window, written - at);
          int rc = leases.read(zone, winStart, buf, winLen);
          if (rc < 0) {
            problems.add("zone " + zone + " offset " + at + ": read failed (error " + rc + ")");
            unread++;
            break;
          }
          bytesRead += winLen;
        }
        int pos = (int) (at - winStart);
        int avail = (int) (winStart + winLen - at);
        try {
          WaltzRecordCodec.Part p = WaltzRecordCodec.decodePart(buf, pos, avail, block, key);
          if (p.dbId() != dbId) {
            problems.add(
                "zone "
                    + zone
                    + " offset "
                    + at
                    + ": a record of database id "
                    + p.dbId()
                    + ", skipped");
          } else {
            maxSeq = Math.max(maxSeq, p.seq());
            Assembly a = bySeq.computeIfAbsent(p.seq(), s -> new Assembly(p.version(), p.parts()));
            if (a.version == p.version()
                && a.parts.length == p.parts()
                && a.parts[p.part()] == null) {
              a.parts[p.part()] = p.payload();
              a.found++;
            }
          }
          at += p.paddedSize();
        } catch (WaltzRecordCodec.FormatException e) {
          if (WaltzRecordCodec.allZero(buf, pos, Math.min(block, avail))) {
            zeroBlocks++;
          } else {
            problems.add(
                "zone "
                    + zone
                    + " offset "
                    + at
                    + ": "
                    + e.getMessage()
                    + ", skipped to the next block");
          }
          at += block;
        }
      }
    }
    List<Record> records = new ArrayList<>();
    long flushedThrough = 0;
    List<long[]> incomplete = new ArrayList<>();
    for (Map.Entry<Long, Assembly> e : bySeq.entrySet()) {
      Assembly a = e.getValue();
      if (a.found < a.parts.length) {
        incomplete.add(
            new long[] {e.getKey(), a.found, a.parts.length}); // reported unless in SSTs anyway
        continue;
      }
      ByteArrayOutputStream joined = new ByteArrayOutputStream();
      for (byte[] p : a.parts) {
        joined.writeBytes(p);
      }
      try {
        List<WaltzOp> ops = WaltzRecordCodec.decodePayload(joined.toByteArray(), a.version);
        if (WaltzRecordCodec.isMarkVersion(a.version)) {
          flushedThrough = Math.max(flushedThrough, ops.get(0).markedSequence());
        } else {
          records.add(new Record(e.getKey(), ops));
        }
      } catch (WaltzRecordCodec.FormatException ex) {
        problems.add("record " + e.getKey() + ": " + ex.getMessage() + ", not replayed");
      }
    }
    long through = flushedThrough;
    records.removeIf(r -> r.seq() <= through); // in SSTs already
    for (long[] i : incomplete) {
      if (i[0] > through) {
        problems.add("record " + i[0] + ": " + i[1] + " of " + i[2] + " parts found, not replayed");
      }
    }
    records.sort(Comparator.comparingLong(Record::seq));
    return new Result(
        records, problems, writtenZones, bytesRead, zeroBlocks, unread, flushedThrough, maxSeq);
  }

  /**
   * Whether a part header at {@code at} (magic and version right for the zone's key) announces a
   * part, at most one append long, that runs past the window while the zone has more: the window
   * moves to it. A torn part's payload bytes are not trusted to move it (each block would reread a
   * window).
   */
  private static boolean needsMore(
      ByteBuffer buf, long at, long winStart, int winLen, long written, int maxAppend, long[] key) {
    int pos = (int) (at - winStart);
    if (pos == 0 || winStart + winLen >= written || pos + WaltzRecordCodec.HEADER > winLen) {
      return false;
    }
    ByteBuffer b = buf.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    int version = b.getShort(pos + 4) & 0xffff;
    boolean keyed = WaltzRecordCodec.isKey(key);
    boolean ours =
        keyed
            ? version == WaltzRecordCodec.VERSION || version == WaltzRecordCodec.MARK_VERSION
            : version == WaltzRecordCodec.UNSIGNED_VERSION
                || version == WaltzRecordCodec.UNSIGNED_MARK_VERSION;
    if (b.getInt(pos) != WaltzRecordCodec.MAGIC || !ours) {
      return false;
    }
    int len = b.getInt(pos + 28);
    int header = WaltzRecordCodec.headerOf(version);
    return len > 0 && len <= maxAppend && (long) pos + header + len > winLen;
  }
}
