package io.zkv.fs;

import io.zkv.device.DeviceGeometry;
import io.zkv.placement.FileInfo;
import io.zkv.placement.FileKind;
import io.zkv.placement.KeyRange;
import io.zkv.placement.WriteLifetime;
import io.zkv.placement.ZoneCondition;
import io.zkv.placement.ZoneIoClass;
import io.zkv.placement.ZoneReservation;
import io.zkv.placement.ZoneTable;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Turns the zone file system's {@link ZoneView} into zkv-placement's {@link ZoneTable} view.
 *
 * <p>Choices: a zone being written is OPEN, a partly written idle one CLOSED (it still holds an
 * active resource); metadata zones are reserved and shown empty, because the file system keeps
 * their resources out of the I/O tokens (as ZenFS's two reserved tokens do). Files are the real
 * ones, with the level, job and key range RocksDB's listener reported ({@code FileInfo}), and each
 * zone's live bytes are attributed to them.
 */
final class ZoneTableProjection {
  /**
   * Id under which a victim view shows the bytes GC would copy beyond the files' data (sync padding
   * of partial blocks), far above real file ids.
   */
  static final long PADDING_FILE = Long.MAX_VALUE;

  private ZoneTableProjection() {}

  /** The view a placement policy allocates from: live bytes are the live file data. */
  static ZoneTable forAllocation(ZoneView view, DeviceGeometry geometry) {
    return project(view, geometry, false);
  }

  /**
   * The view a victim policy chooses from: a zone's live bytes are what GC would copy (the blocks
   * its live data occupies; the padding beyond the files' bytes under {@link #PADDING_FILE}). Which
   * full zones this collection accepts ({@link ZoneView#zoneVictimOk}) the view cannot show:
   * showing them busy would count them as open zones. A greedy choice is never refused for it (the
   * least-copy zone is within any bound if any zone is); another policy's choice outside it
   * declines that collection. A choice whose room the asking writer cannot use (on a device whose
   * zones serve one class, a WAL zone for SST data) is replaced by the file system's own.
   */
  static ZoneTable forVictimChoice(ZoneView view, DeviceGeometry geometry) {
    return project(view, geometry, true);
  }

  private static ZoneTable project(ZoneView v, DeviceGeometry geometry, boolean victimChoice) {
    int n = v.zoneCount();
    ZoneTable.Builder b =
        ZoneTable.builder(n, geometry.zoneCapacity())
            .deviceLimits(geometry.maxOpen(), geometry.maxActive())
            .emptyZonesKept(v.emptyZonesKept(), v.opZones());
    long[] attributed = new long[n];
    for (int k = 0; k < v.zoneFileCount(); k++) {
      int z = v.zoneFileZone(k);
      long bytes = v.zoneFileLive(k);
      if (z >= 0 && z < n && !v.zoneMeta(z) && bytes > 0) {
        b.live(z, v.zoneFileId(k), bytes);
        attributed[z] += bytes;
      }
    }
    for (int f = 0; f < v.fileCount(); f++) {
      b.file(fileInfo(v, f));
    }
    for (int i = 0; i < n; i++) {
      long capacity = v.zoneCapacity(i);
      long written = v.zoneWritePointer(i) - v.zoneStart(i);
      b.capacity(i, capacity);
      if (v.zoneMeta(i)) {
        b.reserve(i, ZoneReservation.METADATA);
        continue;
      }
      boolean busy = v.zoneBusy(i);
      ZoneCondition cond =
          written == 0
              ? ZoneCondition.EMPTY
              : written >= capacity
                  ? ZoneCondition.FULL
                  : busy ? ZoneCondition.OPEN : ZoneCondition.CLOSED;
      b.zone(i, cond, written, WriteLifetime.fromValue(v.zoneLifetime(i)));
      long padding = Math.min(v.zoneCopy(i), written) - attributed[i];
      if (victimChoice && padding > 0) {
        b.live(i, PADDING_FILE, padding);
      }
      if (v.zoneOwner(i) >= 0) {
        b.owner(i, v.zoneOwner(i));
      } else if (busy && cond == ZoneCondition.FULL) {
        b.claimed(i); // its reset pending, or GC's victim: no writer's token
      } else if (busy) {
        b.busy(i);
      }
      b.ioClass(i, ZoneIoClass.fromValue(v.zoneIoClass(i)));
      if (v.zoneTag(i) >= 0) {
        b.tag(i, v.zoneTag(i));
      }
    }
    return b.build();
  }

  static FileInfo fileInfo(ZoneView v, int f) {
    String name = v.fileName(f);
    int level = v.fileLevel(f);
    return new FileInfo(
        v.fileId(f),
        name.isEmpty() ? FileKind.UNKNOWN : FileKind.fromName(name),
        WriteLifetime.fromValue(v.fileLifetime(f)),
        level >= 0 ? OptionalInt.of(level) : OptionalInt.empty(),
        keyRange(v.fileSmallest(f), v.fileLargest(f)));
  }

  static Optional<KeyRange> keyRange(byte[] smallest, byte[] largest) {
    // An inverted range means a comparator other than bytewise ordered the keys: not usable here.
    return smallest == null || largest == null || Arrays.compareUnsigned(smallest, largest) > 0
        ? Optional.empty()
        : Optional.of(KeyRange.of(smallest, largest));
  }
}
