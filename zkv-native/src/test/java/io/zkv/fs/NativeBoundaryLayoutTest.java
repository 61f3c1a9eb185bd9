package io.zkv.fs;

import static io.zkv.fs.ZoneView.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.zkv.nativelib.BoundaryBuffer;
import org.junit.jupiter.api.Test;

/**
 * The Java readers of the native boundary and the native library agree on every layout: version,
 * record sizes and field offsets as the C compiler laid them out (jni/boundary.h, reported by
 * zkv_boundary_layout), against the constants the Java flyweights read with.
 */
class NativeBoundaryLayoutTest {
  @Test
  void headerAndSectionTable() {
    int h = BoundaryBuffer.HEADER_SIZE;
    int s = BoundaryBuffer.SECTION_SIZE;
    assertArrayEquals(
        new int[] {1, h, 0, 4, 6, 8, 12, s, 0, 4, 8}, io.zkv.fs.ZoneFs.nativeBoundaryLayout(0));
  }

  @Test
  void zoneView() {
    assertArrayEquals(
        new int[] {
          VERSION,
          ZONE_SIZE,
          Z_START,
          Z_CAPACITY,
          Z_WRITE_POINTER,
          Z_LIVE,
          Z_COPY,
          Z_LIFETIME,
          Z_FLAGS,
          Z_TAG,
          Z_CLASS,
          Z_OWNER,
          FILE_SIZE,
          F_ID,
          F_LIFETIME,
          F_LEVEL,
          F_JOB,
          F_NAME,
          F_SMALLEST,
          F_LARGEST,
          ZONE_FILE_SIZE,
          ZF_FILE,
          ZF_LIVE,
          ZF_ZONE,
          REQUEST_SIZE,
          R_FILE,
          R_LIFETIME,
          R_PURPOSE,
          R_LEVEL,
          R_ACTIVE_LIMIT,
          R_JOB,
          R_NAME,
          R_SMALLEST,
          R_LARGEST,
          R_EXPECTED_SIZE,
          DECISION_SIZE,
          D_ACTION,
          D_ZONE,
          D_FINISH_COUNT,
          D_TAG,
          D_LIFETIME,
          D_FINISH,
          BYTES_SIZE,
          BYTES_OFFSET,
          BYTES_LENGTH,
          RESERVES_SIZE,
          RS_EMPTY_KEPT,
          RS_OP_ZONES
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(LAYOUT));
  }

  @Test
  void zoneStats() {
    // version 10: one record of 70 64-bit counters: the first field, the last named one, the
    // overrides by reason since mount and since format after it (one per PolicyOverride each),
    // then the six WAL counters (the first and the last), then GC's three (the first and last)
    // and its six since format, then the WAL reserve's six (the first and the last), then the
    // leases' three (the last)
    assertEquals(46, 24 + 2 * PolicyOverride.values().length);
    assertArrayEquals(
        new int[] {
          10, 70 * 8, 0, 23 * 8, 24 * 8, 35 * 8, 46 * 8, 51 * 8, 52 * 8, 54 * 8, 55 * 8, 61 * 8,
          66 * 8, 69 * 8
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(2));
  }

  @Test
  void metaStatusAndFileList() {
    assertArrayEquals(
        new int[] {
          1,
          ZoneFsInspector.MS_SIZE,
          ZoneFsInspector.MS_STATE,
          ZoneFsInspector.MS_SEQUENCE,
          ZoneFsInspector.MS_MESSAGE
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(ZoneFsInspector.META_STATUS_LAYOUT));
    assertArrayEquals(
        new int[] {
          1,
          ZoneFsInspector.FL_FILE_SIZE,
          ZoneFsInspector.FL_ID,
          ZoneFsInspector.FL_SIZE,
          ZoneFsInspector.FL_MTIME,
          ZoneFsInspector.FL_LIFETIME,
          ZoneFsInspector.FL_N_NAMES,
          ZoneFsInspector.FL_FIRST_NAME,
          ZoneFsInspector.FL_N_EXTENTS,
          ZoneFsInspector.FL_FIRST_EXTENT,
          ZoneFsInspector.FL_EXTENT_SIZE,
          ZoneFsInspector.FL_EXTENT_START,
          ZoneFsInspector.FL_EXTENT_LENGTH
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(ZoneFsInspector.FILE_LIST_LAYOUT));
  }

  @Test
  void pathUsage() {
    // version 1: one record of 4 64-bit counters (files, bytes, SST files, SST bytes)
    assertArrayEquals(new int[] {1, 4 * 8, 0, 8, 16, 24}, io.zkv.fs.ZoneFs.nativeBoundaryLayout(8));
  }

  @Test
  void superblockAndZoneUsage() {
    assertArrayEquals(
        new int[] {
          1,
          ZoneFsInspector.SB_SIZE,
          ZoneFsInspector.SB_VERSION,
          ZoneFsInspector.SB_FLAGS,
          ZoneFsInspector.SB_SEQUENCE,
          ZoneFsInspector.SB_BLOCK_SIZE,
          ZoneFsInspector.SB_ZONES,
          ZoneFsInspector.SB_ZONE_SIZE,
          ZoneFsInspector.SB_ZONE_CAPACITY,
          ZoneFsInspector.SB_META_ZONES,
          ZoneFsInspector.SB_FINISH_THRESHOLD,
          ZoneFsInspector.SB_UUID
        },
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(ZoneFsInspector.SUPERBLOCK_LAYOUT));
    assertArrayEquals(
        new int[] {ZoneFsInspector.ZONE_USAGE_VERSION, ZONE_SIZE},
        io.zkv.fs.ZoneFs.nativeBoundaryLayout(ZoneFsInspector.ZONE_USAGE_LAYOUT));
  }

  @Test
  void unknownLayoutsAreReportedAsSuch() {
    assertNull(io.zkv.fs.ZoneFs.nativeBoundaryLayout(99));
  }
}
