/* The zone file system core's private header: the state every part shares and the functions the
 * parts call across files. The API is zonefs.h, the format docs/formats/zone-fs.md. Where what is,
 * in layers: a file calls the files of the layers above its own and those listed before it in its
 * own, never one below (scripts/c-call-graph.sh finds no circle of files calling each other).
 *   metadata
 *     meta_codec.c     the on-disk encodings of records, superblock and chunks (meta_codec.h)
 *     meta_write.c     the log's writes: reserved records in order, the roll's, the log's failure
 *     after_unlock.c   an operation's records and zone resets, done after the locks are released
 *     meta_log.c       the metadata log: reserving records, the roll, what each change persists
 *   files
 *     file_index.c     hash tables of the files by name and by id (file_index.h)
 *     file_table.c     file objects and their indexes, dropping a file's space
 *     readers.c        readers' marks and what excludes them (GC's swap, a reopen)
 *   allocation
 *     zone_reserves.c  the rules: held zones, I/O classes, files' purposes, the reserves
 *     decisions.c      the policies' call-outs: the view they decide on, called without the lock
 *     wal_reserve.c    the WAL reserve (WALTZ's +R): empty zones kept for WALs, taken, given back
 *     zone_alloc.c     checking and carrying out a placement decision, the safety rule, a
 *                      writer's next zone
 *     wal_reserve_thread.c  the WAL reserve's thread: filling it, finishing the zones WALs leave
 *   garbage collection
 *     gc.c             victims, moving extents, the background worker
 *   I/O
 *     read_ahead.c     a sealed WAL's read-ahead window
 *     writer_zone.c    a writer's zone, claimed for each write (GC when none has room); extents
 *     zwal.c           ZWAL's write path: write-outs as zone appends on the file's own queue
 *     file_io.c        appends, the FILE mode's write-out into zones, syncs, reads
 *   operations
 *     namespace.c      create/open/close, stat, delete, rename, link, list
 *     lease.c          leased zones: an owner's zone appends outside any file
 *     mount.c          mkfs, mount and log replay, unmount
 *     inspect.c        statistics and the consistency check
 * One call goes up, through a pointer: a writer waiting for a zone (zone_alloc.c) has an idle
 * ZWAL writer's appends reaped (fs->reap_idle_writer, zwal.c's, set at mount).
 *
 * Assumptions of this version (named so they are not mistaken for features):
 * - Zones are owned as in ZenFS: a writer holds the zone it writes (its open token) from the
 *   allocation until the file is closed or the zone is full, so files written at the same time
 *   never share a zone while tokens allow. Which zone is the installed placement policy's choice
 *   (the Java SPI through zkv_env.cc), as are GC's victims and when GC runs: the file system has
 *   no rule of its own that chooses by lifetime or garbage. Without a policy, or where it fails,
 *   the safety rule (zone_alloc.c, gc.c) takes a zone that keeps the file system going (an empty
 *   one first), each time counted by reason (enum zfs_override). The C tests install their own
 *   policies (src/test/native/test_policies.h).
 * - RocksDB's WAL files (*.log) are sparse, as in ZenFS: every write-out is a self-describing chunk
 *   (header, data, padding), a sync writes data only, and a mount finds the chunks written after
 *   the file's last record by reading them from the zone (docs/formats/zone-fs.md). A sync of any
 *   other file persists a constant-size extend record (size and the extents gained since its last
 *   record).
 * - A zone is reset as soon as its last live extent is deleted. Garbage collection (moving live
 *   extents out of a full zone with garbage) runs when an allocation would fail, before NoSpace is
 *   returned, and in the background; readers and writers go on while it copies, and wait only
 *   while it swaps the copies in (gc.c).
 * - Files are found by name and by id through hash tables (file_index.c).
 * - Mount reads a whole meta zone into memory.
 * The order of device writes in every structural change is docs/zone-fs.md's "Order of writes". */
#ifndef ZKV_ZONEFS_INTERNAL_H
#define ZKV_ZONEFS_INTERNAL_H
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "common/le_bytes.h"
#include "common/stripes.h"
#include "file_index.h"
#include "meta_codec.h"
#include "zonefs.h"

#define WRITE_BUFFER (1u << 20) /* bytes a writer gathers before writing full blocks */
/* A write-behind file's write-out (zwal.c): half the buffer, so one is on the device while the
 * writer fills the other half. */
#define WRITE_BEHIND_CHUNK (WRITE_BUFFER / 2)

typedef struct zone_state {
  uint64_t start, wp; /* device bytes */
  uint64_t live;      /* bytes of live file data in the zone */
  uint64_t live_phys; /* blocks those extents occupy, in bytes (sync padding included): what GC must copy */
  uint32_t lifetime;
  int32_t tag;        /* the placement policy's tag from the zone's opening, -1 for none */
  uint8_t labelled;   /* the policy set its tag or lifetime: both persisted (ZONE_LABELS record) */
  struct fobj *owner; /* the writer holding it (its open token), or NULL */
  /* The zone's claim (zone_claim): a write is in flight in it, GC holds it as its target or
   * victim, or its reset is pending. */
  _Atomic uint8_t busy;
  _Atomic uint32_t generation; /* resets since mount: read-ahead windows of an older one are stale */
  uint8_t meta;
  uint8_t wal_reserved;         /* kept empty for a WAL's next zone (wal_reserve.c): held, never written while so */
  _Atomic uint64_t lease_owner; /* leased to this owner (lease.c), 0 if not: held, the owner's alone */
  uint64_t lease_key[2];        /* the lease's secret (under mu; zeros: a version 7 lease, or none) */
  uint8_t io_class; /* ZKV_CLASS_* its writes carry (take_zone_class; after a mount the device's binding); NONE while
                       empty */
} zone_state;

/* Live bytes of one file in one zone. */
typedef struct file_zone_live {
  uint32_t zone;
  uint64_t live;
} file_zone_live;

typedef struct fobj {
  zfs_file_meta m;
  /* The file's live bytes per zone, kept as its extents change (add_extent, GC's swap, mount), so
   * the placement call-outs list files per zone without walking every extent (a synced WAL has an
   * extent per chunk). zone_live_stale: an update could not allocate; the extents are walked then.
   * zfs_check compares the map with the extents. */
  file_zone_live *zone_live;
  uint32_t n_zone_live, cap_zone_live;
  uint8_t zone_live_stale;
  /* ext_end[i]: the logical end of extent i, so a read finds its extent by binary search instead
   * of walking a WAL's thousands of chunk extents from the start (a walk per piece read, quadratic
   * over a sequential read of the file). Changed with the extents (add_extent, GC's swap, mount);
   * ext_index_stale: an update could not allocate, reads walk the list. */
  uint64_t *ext_end;
  uint32_t cap_ext_end;
  uint8_t ext_index_stale;
  uint8_t space_class; /* ZFS_SPACE_*: which reserve its allocations may not take */
  uint32_t refs;
  uint8_t has_writer;
  uint8_t behind; /* its writer writes behind (an SST while fs->write_behind was on at its open) */
  /* No writer and nothing in a write buffer: size and extents change only under readers_exclude
   * (GC's swap, a reopen), so zfs_pread reads them without wmu. Set at mount and by the writer's
   * clean close, cleared by create and reopen. */
  _Atomic uint8_t sealed;
  int32_t zone;        /* the zone the writer owns (zone_state.owner), or -1 */
  uint64_t last_write; /* fs->write_clock at its last write-out: the least recent idle owner is
                        * the one a token is taken from (zone_alloc.c) */
  /* The writer's buffer: wbuf, wlen and wdone change under wmu (and m.size together with wdone),
   * so appends of different files do not contend on the file system's lock; lock order fs->mu,
   * then wmu. Only the file's one writer appends. */
  pthread_mutex_t wmu;
  uint8_t *wbuf;
  size_t wcap;                /* bytes of data that fill a write-out (a WAL's: its chunk less the header) */
  size_t wsub;                /* ZWAL: of wbuf, the bytes handed to appends (wdone <= wsub <= wlen) */
  struct zwal *zw;            /* appends in flight (zwal.c): ZWAL's WAL, a write-behind SST; else NULL */
  size_t wlen;                /* bytes in wbuf */
  size_t wdone;               /* of those, bytes already on the device (during a write-out) */
  uint32_t persisted_extents; /* extents the log knows (the last of them may have grown since) */
  size_t slot;                /* position in zfs.files */
  /* fs->data_gen of its last data write: a record of this file needs a device flush first only
   * while that is above fs->durable_gen. Set under fs->mu (its writer, GC's copies), read by a
   * sync without it: atomic. */
  _Atomic uint64_t written_gen;
} fobj;

typedef struct read_ahead read_ahead;
struct zfs_file {
  zfs *fs;
  fobj *f;
  int writer;
  _Atomic(read_ahead *) ra; /* a sealed WAL's read-ahead window (read_ahead.c), made at first use */
};

/* Copies a sealed sparse file's piece (extent i, device bytes [dev_off, dev_off + n)) into out
 * from the handle's read-ahead window, reading the window first if it does not hold the piece.
 * Returns 0, or 1 if it did not (another reader holds the window, no memory, the read failed): the
 * caller reads the piece itself. Called in a reader's mark (readers_enter). */
int read_ahead_copy(zfs_file *h, uint32_t i, uint64_t dev_off, uint64_t n, uint8_t *out);
void read_ahead_free(zfs_file *h);

/* The locks, in the order they are taken (docs/zone-fs.md, "Locks"):
 *   gc_mu             one collection at a time
 *   io_lock           readers excluded (GC's swap, a reopen): readers_exclude
 *   ns_mu             the namespace: names and their index, the file table, handles' references
 *   mu                zones: their state, owners and claims (busy), allocation, statistics, and
 *                     the reservation of metadata records
 *   meta_mu           the metadata log's write progress (meta_done, meta_failed)
 *   fobj.wmu          one file's write buffer and extent list
 * A name or the file table changes under ns_mu and mu both, so either is enough to read them:
 * the placement call-outs' views and GC's scan hold mu only; open, stat and list hold ns_mu only.
 * No lock but mu's and wmu's holders' own is held across a policy call; no lock is held across a
 * data write, a device flush or a metadata record's write (after_unlock.c), except the roll. */
struct zfs {
  zkv_dev *dev;
  zkv_geometry g;
  zfs_superblock sb;
  pthread_mutex_t ns_mu;
  pthread_mutex_t mu;
  pthread_cond_t zone_released; /* a write finished or a zone was released: allocation may go on */
  uint64_t zone_events;         /* counts those (zones_changed): a wait decided on an older view is
                                 * asked again instead of waiting for what already happened */
  uint64_t write_clock;         /* counts write-outs: the age of an owner's last write */
  /* Readers (zfs_pread) mark themselves in their own stripe (a: reads in progress) instead of
   * sharing a lock; readers_exclude holds io_lock for writing and sets `excluding` until they are
   * gone (GC's swap, a reopen); a reader that meets `excluding` waits on io_lock. */
  zkv_stripe readers[ZKV_STRIPES];
  _Atomic int excluding;
  pthread_rwlock_t io_lock;
  pthread_mutex_t gc_mu; /* one collection at a time; taken before io_lock and mu */
  zone_state *zones;
  fobj **files;
  size_t n_files, cap_files;
  zfs_index by_name, by_id; /* the files by each of their names, and by id */
  uint64_t next_file_id;
  uint32_t meta_zone;
  /* The metadata log (meta_log.c): meta_wp is where the next record is reserved (under mu);
   * meta_done is where the log's device write pointer is (under meta_mu): every record below it
   * is written. Records are written in reservation order, each by the thread that reserved it,
   * with or without mu (a sync writes its record after releasing mu), none holding meta_mu
   * across the device write; meta_failed (under meta_mu): a log write failed, every later one
   * fails with it. Lock order: mu, then meta_mu. */
  uint64_t meta_wp, meta_seq;
  pthread_mutex_t meta_mu;
  pthread_cond_t meta_progress;
  uint64_t meta_done;
  int meta_failed;
  uint32_t active_limit;       /* data zones that may be partially written at once, 0 = no limit */
  uint32_t op_zones;           /* over-provisioning: empty zones kept for GC's copies (zfs_set_op_zones) */
  _Atomic int strict_no_space; /* data writers' NoSpace from the policy is NoSpace (zfs_set_strict_no_space) */
  _Atomic uint32_t wal_buffer; /* device bytes of a WAL's write-out (zfs_set_wal_buffer) */
  _Atomic int wal_mode;        /* ZFS_WAL_* (zfs_set_wal_mode), with: */
  _Atomic int write_behind;    /* SST files write behind (zfs_set_write_behind; zwal.c) */
  uint32_t wal_queue_depth;
  uint64_t wal_barrier;
  int readonly;
  zfs_allocator allocator;
  void *allocator_ctx;
  zfs_victim_chooser victim_chooser;
  void *victim_chooser_ctx;
  zfs_gc_trigger gc_trigger;
  int gc_for_room; /* under mu: a lease found or left no empty zone (gc_wake_for_room) */
  void *gc_trigger_ctx;
  /* Policy call-outs under way (decisions.c), counted under mu: they run without it, and
   * zfs_set_* wait until none is before a replaced policy's context may go. */
  uint32_t callouts_running;
  pthread_cond_t callouts_done;
  /* zwal_reap_idle, set at mount: a writer waiting for a zone (take_zone) has an idle ZWAL
   * writer's appends reaped through it, as the allocator sits below the I/O layer owning them. */
  int (*reap_idle_writer)(zfs *fs);
  pthread_t gc_thread;
  int gc_running, gc_stop;
  pthread_cond_t gc_wake;
  /* The WAL reserve (wal_reserve.c), under mu: the zones kept (oldest first), the zones WALs left
   * that its thread finishes (claimed meanwhile), the WAL whose id and lifetime its requests carry,
   * and zone_events when a fill last found nothing (it waits for a change before asking again). */
  uint32_t walr_target;
  _Atomic int walr_on;               /* walr_target > 0: read by writers without mu */
  _Atomic uint64_t walr_switch_room; /* zfs_set_wal_reserve's, 0 for the default (wal_switch_room) */
  uint32_t walr_zones[ZFS_WAL_RESERVE_MAX];
  _Atomic uint32_t walr_n; /* changed under mu; ZWAL's append path reads it without */
  uint32_t *walr_finish, walr_n_finish;
  uint64_t walr_file_id, walr_events;
  uint32_t walr_lifetime;
  pthread_t walr_thread;
  int walr_running, walr_stop;
  pthread_cond_t walr_wake;
  zfs_meta_status meta_status[ZFS_MAX_META_ZONES];
  char log_tail[256];                     /* how the replayed log ended when it did not end cleanly, for fsck */
  _Atomic uint64_t data_gen, durable_gen; /* data writes made / made durable by a flush (make_durable) */
  zfs_stats st;
  uint64_t policy_base[3];               /* decisions, fallbacks, steals of earlier mounts (the log's count) */
  uint64_t override_base[ZFS_OVERRIDES]; /* overrides by reason of earlier mounts, likewise */
  uint64_t gc_base[6];                   /* zfs_stats.gc_totals of earlier mounts, likewise */
};

static inline uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static inline uint64_t zone_end(const zfs *fs, uint32_t z) { return fs->zones[z].start + fs->g.zone_cap; }

static inline uint32_t zone_of(const zfs *fs, uint64_t off) { return (uint32_t)(off / fs->g.zone_size); }

/* A file whose last name is gone (deleted while a handle is open) is not in the namespace any
 * more: its delete record is durable, and no snapshot or update may bring it back (a file record
 * needs at least one name; writing one would make the log unreadable). It lives in memory until
 * its last handle closes. */
static inline int in_namespace(const fobj *f) { return f->m.n_names > 0; }

static inline int is_sparse(const fobj *f) { return (f->m.flags & ZFS_FILE_SPARSE) != 0; }
/* The data that fills a write-out of f: a WAL's chunk (the file system's WAL buffer) less its
 * header; a write-behind file's chunk; any other file's buffer. */
static inline size_t write_out_size(const zfs *fs, const fobj *f) {
  return is_sparse(f) ? atomic_load(&fs->wal_buffer) - ZFS_CHUNK_HEADER : f->behind ? WRITE_BEHIND_CHUNK : WRITE_BUFFER;
}
/* The I/O class of a file's writes, for devices that place data by it (plmarray:, docs/plm.md):
 * sparse files are the WAL (*.log), the rest is flush, compaction and other internal data. */
static inline int class_of(const fobj *f) { return is_sparse(f) ? ZKV_CLASS_WAL : ZKV_CLASS_INTERNAL; }
/* A zone's claim, as ZenFS's Zone::Acquire: an atomic flag taken by compare-and-swap, so no two
 * claimants ever hold a zone at once, whatever lock they hold; the claimants here take it under
 * fs->mu, which also orders the zone's other state. Returns whether this caller took it. */
static inline int zone_claim(zone_state *s) {
  uint8_t unclaimed = 0;
  return atomic_compare_exchange_strong(&s->busy, &unclaimed, 1);
}
static inline void zone_unclaim(zone_state *s) { atomic_store(&s->busy, 0); }

/* Whether a writer of class cls may be given zone s: on a device whose zones serve one class
 * (ZKV_GEO_CLASS_BOUND_ZONES) an empty zone, one of its class, or, for a WAL whose share is used
 * up, one of the other classes; anywhere else, any (zone_alloc.c). */
int zone_takes_class(const zfs *fs, const zone_state *s, int cls);
/* A writer of class cls was given zone z: an empty zone takes its class, or, for a WAL whose share
 * of a class-bound device is used up, the other classes' (zone_alloc.c). */
void take_zone_class(zfs *fs, uint32_t z, int cls);
/* Whether zones serve one class (bound by the device, or WAL zones apart in ZWAL mode), and whether
 * zone z is a written WAL zone kept apart in ZWAL mode on a device that binds none (zone_alloc.c). */
int zones_apart(const zfs *fs);
int wal_zone_apart(const zfs *fs, uint32_t z);
/* The class a write into zone z carries: the zone's (a WAL in the other share writes as those
 * classes, so the device binds the zone where the file system counted it), else the file's. */
static inline int io_class_in(const zfs *fs, uint32_t z, const fobj *f) {
  int cls = fs->zones[z].io_class;
  return ZKV_IO_CLASS(cls != ZKV_CLASS_NONE ? cls : class_of(f));
}

/* The device bytes an extent's blocks span: what it costs in its zone and what GC copies. A
 * sparse file's extent starts after its chunk header, so this counts header and padding too. */
static inline uint64_t extent_blocks(const zfs *fs, zfs_extent e) {
  return round_up(e.start + e.len, fs->g.lba_size) - e.start / fs->g.lba_size * fs->g.lba_size;
}

/* Who may take the last empty zones: GC may take any; RocksDB's small metadata files (MANIFEST,
 * CURRENT, OPTIONS, ...) all but the last; data files (SST, WAL) all but the last two. So a full
 * device still accepts the MANIFEST edit that deletes files, and GC can always run. */
enum { FOR_WAL = 0, FOR_GC = 1, FOR_METADATA = 2, FOR_FREEING = 3, FOR_COMPACTION = 4, FOR_RECOVERY = 5 };

/* Readers and what excludes them (readers.c). Lock order: readers_exclude before fs->mu. */
zkv_stripe *readers_enter(zfs *fs);
void readers_exit(zkv_stripe *s);
void readers_exclude(zfs *fs);
void readers_admit(zfs *fs);

/* metadata log (meta_log.c) */
/* A record reserved in the log under mu and written by write_reserved, with or without mu. */
typedef struct meta_pending {
  uint64_t at;
  uint8_t *buf; /* NULL: nothing reserved */
  size_t size;
  uint64_t durable_gen; /* data writes up to this generation are made durable before it is written */
} meta_pending;

/* Device work left for after fs->mu (after_unlock.c): an operation's records and zone resets. */
typedef struct deferred_reset {
  uint32_t zone;
  uint8_t flags;    /* RESET_*: what the reset is counted as */
  uint8_t required; /* GC's victim: a failed reset fails the operation (else it is left for GC) */
  uint8_t ok;
} deferred_reset;
typedef struct after_unlock {
  zfs *fs;
  meta_pending *records;
  uint32_t n_records, cap_records;
  deferred_reset *resets;
  uint32_t n_resets, cap_resets;
  int failed;    /* work done early (write_deferred_records_now, run_deferred_now) failed */
  int namespace; /* ns_mu is held too (lock_namespace) */
  struct after_unlock *outer;
} after_unlock;
/* Takes fs->mu and opens the thread's scope: records and resets made until unlock_fs wait for it. */
void lock_fs(zfs *fs, after_unlock *work);
/* lock_fs for a namespace change: ns_mu, then mu. */
void lock_namespace(zfs *fs, after_unlock *work);
/* Releases fs->mu (and ns_mu), then writes the scope's records in order and resets its zones (only when every
 * record went through); returns the first error. */
int unlock_fs(zfs *fs, after_unlock *work);
/* Under mu: a reserved record, written at unlock_fs (or now, outside a scope); frees p->buf. */
int defer_record(zfs *fs, meta_pending *p);
/* What a zone reset is counted as, once it is done (with the reset, so that no reader of the stats
 * sees a collection's reset without its run). */
enum { RESET_WITHOUT_COPY = 1, RESET_GC_ZONE = 2, RESET_GC_RUN = 4 };
/* Under mu: zone z is reset at unlock_fs (or now, outside a scope); busy until then. flags: RESET_*. */
void defer_reset(zfs *fs, uint32_t z, int flags, int required);
/* Under mu: resets zone z now and marks it empty (busy cleared either way; a failure leaves it for GC). */
int reset_zone_now(zfs *fs, uint32_t z, int flags);
/* Under mu, before a wait or a roll: the scope's records are written now (a roll waits for every
 * reserved record). */
int write_deferred_records_now(zfs *fs);
/* Under mu, before a wait for zones or a policy call: the scope's records and resets are done now. */
void run_deferred_now(zfs *fs);
/* The log's writes (meta_write.c). */
/* Makes data writes up to generation `needed` durable (a device flush unless one already did). */
int make_durable(zfs *fs, uint64_t needed);
/* Writes a reserved record once every record reserved before it is written (no lock held, or mu);
 * frees it. */
int write_reserved(zfs *fs, meta_pending *p);
/* The error that failed the log this mount, 0 while it works: no zone is reset after it (a record
 * on the device may still point into the zone). Takes meta_mu. */
int log_failed(zfs *fs);
/* The roll's: waits until every reserved record is written (mu held), returning the log's failure;
 * fails the log with rc; writes at the log's end now. */
int wait_log_written(zfs *fs);
void log_fail(zfs *fs, int rc);
int write_meta(zfs *fs, const uint8_t *buf, size_t len);
/* The log's records (meta_log.c). */
int roll_meta(zfs *fs);
int append_record(zfs *fs, uint16_t type, const uint8_t *payload, size_t len);
int persist_file(zfs *fs, fobj *f);
/* A sync's record, reserved under mu; the caller writes it with write_reserved after releasing mu. */
int reserve_sync(zfs *fs, fobj *f, meta_pending *out);
int persist_delete(zfs *fs, uint64_t id);
int persist_active(zfs *fs, fobj *f, uint64_t active_extent_start);
int persist_zone_labels(zfs *fs, uint32_t zone);
int persist_policy_counts(zfs *fs);
/* Leased zones (lease.c): a ZONE_LEASES record of the zones listed, with their owners now. */
int persist_leases_of(zfs *fs, const uint32_t *zones, uint32_t n);
/* zfs_stats.gc_totals: earlier mounts' (the log's) and this one's GC counters. */
void gc_counts_since_format(const zfs *fs, uint64_t out[6]);

/* ZWAL's write path (zwal.c): a WAL's write-outs as zone appends on its own queue. */
typedef struct zwal zwal;
/* At create/reopen: the file's queue in ZWAL mode (nothing otherwise). */
int zwal_open(zfs *fs, fobj *f);
/* Submits wbuf[wsub, upto) as chunks (no lock held). */
int zwal_submit(zfs *fs, fobj *f, size_t upto);
/* Waits for every append in flight and applies them (no lock held). */
int zwal_drain(zfs *fs, fobj *f);
/* The write buffer is full: room made without waiting for every append (the landed part dropped). */
int zwal_make_room(zfs *fs, fobj *f);
/* Appends of the file in flight now (tests). */
uint32_t zwal_in_flight(fobj *f);
/* Drains and frees the file's queue (no lock held). */
void zwal_close(zfs *fs, fobj *f);
/* Called with fs->mu held by a writer waiting for a zone: reaps the appends of one idle ZWAL
 * writer whose claim keeps a zone busy, releasing fs->mu meanwhile. Returns whether it did. */
int zwal_reap_idle(zfs *fs);
/* A writer's zone (writer_zone.c). */
/* The zone for a writer's next device write or append, claimed, with at least min_room left (the
 * writer's own, or a new one; garbage collected when none has room), and where the write goes. No
 * lock held. */
int claim_writer_zone(zfs *fs, fobj *f, uint64_t want, uint64_t min_room, uint32_t *z, uint64_t *at);
/* Records `logical` bytes written at device offset `at` in the file's extent list (fs->mu and
 * f->wmu held). */
int add_extent(zfs *fs, fobj *f, uint64_t at, uint64_t logical);

/* file table (file_table.c) */
fobj *file_find(zfs *fs, const char *name, uint32_t *name_index);
fobj *file_find_id(zfs *fs, uint64_t id);
fobj *new_fobj(void);
void free_fobj(fobj *f);
/* Adds `delta` (negative: removes) live bytes of file f in zone z to its per-zone map. */
void file_zone_add(fobj *f, uint32_t z, int64_t delta);
uint64_t file_size_locked(fobj *f);
/* Rebuilds f's extent index (ext_end) from its extents; out of memory, marks it stale. */
void index_extents(fobj *f);
/* Notes an extent appended (`appended`) or the last one grown by `logical` bytes in the index. */
void index_extent_added(fobj *f, int appended, uint64_t logical);
/* The extent holding logical offset pos (< size written out) and pos's offset within it. */
uint32_t find_extent(const fobj *f, uint64_t pos, uint64_t *within);
void unindex_names(zfs *fs, const fobj *f);
int add_file(zfs *fs, fobj *f);
void remove_file(zfs *fs, fobj *f);
void clear_files(zfs *fs);
void drop_name(zfs *fs, fobj *f, uint32_t k);
void drop_file(zfs *fs, fobj *f);
int remove_name(zfs *fs, fobj *f, uint32_t k);
void reset_if_unused(zfs *fs, uint32_t z);
void zone_drop_live(zfs *fs, zfs_extent e);

/* The zone reserves (zone_reserves.c), all read with fs->mu held. */
int purpose_of(const fobj *f, int for_gc);
int is_wal_file(const char *name);
int is_info_log_file(const char *name);
int is_sst_file(const char *name);
/* Held: a writer owns it, a write or GC is under way in it, the WAL reserve keeps it
 * (wal_reserve.c) or it is leased (lease.c). Nobody else allocates it. */
static inline int zone_held(const zone_state *s) {
  return s->owner != NULL || s->busy || s->wal_reserved || atomic_load_explicit(&s->lease_owner, memory_order_relaxed);
}
static inline int partly_written(const zfs *fs, uint32_t z) {
  return fs->zones[z].wp > fs->zones[z].start && fs->zones[z].wp < zone_end(fs, z);
}
/* Active zones: partly written, or held while still empty (taken, first write not yet done). */
uint32_t active_data_zones(const zfs *fs);
/* Whether `active` active zones leave a writer room to start one more (GC one more: its own
 * token). */
static inline int below_active_limit(const zfs *fs, uint32_t active, int purpose) {
  return !fs->active_limit || active < fs->active_limit + (purpose == FOR_GC ? 1u : 0u);
}
/* The device binds zones to an I/O class (a plmarray:'s meta and stripe groups). */
static inline int classes_bind_zones(const zfs *fs) {
  return (fs->g.flags & ZKV_GEO_CLASS_BOUND_ZONES) && fs->g.meta_class_zones;
}
/* Whether an allocation of this purpose (and I/O class) may start an empty zone without eating
 * into the reserves. */
int may_take_empty_zone(const zfs *fs, int purpose, int cls);
/* The empty zones an allocation of this purpose and class may not start (zfs_view.empty_kept). */
uint32_t empty_zones_kept(const zfs *fs, int purpose, int cls);
/* Whether the WAL reserve may keep one more empty zone beyond `target`. */
int reserve_may_keep_one_more(const zfs *fs, uint32_t target);
int within_space_reserve(const zfs *fs, int purpose);
/* zfs_set_strict_no_space is on and this writer is a data file's: the policy's NoSpace stands. */
int no_space_is_final(const zfs *fs, int purpose);
uint64_t space_reserve(const zfs *fs, int purpose);
uint64_t unoccupied_bytes(const zfs *fs);
/* zfs_free_bytes with fs->mu held. */
uint64_t free_bytes_for_data(const zfs *fs);
int victim_eligible(zfs *fs, uint32_t zone, uint64_t max_live);
/* Whether a collection for a writer of class cls (ZKV_CLASS_NONE: any writer) must spare the WAL's
 * share: where zones serve one class, emptying a WAL zone within it gives SST data no room (one
 * scan, once per collection); then whether emptying `zone` helps that writer. */
int gc_spares_wal_share(const zfs *fs, int cls);
int victim_helps(const zfs *fs, uint32_t zone, int spare_wal_share);
void fill_zone_info(zfs *fs, uint32_t zone, zfs_zone_info *out);
/* Whether a lease (reserve_wal_zone with no target) would find an empty zone it may take now, by
 * the reserves' counts alone (the policy may still decline). Called with fs->mu held. */
int lease_finds_empty_zone(const zfs *fs);
/* Whether a write is in flight in any zone (a claim): a zone will be released soon. mu held. */
int any_write_in_flight(const zfs *fs);

/* zone allocation (zone_alloc.c) */
int allocate_by_policy(zfs *fs, const zfs_alloc_request *req, int purpose, int cls, uint32_t *out);
/* The safety rule (zone_alloc.c): an empty zone beyond the reserves (gc_zone_too: GC's own too),
 * else the lowest-numbered partly written one with room the writer may use, or -ENOSPC. */
int safety_zone(zfs *fs, uint32_t lifetime, int purpose, int cls, int gc_zone_too, uint32_t *out);
/* Counts an override of a policy (enum zfs_override); the allocation reasons in fallback_allocations too. */
void count_override(zfs *fs, int reason);
/* Who chooses take_zone's new zone: the policy; the safety rule, counted as overriding the policy
 * (NO_SPACE), after the policy's NeedGc found nothing to collect; the safety rule with the empty
 * zone kept for GC too, after GC found nothing to collect for a write that frees space (RocksDB's
 * metadata files, the flush that replays a WAL at open; claim_writer_zone). */
enum { TAKE_BY_POLICY = 0, TAKE_BY_SAFETY_RULE = 1, TAKE_GC_ZONE_TOO = 2 };
/* The zone a writer writes next (its own, or a new one chosen as `safety` says). Called with
 * fs->mu held; the policy's call releases it meanwhile. */
/* *from_reserve: the zone came from the WAL reserve (wal_reserve_take). */
int take_zone(zfs *fs, fobj *f, int safety, uint64_t want, uint32_t *out, int *from_reserve);
void release_zone(zfs *fs, fobj *f);
/* The reserve's request for an empty zone to keep: the policy's OPEN_EMPTY answer (its finishes
 * carried out, as for a writer) while the space reserve allows and more empty zones than `target`
 * are left beyond the reserves; -ENOSPC for anything else, never an override. mu held, released
 * for the call. */
int reserve_wal_zone(zfs *fs, const zfs_alloc_request *req, uint32_t target, uint32_t *out);
/* At the active limit, finishes the partly written zone nobody holds with the least room left
 * (ZenFS's FinishCheapestIOZone): its active token is free. Returns whether it finished one.
 * Called with mu held; releases it for the device command. */
int finish_cheapest_idle_zone(zfs *fs);
/* allocate_by_policy: the policy says wait for a zone to be released (no open or active token
 * free). */
#define ALLOC_WAIT 1
/* take_zone: the writer's tier of the space reserve is reached (within_space_reserve): NoSpace,
 * without collecting garbage (GC turns garbage into room, which the reserve counts already). */
#define ALLOC_RESERVED 2
/* allocate_by_policy / take_zone: the policy says collect garbage first (NeedGc); the writer
 * collects and asks again, or the safety rule decides if nothing could be collected. */
#define ALLOC_NEED_GC 3
/* The policy counts record's payload (docs/formats/zone-fs.md): decisions, fallbacks, steals, then
 * the overrides by reason (version 5). */
#define ZFS_POLICY_COUNTS_V5_LEN (24 + 8 * ZFS_OVERRIDES)
#define ZFS_POLICY_COUNTS_LEN (ZFS_POLICY_COUNTS_V5_LEN + 8 * 6) /* version 6: GC's counters */

/* A zone was released, reset or a write in it ended: writers waiting for a zone look again. */
static inline void zones_changed(zfs *fs) {
  fs->zone_events++;
  pthread_cond_broadcast(&fs->zone_released);
}

/* The policies' call-outs (decisions.c). Each is entered with fs->mu held, releases it for the
 * call (the view is taken before), and returns with it held again; the state may have changed
 * meanwhile. Without an installed policy they return -ENOENT at once, without unlocking. */
typedef struct decision_view {
  zfs_view v;
  zfs_zone_info *zones;
  zfs_zone_file *files;
  char *names;
  uint64_t zone_events; /* fs->zone_events when the view was taken */
} decision_view;
/* Takes the view under fs->mu; `victim_ok` overrides the zones' victim_ok if not NULL. */
int view_take(zfs *fs, decision_view *out, int (*victim_ok)(zfs *fs, uint32_t z, void *arg), void *arg);
void view_free(decision_view *v);
int call_allocator(zfs *fs, const zfs_alloc_request *req, decision_view *view, zfs_alloc_decision *out);
int call_victim_chooser(zfs *fs, decision_view *view, uint32_t *victim);
int call_gc_trigger(zfs *fs, uint64_t *max_live);

/* The WAL reserve (wal_reserve.c), all with fs->mu held. */
/* Bytes of room under which WAL f leaves its zone for a reserved one; 0 while the reserve is off. */
uint64_t wal_switch_room(const zfs *fs, const fobj *f);
/* Gives WAL f a reserved zone (owned, class set, counted as a switch); 0, or -ENOENT if none is. */
int wal_reserve_take(zfs *fs, fobj *f, uint32_t *out);
/* A writer found no zone: one reserved zone goes back to the pool. Returns whether one did. */
int wal_reserve_give_back(zfs *fs);
/* A zone is no longer reserved (its flag, labels and class cleared). */
void wal_reserve_clear(zfs *fs, uint32_t z);
/* Wakes the reserve's thread: a zone was taken or handed over, or a setting changed. */
void wake_reserver(zfs *fs);

/* The WAL reserve's thread (wal_reserve_thread.c). */
/* WAL f leaves its zone (room below wal_switch_room) to the reserve's thread, which finishes it;
 * the zone stays claimed until then. mu held. */
void wal_hand_over(zfs *fs, fobj *f);
int start_wal_reserve(zfs *fs);
void stop_wal_reserve(zfs *fs);

/* garbage collection (gc.c) */
int collect_garbage(zfs *fs, uint64_t max_live, int for_class, int new_run);
void stop_gc(zfs *fs);
/* A lease left no empty zone for the next one (lease.c): background GC collects in its next round
 * for room, whatever the trigger says, until a lease would find one. No lock held. */
void gc_wake_for_room(zfs *fs);

#endif
