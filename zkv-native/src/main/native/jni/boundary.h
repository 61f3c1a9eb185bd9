/* The typed native boundary: what native code hands Java (and Java answers) in one direct buffer,
 * laid out as the records below. The one place that defines the layouts; the Java flyweights
 * (io.zkv.nativelib.Boundary and its readers) must agree, which NativeBoundaryLayoutTest checks
 * against zkv_boundary_layout. Documented in docs/formats/native-boundary.md.
 *
 * A buffer: a header, a section table, then the sections. Host byte order (the buffer never
 * leaves the process). Each layout has a version; a change of any record bumps it, and Java
 * refuses a buffer whose magic, layout, version, length or record sizes it does not expect. */
#ifndef ZKV_BOUNDARY_H
#define ZKV_BOUNDARY_H
#include <stddef.h>
#include <stdint.h>

#include "zonefs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZKV_BOUNDARY_MAGIC 0x42564B5Au /* "ZKVB" */

typedef struct zkv_bnd_header {
  uint32_t magic;
  uint16_t layout;  /* enum zkv_bnd_layout */
  uint16_t version; /* of that layout */
  uint32_t length;  /* bytes of the whole buffer */
  uint32_t sections;
} zkv_bnd_header;

typedef struct zkv_bnd_section {
  uint32_t offset; /* from the buffer's start, 8-byte aligned */
  uint32_t record_size;
  uint32_t count;
  uint32_t reserved;
} zkv_bnd_section;

enum zkv_bnd_layout {
  ZKV_BND_ZONE_VIEW = 1,        /* the placement and victim call-outs' view, request and decision */
  ZKV_BND_ZONE_STATS = 2,       /* the zone file system's counters */
  ZKV_BND_SUPERBLOCK = 3,       /* the superblock a mount uses (zkv fsck, zkv df) */
  ZKV_BND_ZONE_USAGE = 4,       /* every zone as the file system sees it (zkv df, zkv zones) */
  ZKV_BND_DEVICE_GEOMETRY = 5,  /* a device's geometry (zkv_geometry) */
  ZKV_BND_ZONE_REPORT = 6,      /* a device's zone report (zkv_zone records) */
  ZKV_BND_DEVICE_STATS = 7,     /* a device's counters (zkv_dev_stats) */
  ZKV_BND_PATH_USAGE = 8,       /* the files under one path (a database's directory) */
  ZKV_BND_EMU_PLM_STATS = 9,    /* an emulated PLM device's NVM Set (zkv_emu_plm_stats) */
  ZKV_BND_PLM_ARRAY_STATS = 10, /* a plmarray: device's NVM Set (zkv_plm_array_stats) */
  ZKV_BND_HOST_LATENESS = 11,   /* the emulator's completions and how late the host saw them */
  ZKV_BND_META_STATUS = 12,     /* what one metadata zone holds (zkv fsck) */
  ZKV_BND_FILE_LIST = 13        /* every file: names, sizes, extents (zkv ls, zkv dump) */
};

/* Layouts 5-7 and 9-11: one section of the device API's own structs (zkv/device.h), which are
 * fixed-width and padding-free: the boundary records are those structs. The geometry (5) is at
 * version 2 (flags and meta_class_zones added), the others at version 1. Java writes a geometry
 * (layout 5) for EmulatedDevice.format; every other crossing is native to Java. */
#define ZKV_DEVICE_LAYOUT_VERSION 1
#define ZKV_GEOMETRY_LAYOUT_VERSION 2

/* ZKV_BND_ZONE_VIEW, version 3 (version 1 had no zone class, zone owner or expected size, version
 * 2 no reserves section): the sections in this order. */
enum zkv_bnd_zone_view_section {
  ZKV_VIEW_ZONES = 0,      /* zkv_bnd_zone, one per zone of the device */
  ZKV_VIEW_FILES = 1,      /* zkv_bnd_file, every file with live data, then the requesting file */
  ZKV_VIEW_ZONE_FILES = 2, /* zkv_bnd_zone_file: live bytes of a file in a zone */
  ZKV_VIEW_INPUTS = 3,     /* uint64_t: file ids of the request's compaction inputs */
  ZKV_VIEW_REQUEST = 4,    /* zkv_bnd_request: one for an allocation, none for a victim choice */
  ZKV_VIEW_DECISION = 5,   /* zkv_bnd_decision: one, written by Java (allocation only) */
  ZKV_VIEW_BYTES = 6,      /* record size 1: file names and keys, referenced by offset/length */
  ZKV_VIEW_RESERVES = 7,   /* zkv_bnd_reserves: one */
  ZKV_VIEW_SECTIONS = 8
};
#define ZKV_VIEW_VERSION 5

/* The empty zones the file system keeps back (zfs_view.empty_kept, zfs_view.op_zones). */
typedef struct zkv_bnd_reserves {
  uint32_t empty_kept; /* empty zones the writer the view is for may not start */
  uint32_t op_zones;   /* the over-provisioning reserve, kept for GC's copies */
} zkv_bnd_reserves;

#define ZKV_ZONE_META 1u
#define ZKV_ZONE_BUSY 2u
#define ZKV_ZONE_VICTIM_OK 4u
#define ZKV_ZONE_WAL_RESERVED 8u /* kept empty for a WAL's next zone (zfs_set_wal_reserve); busy too */
#define ZKV_ZONE_LEASED 16u      /* leased to an owner's appends (zfs_lease_zone; since view 5, usage 4); busy too */

typedef struct zkv_bnd_zone {
  uint64_t start, capacity, write_pointer; /* device bytes */
  uint64_t live;                           /* bytes of live file data */
  uint64_t copy;                           /* bytes GC would copy to empty it (sync padding included) */
  uint32_t lifetime;                       /* RocksDB write-lifetime hint of its data */
  uint32_t flags;                          /* ZKV_ZONE_* */
  int32_t tag;                             /* the placement policy's tag, -1 none */
  uint32_t io_class;                       /* ZKV_CLASS_* its writes carry, NONE (0) unknown */
  uint64_t owner_file;                     /* id of the file whose writer holds it, UINT64_MAX none */
} zkv_bnd_zone;

/* A zone as the file system sees it, as a boundary record (the zone view, the zone usage). */
void zkv_boundary_zone(const zfs_zone_info *z, zkv_bnd_zone *out);

/* Bytes: an offset into the ZKV_VIEW_BYTES section and a length, -1 for absent. */
typedef struct zkv_bnd_bytes {
  uint32_t offset;
  int32_t length;
} zkv_bnd_bytes;

typedef struct zkv_bnd_file {
  uint64_t id;
  uint32_t lifetime;
  int32_t level;  /* -1 unknown */
  int64_t job_id; /* -1 unknown */
  zkv_bnd_bytes name, smallest, largest;
} zkv_bnd_file;

typedef struct zkv_bnd_zone_file {
  uint64_t file_id;
  uint64_t live;
  uint32_t zone;
  uint32_t reserved;
} zkv_bnd_zone_file;

/* Why a request asks for a zone: a file's write, GC's migration, the WAL reserve's fill (view
 * version 4; version 3 had 1 for GC and 0 otherwise). */
enum { ZKV_PURPOSE_FILE_WRITE = 0, ZKV_PURPOSE_GC_MIGRATION = 1, ZKV_PURPOSE_WAL_RESERVE = 2 };
typedef struct zkv_bnd_request {
  uint64_t file_id;
  uint32_t lifetime;
  uint32_t purpose; /* ZKV_PURPOSE_* */
  int32_t level;    /* -1 unknown */
  uint32_t active_limit;
  int64_t job_id; /* -1 unknown */
  zkv_bnd_bytes name, smallest, largest;
  uint64_t expected_size; /* bytes the writer is about to write (zfs_alloc_request) */
} zkv_bnd_request;

#define ZKV_BND_MAX_FINISH 16
typedef struct zkv_bnd_decision {
  int32_t action; /* enum zfs_alloc_action */
  uint32_t zone;
  uint32_t n_finish;
  int32_t tag;      /* with an empty zone: its tag, -1 none */
  int32_t lifetime; /* with an empty zone: its write lifetime, -1 for the request's */
  uint32_t reserved;
  uint32_t finish[ZKV_BND_MAX_FINISH];
} zkv_bnd_decision;

/* ZKV_BND_ZONE_STATS, version 9: one section of one record, zfs_stats widened to 64 bits, the
 * overrides by reason since mount and since format, each in enum zfs_override's order, then ZWAL's
 * and the mount's WAL counters, then GC's, then the WAL reserve's (version 2 had no device_errors,
 * version 3 no reserve_refusals, version 4 no stale_decisions, version 5 no overrides, version 6
 * none of the WAL counters, version 7 none of GC's, version 8 none of the WAL reserve's, version 9
 * none of the leases'). */
#define ZKV_STATS_VERSION 10
typedef struct zkv_bnd_zone_stats {
  uint64_t host_bytes, padding_bytes, gc_bytes, meta_bytes, resets, resets_without_copy, meta_rolls, live_bytes,
      used_zone_bytes, files, data_zones, empty_zones, full_zones, open_zones, owned_zones, policy_decisions,
      fallback_allocations, zone_steals, policy_decisions_total, fallback_allocations_total, zone_steals_total,
      device_errors, reserve_refusals, stale_decisions;
  uint64_t overrides[ZFS_OVERRIDES], overrides_total[ZFS_OVERRIDES];
  uint64_t zwal_idle_reaps, wal_zone_finishes, mount_chunk_scan_ns, mount_chunks, mount_chunk_bytes, mount_chunk_reads;
  uint64_t gc_runs, gc_zones, zone_finishes;
  uint64_t gc_totals[6]; /* zfs_stats.gc_totals */
  uint64_t wal_zone_switches, wal_zone_waits, wal_zone_wait_max_ns, wal_reserve_returns, wal_reserve_declined,
      wal_reserved_zones;
  uint64_t lease_collections, gc_rounds_for_room, lease_waits;
} zkv_bnd_zone_stats;

/* zfs_stats as a zkv_bnd_zone_stats record. */
void zkv_boundary_zone_stats(const zfs_stats *s, zkv_bnd_zone_stats *out);

/* ZKV_BND_SUPERBLOCK, version 1: one section of one record. */
#define ZKV_SUPERBLOCK_VERSION 1
typedef struct zkv_bnd_superblock {
  uint32_t version, flags;
  uint64_t sequence;
  uint32_t block_size, nr_zones;
  uint64_t zone_size, zone_cap;
  uint32_t meta_zones, finish_threshold;
  uint8_t uuid[16];
} zkv_bnd_superblock;

/* ZKV_BND_ZONE_USAGE, version 3: one section, a zkv_bnd_zone per zone (version 2: no WAL reserve flag; version 1: the
 * zone record of view version 1). */
#define ZKV_ZONE_USAGE_VERSION 4

/* ZKV_BND_PATH_USAGE, version 1: one section of one record: the names under a path prefix and
 * their bytes, all and those of SST files (".sst"). A file with two names under it counts twice. */
#define ZKV_PATH_USAGE_VERSION 1
typedef struct zkv_bnd_path_usage {
  uint64_t files, bytes, sst_files, sst_bytes;
} zkv_bnd_path_usage;

/* Usage of the names starting with `prefix`. */
int zkv_boundary_path_usage(zfs *fs, const char *prefix, zkv_bnd_path_usage *out);

/* The layout as Java checks it: version, then per record type of the layout its size and the
 * offsets of its fields in declaration order. Returns the number of ints written (at most cap),
 * or -1 for an unknown layout. */
int zkv_boundary_layout(int layout, int32_t *out, int cap);

/* Writes a buffer of one section holding `count` records of `size` bytes into dst, returns its
 * length or -ENOBUFS; the records are then at zkv_boundary_records(dst). */
int zkv_boundary_write_section(void *dst, size_t cap, int layout, int version, uint32_t size, uint32_t count);
void *zkv_boundary_records(void *dst);

/* Sets the record count of section 0 (at most the count it was written with) and the buffer's
 * length to match. */
void zkv_boundary_set_count(void *dst, uint32_t count);

/* ZKV_BND_META_STATUS, version 1: one record. */
#define ZKV_META_STATUS_VERSION 1
typedef struct zkv_bnd_meta_status {
  uint32_t state; /* enum zfs_meta_state */
  uint32_t reserved;
  uint64_t sequence;
  char message[256]; /* NUL-terminated */
} zkv_bnd_meta_status;

/* ZKV_BND_FILE_LIST, version 1: the sections in this order. */
enum zkv_bnd_file_list_section {
  ZKV_LIST_FILES = 0,   /* zkv_bnd_fs_file, one per file */
  ZKV_LIST_NAMES = 1,   /* zkv_bnd_bytes into ZKV_LIST_BYTES: every file's names, file by file */
  ZKV_LIST_EXTENTS = 2, /* zkv_bnd_extent: every file's extents, file by file */
  ZKV_LIST_BYTES = 3,   /* record size 1: the names' bytes */
  ZKV_LIST_SECTIONS = 4
};
#define ZKV_FILE_LIST_VERSION 1
typedef struct zkv_bnd_fs_file {
  uint64_t id, size, mtime; /* mtime: microseconds since the epoch */
  uint32_t lifetime, n_names;
  uint32_t first_name, n_extents; /* its names from first_name in ZKV_LIST_NAMES */
  uint64_t first_extent;          /* its extents from here in ZKV_LIST_EXTENTS */
} zkv_bnd_fs_file;
typedef struct zkv_bnd_extent {
  uint64_t start, length;
} zkv_bnd_extent;

/* The length of a buffer of `n` sections of these record sizes and counts. */
size_t zkv_boundary_sections_size(uint32_t n, const uint32_t *sizes, const uint32_t *counts);
/* Lays such a buffer out at dst (records zeroed): its length, or -ENOBUFS when `cap` is short.
 * zkv_boundary_section: section i's first record. */
int zkv_boundary_write_sections(void *dst, size_t cap, int layout, int version, uint32_t n, const uint32_t *sizes,
                                const uint32_t *counts);
void *zkv_boundary_section(void *dst, uint32_t i);

/* zkv_boundary_write_section of one record, copied from `record`. */
int zkv_boundary_write_single(void *dst, size_t cap, int layout, int version, const void *record, uint32_t size);
/* The one record of a buffer Java wrote (`cap` bytes at src), after checking it as Java's wrap
 * checks what native code writes: magic, layout, version, length, one section of one record of
 * `size` bytes at the first record's place. NULL if any of it disagrees. */
const void *zkv_boundary_read_single(const void *src, size_t cap, int layout, int version, uint32_t size);

#ifdef __cplusplus
}
#endif
#endif
