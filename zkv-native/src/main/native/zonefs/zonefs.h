/* zkv's zone file system core (the role ZenFS plays for C++ RocksDB): files are lists of extents
 * in zones; metadata lives in a rolling, checksummed log in the first zones (format:
 * docs/formats/zone-fs.md). Thread-safe: one mutex guards the file table and zones; data I/O
 * and the placement, victim and GC-trigger policies run outside it. The RocksDB FileSystem (rocks/) and the Java side
 * sit on top of this API. */
#ifndef ZKV_ZONEFS_H
#define ZKV_ZONEFS_H
#include <stddef.h>
#include <stdint.h>

#include "zkv/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zfs zfs;
typedef struct zfs_file zfs_file;

typedef struct zfs_options {
  uint32_t meta_zones;       /* default 3 */
  uint32_t finish_threshold; /* percent, default 0 */
} zfs_options;

/* Why the file system overrode a policy: the safety rule decided instead (zone_alloc.c, gc.c). The
 * file system itself chooses nothing by lifetime or garbage: placement, victims and when to collect
 * are the policies'; the safety rule only keeps the file system going (never NoSpace while a zone
 * has room, the reserves kept), an empty zone first. */
enum zfs_override {
  ZFS_OVERRIDE_NO_POLICY = 0,        /* allocation: no placement policy installed (or removed: JVM exit) */
  ZFS_OVERRIDE_POLICY_FAILED = 1,    /* allocation: the policy failed (threw, could not be called) */
  ZFS_OVERRIDE_INVALID = 2,          /* allocation: a decision its own view forbids (a policy bug) */
  ZFS_OVERRIDE_STALE = 3,            /* allocation: decisions went stale MAX_STALE_DECISIONS times */
  ZFS_OVERRIDE_NO_SPACE = 4,         /* allocation: NoSpace, or NeedGc with nothing to collect, while a
                                        zone has room (or a NeedGc for GC's own copies) */
  ZFS_OVERRIDE_RESERVE = 5,          /* allocation: an empty zone the reserves keep from this writer */
  ZFS_OVERRIDE_CLASS = 6,            /* allocation: a zone bound to another I/O class */
  ZFS_OVERRIDE_VICTIM_NO_POLICY = 7, /* GC victim: no victim policy installed */
  ZFS_OVERRIDE_VICTIM_FAILED = 8,    /* GC victim: the policy failed, or chose a zone its view forbids */
  ZFS_OVERRIDE_VICTIM_CLASS = 9,     /* GC victim: one whose room the writer it runs for cannot use */
  ZFS_OVERRIDE_TRIGGER_FAILED = 10,  /* GC trigger: failed, the round was skipped */
  ZFS_OVERRIDES = 11
};
/* The allocation reasons: those fallback_allocations sums. */
#define ZFS_OVERRIDE_ALLOCATION_REASONS 7

typedef struct zfs_stats {
  uint64_t host_bytes;    /* file data written for the host (RocksDB) */
  uint64_t padding_bytes; /* block padding written by syncs of partial blocks */
  uint64_t gc_bytes;      /* data copied by garbage collection */
  uint64_t meta_bytes;    /* metadata log bytes */
  uint64_t resets, resets_without_copy, meta_rolls;
  uint64_t live_bytes;      /* bytes of live file data */
  uint64_t used_zone_bytes; /* bytes below the write pointer of data zones */
  uint32_t files, data_zones, empty_zones, full_zones, open_zones;
  uint32_t owned_zones; /* zones writers hold now (open tokens in use) */
  /* How zone allocation went: decisions the placement policy made; the file system's overrides of
   * them (zone_alloc.c's safety rule): allocations it decided itself (the sum of the allocation
   * reasons in `overrides`), and zones it took from idle owners. */
  uint64_t policy_decisions, fallback_allocations, zone_steals;
  /* The same three since the file system was formatted, as of the metadata log: the counts of
   * earlier mounts are recorded at every log roll and clean unmount (a crash loses those since). */
  uint64_t policy_decisions_total, fallback_allocations_total, zone_steals_total;
  uint64_t device_errors; /* the device's zkv_dev_stats.errors: failures it returned to any caller */
  /* Zones refused to a writer because its tier of the space reserve was reached (zone_alloc.c,
   * within_space_reserve): the NoSpace answers that keep room for what frees space. Since mount. */
  uint64_t reserve_refusals;
  /* Policy decisions (placements and victims) made on a view that changed before they could be
   * committed (another writer took the zone, the victim's data was deleted), so the policy was
   * asked again on a fresh view: the price of calling policies without the file system's lock. */
  uint64_t stale_decisions;
  /* Every override of a policy since mount, by reason (enum zfs_override), and since format (as
   * the three totals above: the metadata log's count). */
  uint64_t overrides[ZFS_OVERRIDES];
  uint64_t overrides_total[ZFS_OVERRIDES];
  /* ZWAL: an idle WAL's appends in flight that a writer waiting for a zone reaped for it
   * (zwal.c, zwal_reap_idle), so that the WAL's zone could be given up. Since mount. */
  uint64_t zwal_idle_reaps;
  /* ZWAL mode: WAL zones finished when their WAL gave them up partly written (closed, or taken by
   * the idle-owner rule), since no other file may continue them (zone_alloc.c, release_zone). */
  uint64_t wal_zone_finishes;
  /* This mount's scan for WAL chunks written after their files' last records (mount step 3): its
   * wall time, the chunks it decoded, the bytes it added to files, and its device reads (it reads
   * ahead up to 1 MiB at a time). */
  uint64_t mount_chunk_scan_ns, mount_chunks, mount_chunk_bytes, mount_chunk_reads;
  /* Garbage collection since mount: runs (a writer's collection when it found no room, a
   * zfs_reclaim call, or a spell of background rounds that collected one after another: CAZA's
   * "zone cleaning" invocations), the zones it emptied (resets says which needed no copy), and
   * every zone the file system finished (a policy's finish, a WAL zone given up, a metadata log
   * zone left behind). */
  uint64_t gc_runs, gc_zones, zone_finishes;
  /* The same GC counters since the file system was formatted, with GC's copied bytes and the
   * resets, as of the metadata log (like policy_decisions_total): zfs_gc_totals' order. */
  uint64_t gc_totals[6];
  /* WAL zones since mount (zfs_set_wal_reserve): zones WALs took from the reserve (a switch under
   * the lock, no policy call), zones WALs took any other way (the policy's or the safety rule's
   * answer on the put path; counted with the reserve off too, as the baseline), and the longest of
   * those takes, from the writer's entry into the allocation to its zone (lock waits, policy
   * calls, GC included); reserved zones given back to writers that found no other, and fills of
   * the reserve that found no zone; wal_reserved_zones: zones reserved now. */
  uint64_t wal_zone_switches, wal_zone_waits, wal_zone_wait_max_ns, wal_reserve_returns, wal_reserve_declined;
  uint32_t wal_reserved_zones;
  /* Leased zones (zfs_lease_zone) since mount: collections a lease ran itself because no empty zone
   * was free for it, and background GC rounds that collected for the leases' room although the GC
   * trigger did not ask (gc_wake_for_room: the trigger measures free space as ZenFS does, room in
   * partly written zones included, which a lease cannot use); and the leases' 10 ms waits for a
   * writer to release an active token (room there was, a token not). */
  uint64_t lease_collections, gc_rounds_for_room, lease_waits;
} zfs_stats;
/* zfs_stats.gc_totals: runs, zones emptied, bytes copied, resets, resets without copy, finishes. */
enum { ZFS_GC_RUNS, ZFS_GC_ZONES, ZFS_GC_BYTES, ZFS_GC_RESETS, ZFS_GC_RESETS_WITHOUT_COPY, ZFS_GC_FINISHES };

#define ZFS_MOUNT_READONLY 1
#define ZFS_MAX_META_ZONES 8

enum zfs_meta_state { ZFS_META_EMPTY = 0, ZFS_META_VALID = 1, ZFS_META_CORRUPT = 2 };
typedef struct zfs_meta_status {
  int state;
  uint64_t sequence;
  char message[256];
} zfs_meta_status;

typedef struct zfs_zone_info {
  uint32_t index;
  uint64_t start, capacity, wp, live;
  uint32_t lifetime;
  int meta;
  int busy;      /* held: a writer owns it, a write or GC is under way in it, or the WAL reserve keeps it */
  uint64_t copy; /* bytes GC would copy to empty it: the blocks its live data occupies */
  int victim_ok; /* GC may take it now: a full data zone, not busy, holding some garbage */
  int32_t tag;   /* the tag the placement policy gave the zone when it opened it, -1 for none */
  /* The I/O class the device binds the zone to (ZKV_CLASS_*, on a device whose zones serve one
   * class, ZKV_GEO_CLASS_BOUND_ZONES; NONE while empty and on other devices), and the id of the
   * file whose writer holds it (ZFS_NO_OWNER for none). */
  uint32_t io_class;
  uint64_t owner_file;
  int wal_reserved; /* kept empty for a WAL's next zone (zfs_set_wal_reserve); busy too */
  int leased;       /* leased to an owner (zfs_lease_zone): its own appends, no file's data; busy too */
} zfs_zone_info;
#define ZFS_NO_OWNER UINT64_MAX

/* A zone allocation decision, asked of an external placement policy (the Java SPI) at every
 * allocation: which zone, and which zones to finish first. */
enum zfs_alloc_action {
  ZFS_ALLOC_USE = 1,        /* write into `zone` (partially written, not held) */
  ZFS_ALLOC_OPEN_EMPTY = 2, /* start the empty `zone` */
  ZFS_ALLOC_WAIT = 3,       /* wait for a writer to release a zone (no open or active token free) */
  ZFS_ALLOC_NEED_GC = 4,    /* reclaim space first */
  ZFS_ALLOC_NO_SPACE = 5,
};
#define ZFS_ALLOC_MAX_FINISH 16
#define ZFS_REQUEST_HEAD 1024u
typedef struct zfs_alloc_request {
  uint64_t file_id;
  const char *file_name;
  uint32_t lifetime;
  int for_gc;
  /* Not a writer's request: the WAL reserve's thread asks for an empty zone to keep for the WAL's
   * next zone (zfs_set_wal_reserve); file_id, file_name and lifetime are those of the WAL that last
   * took a zone. Only an empty zone (ZFS_ALLOC_OPEN_EMPTY, its finishes carried out) is kept; any
   * other answer keeps none, without an override. */
  int for_wal_reserve;
  /* Bytes the writer is about to write (the rest of its buffer's write-out, or of the extent GC
   * moves); more may follow in the same zone while it has room. */
  uint64_t expected_size;
  /* The file's first bytes (up to ZFS_REQUEST_HEAD) when none of it is on the device yet: its first
   * write-out is asking; head_len 0 otherwise. (The RocksDB layer reads a new SST's first key from
   * them: rocks/sst_first_key.h.) */
  uint32_t head_len;
  uint8_t head[ZFS_REQUEST_HEAD];
} zfs_alloc_request;
typedef struct zfs_alloc_decision {
  int action;
  uint32_t zone;
  uint32_t n_finish;
  uint32_t finish[ZFS_ALLOC_MAX_FINISH];
  /* With ZFS_ALLOC_OPEN_EMPTY, the zone's labels, kept (and persisted) until its reset: the
   * policy's tag, and a lifetime other than the request's. */
  int has_tag;
  int32_t tag;
  int has_lifetime;
  uint32_t lifetime;
} zfs_alloc_decision;
/* What a policy decides on: a snapshot of the zones and of which file has how much where, taken
 * under the file system's lock and handed to the call-out without any file system lock held, so
 * that a policy, however slow, delays only the writer that asked (zonefs/decisions.c). Valid for
 * the call only. The file system checks a decision against the state of the moment it commits it;
 * one made on a view that went stale meanwhile is asked again (stats: stale_decisions). */
typedef struct zfs_zone_file {
  uint64_t file_id;
  const char *name; /* the file's first name, "" for a file deleted while a handle is open */
  uint32_t lifetime;
  uint32_t zone;
  uint64_t live;
} zfs_zone_file;
typedef struct zfs_view {
  const zfs_zone_info *zones;
  uint32_t n_zones;
  uint32_t active_limit; /* data zones that may be partially written at once, 0 = no limit */
  /* Empty zones the file system keeps from the writer the view was taken for (for a victim choice
   * or a GC trigger: from an SST writer): it may start an empty zone only while more than these are
   * left. Its reserves (GC's and the metadata files') and the over-provisioning reserve,
   * zfs_set_op_zones; on a device whose zones serve one class, counted in the non-WAL share. */
  uint32_t empty_kept;
  uint32_t op_zones; /* the over-provisioning reserve (zfs_set_op_zones) */
  /* Which file has how many live bytes in which zone: one entry per file and zone it occupies, in
   * file order (a file whose extents leave a zone and come back may be listed twice for it; the
   * bytes add up). Names point into the view. */
  const zfs_zone_file *files;
  size_t n_files;
} zfs_view;
/* Returns 0 with *out filled, or a negative code (the safety rule then decides, counted as
 * ZFS_OVERRIDE_POLICY_FAILED). Called with no file system lock held, possibly from several threads
 * at once; it may block, and it may call into the file system (any thread's writes go on
 * meanwhile), but it must not install or remove a policy. */
typedef int (*zfs_allocator)(void *ctx, const zfs_alloc_request *req, const zfs_view *view, zfs_alloc_decision *out);

/* GC victim choice by an external policy (the Java SPI), asked once per zone to collect (never per
 * write): returns 0 with *victim set, -ENOSPC when no zone should be collected, or another negative
 * code (the safety rule then chooses, counted). A victim whose victim_ok is clear in the view is
 * not collected: a full zone nobody writes declines this collection; a zone within the
 * collection's bound whose room the asking writer cannot use (a WAL zone for SST data where zones
 * serve one class), or any other zone the view forbids, is replaced by the safety rule's choice
 * (counted). A victim valid in the view but not any more (its data deleted meanwhile) is asked
 * again. Called like the allocator, without the file system's lock, from a writer, the background
 * GC thread or zfs_reclaim (one collection at a time). */
typedef int (*zfs_victim_chooser)(void *ctx, const zfs_view *view, uint32_t *victim);
/* The background GC's trigger: asked at each of the GC thread's rounds (every 100 ms), never per
 * write, without the file system's lock. Sets *max_live to the most live bytes a full zone may
 * hold to be collected this round, 0 for no collection now. Without one, no background GC runs:
 * only a writer that finds no room (and zfs_reclaim) collects. */
typedef int (*zfs_gc_trigger)(void *ctx, const zfs_view *view, uint64_t *max_live);

/* Formats the device: resets every zone, writes a superblock and an empty snapshot. */
int zfs_mkfs(zkv_dev *dev, const zfs_options *opt, char *err, size_t errlen);
/* Mounts: picks the newest valid superblock, replays the log, resets zones with no live data.
 * Returns NULL with *rc < 0 and a message on a foreign, corrupt or unformatted device. */
zfs *zfs_mount(zkv_dev *dev, int *rc, char *err, size_t errlen);
/* Starts background garbage collection (idempotent; -EROFS on a read-only mount): rounds of the
 * installed GC trigger. A mount does not start it: install the policies first, so that GC never
 * runs under the safety rule of a file system whose policies are about to be set. */
int zfs_start_gc(zfs *fs);
/* Install the policies (NULL removes one: the safety rule decides allocations and victims, counted
 * as overrides, and no background GC runs). Each returns once no call-out of the file system is
 * under way any more, so the previous policy's context may be freed then. Never call them from a
 * call-out (it would wait for itself). */
void zfs_set_allocator(zfs *fs, zfs_allocator fn, void *ctx);
void zfs_set_victim_chooser(zfs *fs, zfs_victim_chooser fn, void *ctx);
void zfs_set_gc_trigger(zfs *fs, zfs_gc_trigger fn, void *ctx);
/* Mount with flags: ZFS_MOUNT_READONLY inspects without changing the device (no resets, no log
 * roll; every change fails with -EROFS). */
zfs *zfs_mount_flags(zkv_dev *dev, int flags, int *rc, char *err, size_t errlen);
/* Persists nothing more (every acknowledged sync is already durable) and frees memory. */
void zfs_unmount(zfs *fs);

/* Opens a file for writing, replacing any file of that name. */
zfs_file *zfs_create(zfs *fs, const char *name, uint32_t lifetime, int *rc);
/* Opens an existing file for appending (RocksDB's ReopenWritableFile); new data starts a new extent. */
zfs_file *zfs_reopen(zfs *fs, const char *name, int *rc);
/* Sets the write-lifetime hint used for the file's next zone allocations. */
void zfs_set_lifetime(zfs_file *f, uint32_t lifetime);
/* Which tier of the space reserve a file's zone allocations stop at (zone_alloc.c,
 * within_space_reserve): by its name (WAL, RocksDB's metadata, anything else with flushes), or as
 * the output of an automatic compaction, of one the user asked for, or of the flush that replays
 * a WAL when a database opens (from RocksDB's LSM hints), or the WAL a database's open creates
 * (the first WAL after its LOCK is taken): its first zone, if taken before the open ends
 * (zfs_end_opening_wal), at the replaying flush's tier, later ones at a WAL's. An open that found
 * a torn WAL tail writes and syncs a record into its new WAL while the replayed WAL is still live
 * (RocksDB deletes it after the open), so on a device full to the WAL's tier that record found no
 * zone and the database could not reopen. */
enum {
  ZFS_SPACE_BY_NAME = 0,
  ZFS_SPACE_COMPACTION = 1,
  ZFS_SPACE_MANUAL_COMPACTION = 2,
  ZFS_SPACE_RECOVERY_FLUSH = 3,
  ZFS_SPACE_OPENING_WAL = 4
};
void zfs_set_space_class(zfs_file *f, int space_class);
/* The open that created the WAL `name` ended: if it has no zone yet, its first one is a WAL's too. */
void zfs_end_opening_wal(zfs *fs, const char *name);
/* The device bytes of one write-out of a WAL (a sparse file's chunk: its 32-byte header and the
 * data, so bytes - 32 of data): a block multiple from one block to 1 MiB (default 1 MiB, ZenFS's
 * best case in ZWAL's buffer sweep). WAL files created or reopened afterwards use it. -EINVAL
 * otherwise. */
int zfs_set_wal_buffer(zfs *fs, uint32_t bytes);
/* How WAL files are written (docs/wal.md): ZFS_WAL_FILE, each write-out one device write at the
 * zone's write pointer (ZenFS's); ZFS_WAL_ZWAL, each write-out a zone append on the file's own
 * queue, up to queue_depth (1-64) in flight, drained at every barrier_bytes of appends (a block
 * multiple up to the zone capacity; 0: the zone capacity), at a zone's end and by a sync. WAL files
 * created or reopened afterwards use it; a WAL of either mode is recovered by either. -EINVAL out
 * of range, -EOPNOTSUPP for ZWAL on a device whose queues carry out each request at submit
 * (plmarray:). */
enum { ZFS_WAL_FILE = 0, ZFS_WAL_ZWAL = 1 };
int zfs_set_wal_mode(zfs *fs, int mode, uint32_t queue_depth, uint64_t barrier_bytes);
uint32_t zfs_wal_buffer(zfs *fs);
/* Write-behind of SST files (*.sst; zwal.c): each write-out of half the write buffer stays in flight
 * on the file's own queue while the writer fills the other half; a sync waits for it. On by
 * default where the device's queues keep appends in flight (not plmarray:); files opened afterwards
 * follow the setting. -EOPNOTSUPP to turn it on where the queues cannot. */
int zfs_set_write_behind(zfs *fs, int on);
/* The over-provisioning reserve (CAZA's OP zones): `zones` empty zones no writer but GC may start,
 * beyond the file system's own reserves (GC's and the metadata files'); data writers' tiers of the
 * space reserve stand above it. -EINVAL if it would leave data writers fewer than
 * ZFS_MIN_DATA_ZONES zones (where zones serve one class, of the non-WAL share); set at mount,
 * before any write. */
#define ZFS_MIN_DATA_ZONES 4 /* the automatic compactions' space reserve (three zones) and one to write */
int zfs_set_op_zones(zfs *fs, uint32_t zones);
/* ZenFS's answer to a full device, for comparisons against it: where the policy finds no zone for a
 * data file (WAL, flush, compaction, other; NoSpace, or a NeedGc after which GC found nothing to
 * collect), the write fails with NoSpace instead of the safety rule placing it in a zone with room.
 * GC's copies, RocksDB's metadata files and the flush that replays a WAL at open keep the safety
 * rule (a full device stays recoverable). Off by default. */
int zfs_set_strict_no_space(zfs *fs, int on);
/* WALTZ's +R (docs/wal.md, "Reserved WAL zones"): a background thread keeps `zones` (0-8; 0, the
 * default, turns it off) empty zones reserved for WAL files, asked of the placement policy off the
 * put path (zfs_alloc_request.for_wal_reserve); a WAL whose zone has less than `switch_room` bytes
 * left (0: 1% of the zone capacity, at least one of its largest chunks) takes a reserved zone under
 * the lock without a policy call, a device command or GC, and its old zone is finished by that
 * thread. The effective count is smaller where the active limit would leave writers too few tokens
 * (wal_reserve.c). zfs_stats.wal_zone_switches, wal_zone_waits and wal_zone_wait_max_ns show how
 * WALs got their zones. The thread starts with zfs_start_gc (after the policies are installed).
 * -EINVAL above ZFS_WAL_RESERVE_MAX or with a switch room beyond the zone capacity. */
#define ZFS_WAL_RESERVE_MAX 8
int zfs_set_wal_reserve(zfs *fs, uint32_t zones, uint64_t switch_room);

/* Leased zones (lease.c; docs/zone-fs.md, "Leased zones"): an empty zone given to `owner` (any
 * nonzero id it chooses) for its own zone appends, outside every file: recorded in the metadata log
 * before this returns, kept by every mount, never placed, collected or reset by the file system,
 * counted against the active limit, returned (and reset) by zfs_lease_return. The zone is the
 * placement policy's answer for an empty WAL zone. -ENOSPC when no empty zone beyond the reserves
 * is left (or the policy gives none). */
int zfs_lease_zone(zfs *fs, uint64_t owner, uint32_t *zone);
int zfs_lease_return(zfs *fs, uint64_t owner, uint32_t zone);
/* Returns the n zones (all leased to owner, else -ENOENT and none returned) with one record. */
int zfs_lease_return_set(zfs *fs, uint64_t owner, const uint32_t *zones, uint32_t n);
/* Returns every zone leased to owner with one record: after a crash all are leased or none. */
int zfs_lease_return_all(zfs *fs, uint64_t owner);
/* Returns with one record every zone leased to owner that has been written and every empty one
 * beyond the first `keep`, which stay leased (an owner that must start again on a full device keeps
 * a zone for it). Returns how many empty zones stay leased, or -errno (nothing returned). */
int zfs_lease_return_keep_empty(zfs *fs, uint64_t owner, uint32_t keep);
/* The zones leased to owner, ascending; returns how many there are (may exceed cap). */
int zfs_leased_zones(zfs *fs, uint64_t owner, uint32_t *zones, uint32_t cap);
/* Zone append of len bytes (blocks) to a zone leased to owner, with no file system lock; FUA if
 * asked. Returns the byte offset in the zone where they landed, -ENOENT if the zone is not
 * owner's, or the device's error (a full zone: -(ZKV_ZNS_BASE | ZKV_NVME_ZONE_IS_FULL) or
 * ZKV_NVME_ZONE_BOUNDARY_ERROR). */
int64_t zfs_lease_append(zfs *fs, uint64_t owner, uint32_t zone, const void *buf, size_t len, int fua);
int zfs_lease_read(zfs *fs, uint64_t owner, uint32_t zone, uint64_t offset, void *buf, size_t len);
typedef struct zfs_lease_state {
  uint64_t written;  /* bytes from the zone's start to its write pointer (the device's) */
  uint64_t capacity; /* writable bytes */
  /* The lease's secret: 128 random bits drawn when the zone was leased, kept in the lease's record
   * of the metadata log and nowhere in the zone, so that the owner can sign what it appends with
   * what no data written through it can know (WALTZ: docs/formats/zkv-wal.md). Zeros: a lease
   * recorded by a version 7 file system, which had none (zfs_lease_renew gives an empty one a key). */
  uint64_t key[2];
} zfs_lease_state;
int zfs_lease_info(zfs *fs, uint64_t owner, uint32_t zone, zfs_lease_state *out);
/* Gives a zone leased to owner that nothing was appended to a new key, recorded before this
 * returns: -ENOTEMPTY if it has been written. */
int zfs_lease_renew(zfs *fs, uint64_t owner, uint32_t zone);
/* Empty zones a lease may still take without collecting garbage (beyond the file system's reserves
 * and the space reserve's WAL tier); an owner that holds zones it could give back after a flush
 * (WALTZ's log) asks for that flush early when this runs low. */
int zfs_lease_room(zfs *fs);
/* Finishes a leased zone (its active token is free; appends still in flight fail as full). */
int zfs_lease_finish(zfs *fs, uint64_t owner, uint32_t zone);
/* Bytes a flush may still write: empty zones beyond the two reserved for GC and metadata files and
 * the over-provisioning ones (zfs_set_op_zones),
 * plus the room left in partially written data zones (where zones serve one class,
 * ZKV_GEO_CLASS_BOUND_ZONES, those of the non-WAL share only), at most the unoccupied bytes above
 * the tier of the space reserve of the flush that replays a WAL when a database opens (what
 * resuming a stopped database needs). */
uint64_t zfs_free_bytes(zfs *fs);
/* Runs garbage collection until `want` bytes are free for data (as zfs_free_bytes counts) or no
 * zone can be reclaimed; returns the free bytes. For resuming after NoSpace. */
uint64_t zfs_reclaim(zfs *fs, uint64_t want);
/* Opens an existing file for reading (a reference: the file lives until every handle closes). */
zfs_file *zfs_open(zfs *fs, const char *name, int *rc);
int zfs_append(zfs_file *f, const void *buf, size_t len);
/* Makes every appended byte durable: writes the partial tail block (padded) and the metadata. */
int zfs_sync(zfs_file *f);
int64_t zfs_pread(zfs_file *f, uint64_t offset, void *buf, size_t len);
uint64_t zfs_file_size(zfs_file *f);
/* Closes a handle; a writer is synced first (the result of that sync is returned). */
int zfs_close(zfs_file *f);

int zfs_stat(zfs *fs, const char *name, uint64_t *size);
int zfs_delete(zfs *fs, const char *name);
/* Renames atomically, replacing `to` if it exists. */
int zfs_rename(zfs *fs, const char *from, const char *to);
int zfs_link(zfs *fs, const char *existing, const char *link);
/* Calls fn for every name that starts with `prefix`. */
int zfs_list(zfs *fs, const char *prefix, void (*fn)(const char *name, uint64_t size, void *arg), void *arg);
int zfs_stats_get(zfs *fs, zfs_stats *out);
/* Hands `fn` the zone view the policies decide on, taken now under the file system's lock and
 * called without it (no device command, no metadata write): for inspection, e.g. which levels'
 * files the zones hold (zkv bench). Returns fn's result, or a negative errno. */
int zfs_inspect_view(zfs *fs, int (*fn)(void *ctx, const zfs_view *view), void *ctx);

/* Inspection (the zkv CLI): superblock in use, meta zones, zones, files, consistency. */
#include "meta_codec.h"
int zfs_superblock_get(zfs *fs, zfs_superblock *out);
int zfs_meta_status_get(zfs *fs, uint32_t zone, zfs_meta_status *out);
int zfs_zone_info_get(zfs *fs, uint32_t zone, zfs_zone_info *out);
int zfs_walk_files(zfs *fs, void (*fn)(const zfs_file_meta *m, void *arg), void *arg);

/* How the replayed metadata log ended: "" when cleanly (an end record or unwritten space), else a
 * description of the torn last record the mount accepted (a write a crash cut; the operation it
 * described was never acknowledged). Damage is not accepted: the mount fails instead. */
const char *zfs_log_end(zfs *fs);
/* Reports each inconsistency through `problem`; returns how many were found. */
int zfs_check(zfs *fs, void (*problem)(const char *msg, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif
