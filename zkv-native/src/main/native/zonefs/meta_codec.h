/* On-disk codec of the zone file system's metadata: the superblock and the metadata-log records
 * (docs/formats/zone-fs.md is the one place that documents the layout). Pure functions over byte
 * buffers with bounds checks on every field: a corrupt or truncated input gives an error code and
 * a message, never a crash. */
#ifndef ZKV_META_CODEC_H
#define ZKV_META_CODEC_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 added the FILE_EXTEND record, version 3 sparse files (chunked data, the FILE_ACTIVE
 * record); an older log is a valid newer log, and a mount (which rolls the log) upgrades it. */
#define ZFS_FORMAT_VERSION 8u
#define ZFS_OLDEST_FORMAT_VERSION 1u
#define ZFS_SUPERBLOCK_SIZE 4096u
#define ZFS_RECORD_HEADER 24u
#define ZFS_MAX_NAME 4096u
#define ZFS_NO_ACTIVE_EXTENT UINT64_MAX

typedef struct zfs_superblock {
  uint32_t version;
  uint32_t flags;
  uint64_t sequence; /* higher wins at mount */
  uint8_t uuid[16];
  uint32_t block_size;
  uint32_t nr_zones;
  uint64_t zone_size, zone_cap;
  uint32_t meta_zones;       /* the first meta_zones zones hold superblock + log */
  uint32_t finish_threshold; /* percent */
} zfs_superblock;

enum zfs_record_type {
  ZFS_REC_SNAPSHOT = 1,    /* the complete file table; starts every meta zone after its superblock */
  ZFS_REC_FILE_UPDATE = 2, /* one file's complete metadata, replacing what was known */
  ZFS_REC_FILE_DELETE = 3,
  ZFS_REC_END = 4,              /* the log was closed by a clean unmount: nothing follows */
  ZFS_REC_FILE_EXTEND = 5,      /* a sync: a file's new size and the extents it gained since its last record */
  ZFS_REC_FILE_ACTIVE = 6,      /* a file extend that also sets where the file's unrecorded chunks start */
  ZFS_REC_ZONE_LABELS = 7,      /* labels a placement policy gave zones: count, then (zone, tag, lifetime) */
  ZFS_REC_POLICY_COUNTS = 8,    /* placement decisions, fallbacks, steals since format (3 x u64), then
                                   the overrides by reason (ZFS_OVERRIDES x u64, since version 5), then
                                   GC's counters (6 x u64, zfs_stats.gc_totals, since version 6) */
  ZFS_REC_ZONE_LEASES = 9,      /* leased zones (version 7): count, then (zone u32, 0 u32, owner u64);
                                   owner 0: the lease was returned; read, no longer written */
  ZFS_REC_ZONE_LEASE_KEYS = 10, /* leased zones with their keys (since version 8): count, then (zone u32,
                                   0 u32, owner u64, key 2 x u64); owner 0: returned */
};

/* Bytes of one entry of a ZONE_LEASE_KEYS record (a ZONE_LEASES entry: 16). */
#define ZFS_LEASE_ENTRY 32u

/* File flags. */
#define ZFS_FILE_SPARSE 0x1u /* data in self-describing chunks; syncs write no metadata */

/* Decode results (negative). */
enum zfs_decode_status {
  ZFS_EMPTY = -1,   /* unwritten space: the log ends here */
  ZFS_TORN = -2,    /* a record that was cut short or whose checksum fails: a torn tail if nothing valid follows */
  ZFS_CORRUPT = -3, /* structurally wrong (bad magic, impossible length, bad field) */
  ZFS_UNSUPPORTED = -4,
};

typedef struct zfs_extent {
  uint64_t start; /* device byte offset */
  uint64_t len;
} zfs_extent;

typedef struct zfs_file_meta {
  uint64_t id;
  uint64_t size;
  uint64_t mtime;
  uint64_t active_extent_start; /* ZFS_NO_ACTIVE_EXTENT or where unsynced data may follow */
  uint32_t lifetime;            /* RocksDB write-lifetime hint */
  uint32_t flags;
  uint32_t n_names;
  char **names; /* the file's links, NUL-terminated */
  uint32_t n_extents;
  zfs_extent *extents;
} zfs_file_meta;

typedef struct zfs_record {
  uint16_t type;
  uint64_t seq;
  const uint8_t *payload;
  uint32_t len;
} zfs_record;

int zfs_superblock_encode(const zfs_superblock *sb, uint8_t *out, size_t cap);
int zfs_superblock_decode(const uint8_t *in, size_t len, zfs_superblock *sb, char *err, size_t errlen);

/* Whether n bytes are all zero (unwritten space). */
int zfs_all_zero(const uint8_t *p, size_t n);
/* Bytes a record of `payload_len` takes once padded to `block`. */
size_t zfs_record_size(uint32_t payload_len, uint32_t block);
/* Writes header + payload + zero padding; returns the padded size or a negative error. */
int64_t zfs_record_encode(uint16_t type, uint64_t seq, const uint8_t *payload, uint32_t len, uint32_t block,
                          uint8_t *out, size_t cap);
/* Parses one record at `in`; returns the padded size consumed (> 0) or a zfs_decode_status. */
int64_t zfs_record_decode(const uint8_t *in, size_t avail, uint32_t block, zfs_record *rec, char *err, size_t errlen);

/* File metadata payloads (FILE_UPDATE, and the entries of a SNAPSHOT). */
size_t zfs_file_encoded_size(const zfs_file_meta *f);
int64_t zfs_file_encode(const zfs_file_meta *f, uint8_t *out, size_t cap);
/* Decodes one file at in[0..len); allocates names/extents (free with zfs_file_free). Returns the
 * bytes consumed or ZFS_CORRUPT. */
int64_t zfs_file_decode(const uint8_t *in, size_t len, zfs_file_meta *f, char *err, size_t errlen);
void zfs_file_free(zfs_file_meta *f);

/* FILE_EXTEND payload: what a sync changed, in constant size whatever the file's history. The
 * file's extents from index `first` on are replaced by `extents` (the last extent already known
 * may have grown, and new ones follow it). */
typedef struct zfs_file_extend {
  uint64_t id;
  uint64_t size;
  uint64_t mtime;
  uint32_t lifetime;
  uint32_t first;
  uint32_t n_extents;
  zfs_extent *extents;
} zfs_file_extend;
size_t zfs_extend_encoded_size(uint32_t n_extents);
int64_t zfs_extend_encode(const zfs_file_extend *x, uint8_t *out, size_t cap);
/* Decodes a FILE_EXTEND payload; allocates x->extents (free() it). Returns 0 or ZFS_CORRUPT. */
int zfs_extend_decode(const uint8_t *in, size_t len, zfs_file_extend *x, char *err, size_t errlen);

/* FILE_ACTIVE payload: u64 active extent start, then a FILE_EXTEND payload. */
size_t zfs_active_encoded_size(uint32_t n_extents);
int64_t zfs_active_encode(uint64_t active_extent_start, const zfs_file_extend *x, uint8_t *out, size_t cap);
int zfs_active_decode(const uint8_t *in, size_t len, uint64_t *active_extent_start, zfs_file_extend *x, char *err,
                      size_t errlen);

/* The header of a sparse file's chunk of data (a write-out: header, data, zero padding to the
 * block): which file's bytes, where in the file, how many, and checksums, so that a mount finds
 * the synced data after a file's last record by reading the device. */
#define ZFS_CHUNK_HEADER 32u
typedef struct zfs_chunk {
  uint64_t file_id;
  uint64_t offset; /* the logical file offset of its first data byte */
  uint32_t len;    /* data bytes that follow the header (> 0) */
  uint32_t data_crc;
} zfs_chunk;
void zfs_chunk_encode(const zfs_chunk *c, uint8_t out[ZFS_CHUNK_HEADER]);
/* 0, or ZFS_CORRUPT when `in` holds no valid chunk header. */
int zfs_chunk_decode(const uint8_t *in, size_t avail, zfs_chunk *c);
uint32_t zfs_chunk_data_crc(const void *data, size_t len);

/* SNAPSHOT payload: u64 next_file_id, u32 count, then `count` encoded files. */
int zfs_snapshot_header_decode(const uint8_t *in, size_t len, uint64_t *next_file_id, uint32_t *count);

#ifdef __cplusplus
}
#endif
#endif
