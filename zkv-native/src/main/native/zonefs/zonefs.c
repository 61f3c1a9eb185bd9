/* The zone file system core. See zonefs.h for the API and docs/formats/zone-fs.md for the format.
 *
 * Assumptions of this version (named so they are not mistaken for features):
 * - Zone allocation asks the installed placement policy (the Java SPI through zkv_env.cc) or
 *   falls back to a built-in lifetime-matching rule modeled on ZenFS's LIZA. A zone is held only
 *   for one write, not for a file's life (ZenFS's ownership model is the core rework's next step).
 * - A sync persists a constant-size extend record (size and the extents gained since the file's
 *   last record); ZenFS's sparse WAL format, which avoids even that, may come with the WAL policies.
 * - A zone is reset as soon as its last live extent is deleted. Garbage collection (moving live
 *   extents out of a full zone with garbage) runs when an allocation would fail, before NoSpace is
 *   returned; it stops the world (readers and writers wait while it runs).
 * - Files are found by name and by id through hash tables (file_index.c).
 * - Mount reads a whole meta zone into memory.
 * The order of device writes in every structural change is docs/zone-fs.md's "Order of writes". */
#define _GNU_SOURCE
#include "zonefs.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "file_index.h"
#include "le_bytes.h"
#include "meta_codec.h"

#define WRITE_BUFFER (1u << 20) /* bytes a writer gathers before writing full blocks */
#define LIFETIME_DIFF_NOT_GOOD 100
#define LIFETIME_DIFF_COULD_BE_WORSE 50

typedef struct zone_state {
  uint64_t start, wp; /* device bytes */
  uint64_t live;      /* bytes of live file data in the zone */
  uint64_t live_phys; /* blocks those extents occupy, in bytes (sync padding included): what GC must copy */
  uint32_t lifetime;
  uint8_t busy; /* a write is in progress in it */
  uint8_t meta;
} zone_state;

typedef struct fobj {
  zfs_file_meta m;
  uint32_t refs;
  uint8_t has_writer;
  int32_t zone; /* the zone the writer used last (preferred for its next write), or -1 */
  /* The writer's buffer: wbuf, wlen and wdone change under wmu (and m.size together with wdone),
   * so appends of different files do not contend on the file system's lock; lock order fs->mu,
   * then wmu. Only the file's one writer appends. */
  pthread_mutex_t wmu;
  uint8_t *wbuf;
  size_t wlen;                /* bytes in wbuf */
  size_t wdone;               /* of those, bytes already on the device (during a write-out) */
  uint32_t persisted_extents; /* extents the log knows (the last of them may have grown since) */
  size_t slot;                /* position in zfs.files */
} fobj;

struct zfs_file {
  zfs *fs;
  fobj *f;
  int writer;
};

struct zfs {
  zkv_dev *dev;
  zkv_geometry g;
  zfs_superblock sb;
  pthread_mutex_t mu;
  pthread_cond_t zone_released; /* a write finished: its zone may be taken */
  pthread_rwlock_t io_lock;     /* readers share it; GC takes it alone before moving data */
  zone_state *zones;
  fobj **files;
  size_t n_files, cap_files;
  zfs_index by_name, by_id; /* the files by each of their names, and by id */
  uint64_t next_file_id;
  uint32_t meta_zone;
  uint64_t meta_wp, meta_seq;
  uint32_t active_limit; /* data zones that may be partially written at once, 0 = no limit */
  int readonly;
  zfs_allocator allocator;
  void *allocator_ctx;
  zfs_zone_info *alloc_view; /* scratch table handed to the allocator and the victim chooser */
  zfs_victim_chooser victim_chooser;
  void *victim_chooser_ctx;
  pthread_t gc_thread;
  int gc_running, gc_stop;
  pthread_cond_t gc_wake;
  uint32_t gc_free_percent; /* background GC starts when free space falls to this percent */
  zfs_meta_status meta_status[ZFS_MAX_META_ZONES];
  char log_tail[256];             /* how the replayed log ended when it did not end cleanly, for fsck */
  uint64_t data_gen, durable_gen; /* data writes made / made durable by a flush (make_data_durable) */
  zfs_stats st;
};

static uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static uint64_t zone_end(const zfs *fs, uint32_t z) { return fs->zones[z].start + fs->g.zone_cap; }
static uint32_t zone_of(const zfs *fs, uint64_t off) { return (uint32_t)(off / fs->g.zone_size); }

/* ---------- metadata log ---------- */

static int write_meta(zfs *fs, const uint8_t *buf, size_t len) {
  int rc = zkv_dev_write(fs->dev, fs->meta_wp, buf, len, ZKV_IO_FUA);
  if (rc) return rc;
  fs->meta_wp += len;
  fs->st.meta_bytes += len;
  return 0;
}

/* A file whose last name is gone (deleted while a handle is open) is not in the namespace any
 * more: its delete record is durable, and no snapshot or update may bring it back (a file record
 * needs at least one name; writing one would make the log unreadable). It lives in memory until
 * its last handle closes. */
static int in_namespace(const fobj *f) { return f->m.n_names > 0; }

static uint8_t *encode_snapshot(zfs *fs, size_t *len) {
  size_t n = 12;
  uint32_t count = 0;
  for (size_t i = 0; i < fs->n_files; i++)
    if (in_namespace(fs->files[i])) n += zfs_file_encoded_size(&fs->files[i]->m), count++;
  uint8_t *p = malloc(n);
  if (!p) return NULL;
  memcpy(p, &fs->next_file_id, 8);
  memcpy(p + 8, &count, 4);
  size_t off = 12;
  for (size_t i = 0; i < fs->n_files; i++)
    if (in_namespace(fs->files[i])) off += (size_t)zfs_file_encode(&fs->files[i]->m, p + off, n - off);
  *len = n;
  return p;
}

/* Rule 1 of docs/zone-fs.md ("Order of writes"): file data is durable before any record that may
 * point at it. Every data write bumps data_gen; a flush that started at generation g makes
 * everything up to g durable. Called with fs->mu held. */
static int make_data_durable(zfs *fs) {
  if (fs->durable_gen == fs->data_gen) return 0;
  uint64_t gen = fs->data_gen;
  int rc = zkv_dev_flush(fs->dev);
  if (!rc && gen > fs->durable_gen) fs->durable_gen = gen;
  return rc;
}

static int append_record_raw(zfs *fs, uint16_t type, const uint8_t *payload, size_t len) {
  /* A file record or a snapshot names extents, also those of writers that have data on the device
   * without a sync yet (a rename or a log roll while they write). */
  if (type == ZFS_REC_FILE_UPDATE || type == ZFS_REC_FILE_EXTEND || type == ZFS_REC_SNAPSHOT) {
    int rc = make_data_durable(fs);
    if (rc) return rc;
  }
  size_t size = zfs_record_size((uint32_t)len, fs->g.lba_size);
  uint8_t *rec = malloc(size);
  if (!rec) return -ENOMEM;
  zfs_record_encode(type, ++fs->meta_seq, payload, (uint32_t)len, fs->g.lba_size, rec, size);
  int rc = write_meta(fs, rec, size);
  free(rec);
  return rc;
}

/* Starts a fresh meta zone: superblock with the next sequence, then the complete snapshot. The
 * old zone is reset only once the new one is durable, so a crash leaves one valid log. */
static int roll_meta(zfs *fs) {
  uint32_t old = fs->meta_zone, next = (old + 1) % fs->sb.meta_zones;
  /* The old log is finished first (its data stays readable; a FULL zone is not active), so a roll
   * needs one active zone, not two: after a crash the data zones left open may take every other
   * active zone, and the mount's roll must still go through. */
  int rc = 0;
  if (old != next && fs->meta_wp > fs->zones[old].start && fs->meta_wp < zone_end(fs, old)) {
    if ((rc = zkv_dev_zone_mgmt(fs->dev, old, ZKV_ZONE_FINISH))) return rc;
    fs->meta_wp = zone_end(fs, old);
  }
  rc = zkv_dev_zone_mgmt(fs->dev, next, ZKV_ZONE_RESET);
  if (rc) return rc;
  fs->meta_zone = next;
  fs->meta_wp = fs->zones[next].start;
  fs->sb.sequence++;
  uint8_t sbuf[ZFS_SUPERBLOCK_SIZE];
  zfs_superblock_encode(&fs->sb, sbuf, sizeof sbuf);
  if ((rc = write_meta(fs, sbuf, sizeof sbuf))) return rc;
  size_t len;
  uint8_t *snap = encode_snapshot(fs, &len);
  if (!snap) return -ENOMEM;
  if (zfs_record_size((uint32_t)len, fs->g.lba_size) + ZFS_SUPERBLOCK_SIZE > fs->g.zone_cap) {
    free(snap);
    return -EFBIG; /* the file table no longer fits a meta zone */
  }
  rc = append_record_raw(fs, ZFS_REC_SNAPSHOT, snap, len);
  free(snap);
  if (rc) return rc;
  fs->st.meta_rolls++;
  return old == next ? 0 : zkv_dev_zone_mgmt(fs->dev, old, ZKV_ZONE_RESET);
}

static int append_record(zfs *fs, uint16_t type, const uint8_t *payload, size_t len) {
  if (fs->meta_wp + zfs_record_size((uint32_t)len, fs->g.lba_size) > zone_end(fs, fs->meta_zone)) {
    int rc = roll_meta(fs);
    if (rc) return rc;
  }
  return append_record_raw(fs, type, payload, len);
}

static int persist_file(zfs *fs, fobj *f) {
  if (!in_namespace(f)) return 0; /* deleted while open: nothing of it is persisted any more */
  size_t len = zfs_file_encoded_size(&f->m);
  uint8_t *p = malloc(len);
  if (!p) return -ENOMEM;
  zfs_file_encode(&f->m, p, len);
  int rc = append_record(fs, ZFS_REC_FILE_UPDATE, p, len);
  free(p);
  if (!rc) f->persisted_extents = f->m.n_extents;
  return rc;
}

/* What a sync persists: the new size and the extents gained since the file's last record, in a
 * record of constant size (a full record would re-encode every extent on every sync: metadata
 * growing with the square of a WAL's syncs). */
static int persist_sync(zfs *fs, fobj *f) {
  if (!in_namespace(f)) return 0;
  uint32_t first = f->persisted_extents ? f->persisted_extents - 1 : 0;
  zfs_file_extend x = {.id = f->m.id,
                       .size = f->m.size,
                       .mtime = f->m.mtime,
                       .lifetime = f->m.lifetime,
                       .first = first,
                       .n_extents = f->m.n_extents - first,
                       .extents = f->m.extents + first};
  size_t len = zfs_extend_encoded_size(x.n_extents);
  uint8_t small[256], *p = len <= sizeof small ? small : malloc(len);
  if (!p) return -ENOMEM;
  zfs_extend_encode(&x, p, len);
  int rc = append_record(fs, ZFS_REC_FILE_EXTEND, p, len);
  if (p != small) free(p);
  if (!rc) f->persisted_extents = f->m.n_extents;
  return rc;
}

static int persist_delete(zfs *fs, uint64_t id) { return append_record(fs, ZFS_REC_FILE_DELETE, (uint8_t *)&id, 8); }

/* ---------- file table ---------- */

static fobj *find(zfs *fs, const char *name, uint32_t *name_index) {
  fobj *f = zfs_index_get_name(&fs->by_name, name);
  if (f && name_index)
    for (uint32_t k = 0; k < f->m.n_names; k++)
      if (strcmp(f->m.names[k], name) == 0) *name_index = k;
  return f;
}

static fobj *find_id(zfs *fs, uint64_t id) { return zfs_index_get_id(&fs->by_id, id); }

static fobj *new_fobj(void) {
  fobj *f = calloc(1, sizeof *f);
  if (f) pthread_mutex_init(&f->wmu, NULL);
  return f;
}

static void free_fobj(fobj *f) {
  zfs_file_free(&f->m);
  free(f->wbuf);
  pthread_mutex_destroy(&f->wmu);
  free(f);
}

/* Bytes of the file, also those still in the writer's buffer. */
static uint64_t file_size_locked(fobj *f) {
  pthread_mutex_lock(&f->wmu);
  uint64_t n = f->m.size + f->wlen - f->wdone;
  pthread_mutex_unlock(&f->wmu);
  return n;
}

/* Takes the names of f out of the name index (those that still lead to f). */
static void unindex_names(zfs *fs, const fobj *f) {
  for (uint32_t k = 0; k < f->m.n_names; k++) zfs_index_del_name(&fs->by_name, f->m.names[k], f);
}

/* Adds a file to the table and both indexes; a name another file holds now leads to this one. */
static int add_file(zfs *fs, fobj *f) {
  if (fs->n_files == fs->cap_files) {
    size_t cap = fs->cap_files ? fs->cap_files * 2 : 64;
    fobj **n = realloc(fs->files, cap * sizeof *n);
    if (!n) return -ENOMEM;
    fs->files = n, fs->cap_files = cap;
  }
  if (zfs_index_put_id(&fs->by_id, f->m.id, f)) return -ENOMEM;
  for (uint32_t k = 0; k < f->m.n_names; k++)
    if (zfs_index_put_name(&fs->by_name, f->m.names[k], f)) {
      unindex_names(fs, f);
      zfs_index_del_id(&fs->by_id, f->m.id);
      return -ENOMEM;
    }
  f->slot = fs->n_files;
  fs->files[fs->n_files++] = f;
  return 0;
}

/* Takes a file out of the table and the indexes (the caller frees it). */
static void remove_file(zfs *fs, fobj *f) {
  unindex_names(fs, f);
  zfs_index_del_id(&fs->by_id, f->m.id);
  fobj *last = fs->files[--fs->n_files];
  fs->files[f->slot] = last;
  last->slot = f->slot;
}

static void clear_files(zfs *fs) {
  for (size_t i = 0; i < fs->n_files; i++) free_fobj(fs->files[i]);
  fs->n_files = 0;
  zfs_index_clear(&fs->by_name);
  zfs_index_clear(&fs->by_id);
}

/* Name k of f goes away (from the index too, where it still leads to f). */
static void drop_name(zfs *fs, fobj *f, uint32_t k) {
  zfs_index_del_name(&fs->by_name, f->m.names[k], f);
  free(f->m.names[k]);
  f->m.names[k] = f->m.names[--f->m.n_names];
}

/* Drops a file that has no names and no handles: its zones lose live bytes, empty ones reset. */
static void release_space(zfs *fs, fobj *f) {
  for (uint32_t i = 0; i < f->m.n_extents; i++) {
    uint32_t z = zone_of(fs, f->m.extents[i].start);
    zone_state *zs = &fs->zones[z];
    uint64_t phys = round_up(f->m.extents[i].len, fs->g.lba_size);
    zs->live -= f->m.extents[i].len < zs->live ? f->m.extents[i].len : zs->live;
    zs->live_phys -= phys < zs->live_phys ? phys : zs->live_phys;
    if (zs->live_phys == 0 && !zs->busy && zs->wp > zs->start) {
      if (zkv_dev_zone_mgmt(fs->dev, z, ZKV_ZONE_RESET) == 0) {
        zs->wp = zs->start;
        zs->lifetime = 0;
        fs->st.resets++;
        fs->st.resets_without_copy++;
      }
    }
  }
}

static void drop_file(zfs *fs, fobj *f) {
  remove_file(fs, f);
  release_space(fs, f);
  free_fobj(f);
}

static int remove_name(zfs *fs, fobj *f, uint32_t k) {
  drop_name(fs, f, k);
  if (f->m.n_names > 0) return persist_file(fs, f);
  int rc = persist_delete(fs, f->m.id);
  if (f->refs == 0) drop_file(fs, f);
  return rc;
}

/* ---------- zone allocation ---------- */

/* ZenFS GetLifeTimeDiff: a zone holding data that lives at least as long is a good match. */
static unsigned lifetime_diff(uint32_t zone_lt, uint32_t file_lt) {
  if (file_lt <= 1) return zone_lt == file_lt ? 0 : LIFETIME_DIFF_NOT_GOOD;
  if (zone_lt > file_lt) return zone_lt - file_lt;
  if (zone_lt == file_lt) return LIFETIME_DIFF_COULD_BE_WORSE;
  return LIFETIME_DIFF_NOT_GOOD;
}

static uint32_t active_data_zones(const zfs *fs) {
  uint32_t n = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    n += fs->zones[z].wp > fs->zones[z].start && fs->zones[z].wp < zone_end(fs, z);
  return n;
}

/* Finishes the partially written, idle zone with the least room left (ZenFS FinishCheapestIOZone). */
static int finish_cheapest(zfs *fs) {
  int64_t best = -1;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    zone_state *s = &fs->zones[z];
    if (s->busy || s->wp == s->start || s->wp >= zone_end(fs, z)) continue;
    if (best < 0 || zone_end(fs, z) - s->wp < zone_end(fs, (uint32_t)best) - fs->zones[best].wp) best = z;
  }
  if (best < 0) return -ENOSPC;
  int rc = zkv_dev_zone_mgmt(fs->dev, (uint32_t)best, ZKV_ZONE_FINISH);
  if (rc == 0) fs->zones[best].wp = zone_end(fs, (uint32_t)best);
  return rc;
}

/* Who may take the last empty zones: GC may take any; RocksDB's small metadata files (MANIFEST,
 * CURRENT, OPTIONS, ...) all but the last; data files (SST, WAL) all but the last two. So a full
 * device still accepts the MANIFEST edit that deletes files, and GC can always run. */
enum { FOR_DATA = 0, FOR_GC = 1, FOR_METADATA = 2 };

static int is_metadata_file(const char *name) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t n = strlen(base);
  return strncmp(base, "MANIFEST-", 9) == 0 || strcmp(base, "CURRENT") == 0 || strncmp(base, "OPTIONS-", 8) == 0 ||
         strcmp(base, "IDENTITY") == 0 || (n > 6 && strcmp(base + n - 6, ".dbtmp") == 0);
}

static int purpose_of(const char *file_name, int for_gc) {
  return for_gc ? FOR_GC : is_metadata_file(file_name) ? FOR_METADATA : FOR_DATA;
}

/* Whether an allocation of this purpose may start an empty zone without eating into the reserves. */
static int may_take_empty_zone(const zfs *fs, int purpose) {
  uint32_t empty = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    empty += !fs->zones[z].busy && fs->zones[z].wp == fs->zones[z].start;
  return empty > (purpose == FOR_GC ? 0u : purpose == FOR_METADATA ? 1u : 2u);
}

/* A zone GC may empty now: a full data zone nobody writes, whose live data occupies less than the
 * zone (by blocks: a zone of padded WAL syncs holds little live data but moving it frees nothing)
 * and at most max_live bytes. */
static int victim_eligible(zfs *fs, uint32_t zone, uint64_t max_live) {
  zone_state *s = &fs->zones[zone];
  return zone >= fs->sb.meta_zones && !s->busy && s->wp >= zone_end(fs, zone) && s->live_phys < fs->g.zone_cap &&
         s->live_phys <= max_live;
}

static void fill_zone_info(zfs *fs, uint32_t zone, zfs_zone_info *out) {
  zone_state *z = &fs->zones[zone];
  *out = (zfs_zone_info){.index = zone,
                         .start = z->start,
                         .capacity = fs->g.zone_cap,
                         .wp = z->wp,
                         .live = z->live,
                         .lifetime = z->lifetime,
                         .meta = zone < fs->sb.meta_zones,
                         .busy = z->busy,
                         .copy = z->live_phys,
                         .victim_ok = victim_eligible(fs, zone, UINT64_MAX)};
}

static int allocate_zone_for(zfs *fs, uint32_t lifetime, int purpose, uint32_t *out);

/* Asks the external policy and carries out its decision, checking it against the zones' state:
 * a policy bug becomes a clear error, never a write into the wrong zone.
 *
 * Where the policy finds no zone (NEED_GC, NO_SPACE) or asks for an empty zone the reserves keep
 * from this writer, the built-in rule decides instead, without the policy's finishes: it writes
 * into any partly written zone with room (relaxing the lifetime match) or, for GC, an empty zone.
 * ZenFS fails such writes with NoSpace while open zones have room, and its GC migrates only into
 * open zones; both are the false "No space left" its users report. GC runs only when no zone has
 * room at all. */
static int allocate_by_policy(zfs *fs, const zfs_alloc_request *req, uint32_t *out) {
  for (uint32_t z = 0; z < fs->g.nr_zones; z++) fill_zone_info(fs, z, &fs->alloc_view[z]);
  zfs_alloc_decision d = {0};
  int rc = fs->allocator(fs->allocator_ctx, req, fs->alloc_view, fs->g.nr_zones, fs->active_limit, &d);
  if (rc) return rc;
  int purpose = purpose_of(req->file_name, req->for_gc);
  if (d.action == ZFS_ALLOC_WAIT) return -ENOSPC; /* the caller waits for a zone to be released */
  if (d.action == ZFS_ALLOC_NEED_GC || d.action == ZFS_ALLOC_NO_SPACE)
    return allocate_zone_for(fs, req->lifetime, purpose, out);
  uint32_t z = d.zone;
  if ((d.action != ZFS_ALLOC_USE && d.action != ZFS_ALLOC_OPEN_EMPTY) || z < fs->sb.meta_zones || z >= fs->g.nr_zones ||
      fs->zones[z].busy || zone_end(fs, z) - fs->zones[z].wp < fs->g.lba_size ||
      (d.action == ZFS_ALLOC_OPEN_EMPTY && fs->zones[z].wp != fs->zones[z].start))
    return -EINVAL;
  /* The reserves hold whatever the policy says: GC may take any empty zone, metadata files all but
   * the last, data files all but the last two. */
  if (d.action == ZFS_ALLOC_OPEN_EMPTY && !may_take_empty_zone(fs, purpose))
    return allocate_zone_for(fs, req->lifetime, purpose, out);
  for (uint32_t i = 0; i < d.n_finish && i < ZFS_ALLOC_MAX_FINISH; i++) {
    uint32_t f = d.finish[i];
    if (f < fs->sb.meta_zones || f >= fs->g.nr_zones || f == z || fs->zones[f].busy) return -EINVAL;
    if (fs->zones[f].wp > fs->zones[f].start && fs->zones[f].wp < zone_end(fs, f)) {
      if ((rc = zkv_dev_zone_mgmt(fs->dev, f, ZKV_ZONE_FINISH))) return rc;
      fs->zones[f].wp = zone_end(fs, f);
    }
  }
  if (d.action == ZFS_ALLOC_OPEN_EMPTY) fs->zones[z].lifetime = req->lifetime;
  fs->zones[z].busy = 1;
  *out = z;
  return 0;
}

void zfs_set_victim_chooser(zfs *fs, zfs_victim_chooser fn, void *ctx) {
  pthread_mutex_lock(&fs->mu);
  fs->victim_chooser = fn;
  fs->victim_chooser_ctx = ctx;
  pthread_mutex_unlock(&fs->mu);
}

int zfs_set_gc_start_percent(zfs *fs, uint32_t percent) {
  if (percent > 100) return -EINVAL;
  pthread_mutex_lock(&fs->mu);
  fs->gc_free_percent = percent;
  pthread_cond_signal(&fs->gc_wake);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

void zfs_set_allocator(zfs *fs, zfs_allocator fn, void *ctx) {
  pthread_mutex_lock(&fs->mu);
  fs->allocator = fn;
  fs->allocator_ctx = ctx;
  pthread_mutex_unlock(&fs->mu);
}

/* Picks a zone for a writer of the given lifetime, marking it busy. GC may use the one active
 * zone held back for it. */
static int allocate_zone_for(zfs *fs, uint32_t lifetime, int purpose, uint32_t *out) {
  int for_gc = purpose == FOR_GC;
  int64_t best = -1;
  unsigned best_diff = LIFETIME_DIFF_NOT_GOOD + 1;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    zone_state *s = &fs->zones[z];
    if (s->busy || s->wp == s->start || zone_end(fs, z) - s->wp < fs->g.lba_size) continue;
    unsigned d = lifetime_diff(s->lifetime, lifetime);
    if (d <= best_diff) best = z, best_diff = d;
  }
  if (best >= 0 && best_diff < LIFETIME_DIFF_COULD_BE_WORSE) goto take;
  /* Empty zones beyond the reserves (see may_take_empty_zone); GC may use them all. */
  for (int attempt = 0; attempt < 2; attempt++) {
    if (!may_take_empty_zone(fs, purpose)) break; /* only reserves are left */
    if (!fs->active_limit || active_data_zones(fs) < fs->active_limit + (for_gc ? 1u : 0u)) {
      for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
        zone_state *s = &fs->zones[z];
        if (!s->busy && s->wp == s->start) {
          s->lifetime = lifetime;
          best = z;
          goto take;
        }
      }
      break; /* no empty zone */
    }
    if (best >= 0) goto take; /* relax the lifetime match rather than finish a zone */
    if (finish_cheapest(fs)) break;
  }
  if (best < 0) return -ENOSPC;
take:
  fs->zones[best].busy = 1;
  *out = (uint32_t)best;
  return 0;
}

/* ---------- writing ---------- */

/* Records `logical` bytes written at device offset `at` in the file's extent list. */
static int add_extent(zfs *fs, fobj *f, uint64_t at, uint64_t logical) {
  zfs_file_meta *m = &f->m;
  if (m->n_extents) {
    zfs_extent *last = &m->extents[m->n_extents - 1];
    /* Contiguous on the device is not enough: with zone capacity equal to zone size the next
     * zone starts where this one ends, and an extent must never cross a zone boundary. */
    if (last->start + last->len == at && last->len % fs->g.lba_size == 0 &&
        zone_of(fs, last->start) == zone_of(fs, at)) {
      last->len += logical;
      m->size += logical;
      return 0;
    }
  }
  zfs_extent *n = realloc(m->extents, (m->n_extents + 1) * sizeof *n);
  if (!n) return -ENOMEM;
  m->extents = n;
  m->extents[m->n_extents++] = (zfs_extent){at, logical};
  m->size += logical;
  return 0;
}

/* Takes a zone for one write: the writer's previous zone if it has room (keeps the file
 * contiguous), else one from the allocator. Zones are held only for the duration of a write, so
 * more writers than the active-zone limit share zones instead of failing; when every usable zone
 * is being written, the writer waits for one. Called with fs->mu held. */
static int allocate_zone(zfs *fs, const fobj *f, uint32_t *out) {
  return allocate_zone_for(fs, f->m.lifetime, purpose_of(f->m.n_names ? f->m.names[0] : "", 0), out);
}

static int take_zone(zfs *fs, fobj *f, uint32_t *out) {
  for (;;) {
    if (f->zone >= 0) {
      zone_state *zs = &fs->zones[f->zone];
      if (!zs->busy && zs->wp > zs->start && zone_end(fs, (uint32_t)f->zone) - zs->wp >= fs->g.lba_size) {
        zs->busy = 1;
        *out = (uint32_t)f->zone;
        return 0;
      }
    }
    zfs_alloc_request req = {f->m.id, f->m.n_names ? f->m.names[0] : "", f->m.lifetime, 0};
    int rc = fs->allocator ? allocate_by_policy(fs, &req, out) : allocate_zone(fs, f, out);
    if (rc != -ENOSPC) return rc;
    int busy = 0;
    for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) busy |= fs->zones[z].busy;
    if (!busy) return rc;
    pthread_cond_wait(&fs->zone_released, &fs->mu);
  }
}

/* ---------- garbage collection ---------- */

/* Copies one extent (block-aligned start) into zones allocated for `lifetime`; the new extents
 * go to *out (caller frees). Called with fs->mu and the io_lock (write) held. */
static int move_extent(zfs *fs, zfs_extent e, const fobj *f, int64_t *gc_zone, zfs_extent **out, uint32_t *n_out) {
  zfs_alloc_request req = {f->m.id, f->m.n_names ? f->m.names[0] : "", f->m.lifetime, 1};
  uint32_t block = fs->g.lba_size;
  uint64_t padded = round_up(e.len, block), moved = 0;
  uint8_t *buf = malloc(padded);
  if (!buf) return -ENOMEM;
  int rc = zkv_dev_read(fs->dev, e.start, buf, padded);
  *out = NULL;
  *n_out = 0;
  while (!rc && moved < padded) {
    uint32_t z;
    /* GC keeps writing into the zone it wrote last while it has room (as a writer keeps its zone);
     * asking for a zone per chunk opened a new zone for every chunk, up to the active limit. */
    zone_state *last = *gc_zone >= 0 ? &fs->zones[*gc_zone] : NULL;
    if (last && !last->busy && last->wp > last->start && zone_end(fs, (uint32_t)*gc_zone) - last->wp >= block) {
      z = (uint32_t)*gc_zone;
      last->busy = 1;
    } else if ((rc = fs->allocator ? allocate_by_policy(fs, &req, &z)
                                   : allocate_zone_for(fs, f->m.lifetime, FOR_GC, &z))) {
      break;
    }
    *gc_zone = z;
    uint64_t at = fs->zones[z].wp, room = zone_end(fs, z) - at;
    uint64_t chunk = padded - moved < room ? padded - moved : room;
    if (chunk > fs->g.zasl) chunk = fs->g.zasl / block * block;
    rc = zkv_dev_write(fs->dev, at, buf + moved, chunk, 0);
    fs->zones[z].busy = 0;
    if (rc) break;
    uint64_t real = moved + chunk <= e.len ? chunk : e.len - moved;
    fs->zones[z].wp = at + chunk;
    fs->zones[z].live += real;
    fs->zones[z].live_phys += chunk;
    fs->st.gc_bytes += chunk;
    fs->data_gen++;
    zfs_extent *n = realloc(*out, (*n_out + 1) * sizeof *n);
    if (!n) {
      rc = -ENOMEM;
      break;
    }
    *out = n;
    (*out)[(*n_out)++] = (zfs_extent){at, real};
    moved += chunk;
  }
  free(buf);
  return rc;
}

/* The built-in victim: the eligible zone with the fewest blocks to copy (greedy, lowest index on a
 * tie), or -1. */
static int64_t greedy_victim(zfs *fs, uint64_t max_live) {
  int64_t victim = -1;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (victim_eligible(fs, z, max_live) && (victim < 0 || fs->zones[z].live_phys < fs->zones[victim].live_phys))
      victim = z;
  return victim;
}

/* Asks the external policy. A full data zone nobody writes that is not eligible this time (over
 * the bound, or all live) declines the collection (-ENOSPC); any other zone is a policy bug and
 * fails it (-EINVAL): the file system never resets a zone on a policy's mistake. */
static int64_t policy_victim(zfs *fs, uint64_t max_live, int *rc) {
  for (uint32_t z = 0; z < fs->g.nr_zones; z++) {
    fill_zone_info(fs, z, &fs->alloc_view[z]);
    fs->alloc_view[z].victim_ok = victim_eligible(fs, z, max_live);
  }
  uint32_t victim = 0;
  *rc = fs->victim_chooser(fs->victim_chooser_ctx, fs->alloc_view, fs->g.nr_zones, &victim);
  if (*rc) return -1;
  int full_and_idle = victim >= fs->sb.meta_zones && victim < fs->g.nr_zones && !fs->zones[victim].busy &&
                      fs->zones[victim].wp >= zone_end(fs, victim);
  if (!full_and_idle || !victim_eligible(fs, victim, max_live)) {
    *rc = full_and_idle ? -ENOSPC : -EINVAL; /* all live or over this collection's bound: declined */
    return -1;
  }
  return victim;
}

/* Reclaims one full zone whose live data is at most `max_live`, chosen by the victim policy
 * (greedy unless one is installed). Returns 0 when a zone became empty, -ENOSPC when no zone
 * qualifies. Called with fs->mu and io_lock (write) held. */
static int gc_one_zone(zfs *fs, uint64_t max_live) {
  int rc = 0;
  int64_t victim = fs->victim_chooser ? policy_victim(fs, max_live, &rc) : greedy_victim(fs, max_live);
  if (rc) return rc;
  if (victim < 0) return -ENOSPC;
  zone_state *v = &fs->zones[victim];
  v->busy = 1; /* nobody allocates it while its data moves */
  int copied = v->live > 0;
  /* Order (docs/zone-fs.md, "Order of writes"): copy every live extent, flush the copies, then
   * write the moved files' records, and only then reset the victim. A power cut anywhere leaves
   * either the old extents (records not yet written; the copies are unreferenced garbage) or the
   * new ones, durable before any record points at them. */
  int64_t gc_zone = -1; /* the zone the copies go to */
  fobj **moved_files = calloc(fs->n_files ? fs->n_files : 1, sizeof *moved_files);
  size_t n_moved = 0;
  if (!moved_files) rc = -ENOMEM;
  for (size_t i = 0; !rc && i < fs->n_files; i++) {
    fobj *f = fs->files[i];
    int changed = 0;
    for (uint32_t k = 0; !rc && k < f->m.n_extents; k++) {
      if (zone_of(fs, f->m.extents[k].start) != (uint32_t)victim) continue;
      zfs_extent *moved = NULL;
      uint32_t n = 0;
      rc = move_extent(fs, f->m.extents[k], f, &gc_zone, &moved, &n);
      if (rc) {
        free(moved);
        break;
      }
      /* replace extent k by the n moved pieces */
      zfs_extent *ext = realloc(f->m.extents, (f->m.n_extents + n - 1) * sizeof *ext);
      if (!ext) {
        free(moved);
        rc = -ENOMEM;
        break;
      }
      memmove(ext + k + n, ext + k + 1, (f->m.n_extents - k - 1) * sizeof *ext);
      memcpy(ext + k, moved, n * sizeof *ext);
      f->m.extents = ext;
      f->m.n_extents += n - 1;
      k += n - 1;
      free(moved);
      changed = 1;
    }
    if (changed) moved_files[n_moved++] = f;
  }
  if (!rc) rc = zkv_dev_flush(fs->dev);
  for (size_t i = 0; !rc && i < n_moved; i++) rc = persist_file(fs, moved_files[i]);
  free(moved_files);
  if (!rc) rc = zkv_dev_zone_mgmt(fs->dev, (uint32_t)victim, ZKV_ZONE_RESET);
  v->busy = 0;
  pthread_cond_broadcast(&fs->zone_released); /* writers may wait for the zones GC held */
  if (rc) return rc;
  v->wp = v->start;
  v->live = 0;
  v->live_phys = 0;
  v->lifetime = 0;
  fs->st.resets++;
  if (!copied) fs->st.resets_without_copy++;
  return 0;
}

/* Runs GC from outside the lock (lock order: io_lock, then mu) on a zone holding at most
 * `max_live` bytes of live blocks. */
static int collect_garbage(zfs *fs, uint64_t max_live) {
  pthread_rwlock_wrlock(&fs->io_lock);
  pthread_mutex_lock(&fs->mu);
  int rc = gc_one_zone(fs, max_live);
  pthread_mutex_unlock(&fs->mu);
  pthread_rwlock_unlock(&fs->io_lock);
  return rc;
}

/* Background GC: when free space falls to gc_free_percent, reclaim zones that are at least half
 * garbage (ZenFS's GC worker starts at 20% free; the half-garbage bar keeps it from copying
 * mostly-live zones while there is no pressure). Checks every 100 ms. */
static void *gc_worker(void *arg) {
  zfs *fs = arg;
  pthread_mutex_lock(&fs->mu);
  while (!fs->gc_stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&fs->gc_wake, &fs->mu, &until);
    if (fs->gc_stop) break;
    uint64_t free_bytes = 0, total = 0;
    for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
      free_bytes += zone_end(fs, z) - fs->zones[z].wp;
      total += fs->g.zone_cap;
    }
    if (!fs->gc_free_percent || free_bytes * 100 > total * fs->gc_free_percent) continue;
    pthread_mutex_unlock(&fs->mu);
    pthread_rwlock_wrlock(&fs->io_lock);
    pthread_mutex_lock(&fs->mu);
    if (!fs->gc_stop) gc_one_zone(fs, fs->g.zone_cap / 2);
    pthread_rwlock_unlock(&fs->io_lock);
  }
  pthread_mutex_unlock(&fs->mu);
  return NULL;
}

/* Writes wbuf[0, n) (n whole blocks, or the padded tail when `logical` < n) into zones. */
static int write_out(zfs *fs, fobj *f, size_t n, size_t logical) {
  size_t done = f->wdone; /* after a failed attempt, what already reached the device stays */
  while (done < n) {
    pthread_mutex_lock(&fs->mu);
    uint32_t z = 0;
    int rc = take_zone(fs, f, &z);
    uint64_t at = rc ? 0 : fs->zones[z].wp, room = rc ? 0 : zone_end(fs, z) - at;
    if (!rc) f->zone = (int32_t)z;
    int metadata = purpose_of(f->m.n_names ? f->m.names[0] : "", 0) == FOR_METADATA; /* names need the lock */
    pthread_mutex_unlock(&fs->mu);
    if (rc == -ENOSPC) {
      /* A data writer's GC needs a victim at least 1/8 garbage: on a nearly full device, copying a
       * whole zone to win a few blocks, which the writer then fills, would repeat for every few
       * blocks written (a copy spiral of thousands of bytes per byte written). NoSpace is the
       * answer then. RocksDB's metadata files (the MANIFEST edit that deletes files) and
       * zfs_reclaim (resume) take any garbage: their writes are small and are what frees space. */
      if (collect_garbage(fs, metadata ? UINT64_MAX : fs->g.zone_cap - fs->g.zone_cap / 8) == 0) continue;
      return rc;
    }
    if (rc) return rc;
    size_t chunk = n - done < room ? n - done : (size_t)room;
    if (chunk > fs->g.zasl) chunk = fs->g.zasl / fs->g.lba_size * fs->g.lba_size;
    rc = zkv_dev_write(fs->dev, at, f->wbuf + done, chunk, 0);
    size_t real = done + chunk <= logical ? chunk : (logical > done ? logical - done : 0);
    pthread_mutex_lock(&fs->mu);
    zone_state *zs = &fs->zones[z];
    zs->busy = 0;
    if (!rc) {
      zs->wp = at + chunk;
      zs->live += real;
      if (real) zs->live_phys += chunk;
      pthread_mutex_lock(&f->wmu);
      rc = real ? add_extent(fs, f, at, real) : 0;
      f->wdone += real;
      pthread_mutex_unlock(&f->wmu);
      fs->st.host_bytes += real;
      fs->data_gen++;
      fs->st.padding_bytes += chunk - real;
    }
    pthread_cond_broadcast(&fs->zone_released);
    pthread_mutex_unlock(&fs->mu);
    if (rc) return rc;
    done += chunk;
  }
  return 0;
}

int zfs_append(zfs_file *h, const void *buf, size_t len) {
  if (!h->writer) return -EBADF;
  if (h->fs->readonly) return -EROFS;
  fobj *f = h->f;
  zfs *fs = h->fs;
  const uint8_t *p = buf;
  while (len) {
    size_t take = WRITE_BUFFER - f->wlen < len ? WRITE_BUFFER - f->wlen : len;
    pthread_mutex_lock(&f->wmu); /* readers may be copying from wbuf */
    memcpy(f->wbuf + f->wlen, p, take);
    f->wlen += take;
    pthread_mutex_unlock(&f->wmu);
    p += take, len -= take;
    if (f->wlen == WRITE_BUFFER) {
      int rc = write_out(fs, f, WRITE_BUFFER, WRITE_BUFFER);
      if (rc) return rc;
      pthread_mutex_lock(&f->wmu);
      f->wlen = f->wdone = 0;
      pthread_mutex_unlock(&f->wmu);
    }
  }
  return 0;
}

int zfs_sync(zfs_file *h) {
  if (!h->writer) return 0;
  fobj *f = h->f;
  zfs *fs = h->fs;
  if (f->wlen) {
    size_t padded = round_up(f->wlen, fs->g.lba_size);
    memset(f->wbuf + f->wlen, 0, padded - f->wlen);
    int rc = write_out(fs, f, padded, f->wlen);
    if (rc) return rc;
    pthread_mutex_lock(&f->wmu);
    f->wlen = f->wdone = 0;
    pthread_mutex_unlock(&f->wmu);
  }
  /* data durable before the metadata that points at it; the flush runs outside the lock, and
   * persist_file flushes again only if other writers wrote meanwhile */
  pthread_mutex_lock(&fs->mu);
  uint64_t gen = fs->data_gen;
  pthread_mutex_unlock(&fs->mu);
  int rc = zkv_dev_flush(fs->dev);
  if (rc) return rc;
  pthread_mutex_lock(&fs->mu);
  if (gen > fs->durable_gen) fs->durable_gen = gen;
  f->m.mtime = now_us();
  rc = persist_sync(fs, f);
  pthread_mutex_unlock(&fs->mu);
  return rc;
}

/* ---------- handles ---------- */

static zfs_file *new_handle(zfs *fs, fobj *f, int writer) {
  zfs_file *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->fs = fs, h->f = f, h->writer = writer;
  f->refs++;
  return h;
}

zfs_file *zfs_create(zfs *fs, const char *name, uint32_t lifetime, int *rc) {
  if (!name || !*name || strlen(name) > ZFS_MAX_NAME || fs->readonly) {
    *rc = fs->readonly ? -EROFS : -EINVAL;
    return NULL;
  }
  pthread_mutex_lock(&fs->mu);
  uint32_t k;
  fobj *old = find(fs, name, &k);
  zfs_file *h = NULL;
  *rc = 0;
  if (old && old->has_writer) *rc = -EBUSY;
  fobj *f = NULL;
  if (!*rc) {
    f = new_fobj();
    if (f && (f->m.names = calloc(1, sizeof *f->m.names)) != NULL) {
      f->m.names[0] = strdup(name);
      f->m.n_names = f->m.names[0] ? 1 : 0;
      f->wbuf = malloc(WRITE_BUFFER);
    }
    if (!f || !f->m.n_names || !f->wbuf) {
      if (f) free_fobj(f);
      f = NULL;
      *rc = -ENOMEM;
    }
  }
  if (f) {
    f->m.n_names = 1;
    f->m.id = fs->next_file_id++;
    f->m.lifetime = lifetime;
    f->m.mtime = now_us();
    f->m.active_extent_start = ZFS_NO_ACTIVE_EXTENT;
    f->zone = -1;
    f->has_writer = 1;
    if ((*rc = add_file(fs, f))) {
      free_fobj(f);
    } else if ((*rc = persist_file(fs, f))) {
      remove_file(fs, f);
      if (old) zfs_index_put_name(&fs->by_name, old->m.names[k], old); /* the name is old's again */
      free_fobj(f);
    } else if (!(h = new_handle(fs, f, 1))) {
      *rc = -ENOMEM;
    } else if (old) {
      /* The new file's record claimed the name (rule 3 of "Order of writes"); the replaced file
       * loses it only now, so a crash in between never leaves the name without a file. Replay
       * gives the name to the new record even if this delete never reaches the device. */
      remove_name(fs, old, k);
    }
  }
  pthread_mutex_unlock(&fs->mu);
  return h;
}

zfs_file *zfs_reopen(zfs *fs, const char *name, int *rc) {
  if (fs->readonly) {
    *rc = -EROFS;
    return NULL;
  }
  pthread_mutex_lock(&fs->mu);
  fobj *f = find(fs, name, NULL);
  zfs_file *h = NULL;
  *rc = !f ? -ENOENT : f->has_writer ? -EBUSY : 0;
  if (!*rc && !(f->wbuf = malloc(WRITE_BUFFER))) *rc = -ENOMEM;
  if (!*rc && !(h = new_handle(fs, f, 1))) {
    free(f->wbuf);
    f->wbuf = NULL;
    *rc = -ENOMEM;
  }
  if (h) {
    f->has_writer = 1;
    f->zone = -1;
    f->wlen = f->wdone = 0;
  }
  pthread_mutex_unlock(&fs->mu);
  return h;
}

void zfs_set_lifetime(zfs_file *h, uint32_t lifetime) {
  pthread_mutex_lock(&h->fs->mu);
  h->f->m.lifetime = lifetime;
  pthread_mutex_unlock(&h->fs->mu);
}

uint64_t zfs_free_bytes(zfs *fs) {
  pthread_mutex_lock(&fs->mu);
  uint64_t n = 0;
  int reserved = 0; /* two empty zones are GC's and the metadata files': not free for data */
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    if (fs->zones[z].wp == fs->zones[z].start && reserved < 2) {
      reserved++;
      continue;
    }
    n += zone_end(fs, z) - fs->zones[z].wp;
  }
  pthread_mutex_unlock(&fs->mu);
  return n;
}

uint64_t zfs_reclaim(zfs *fs, uint64_t want) {
  uint64_t free_bytes;
  /* terminates: each round turns at least one block of garbage into free space */
  while ((free_bytes = zfs_free_bytes(fs)) < want && !fs->readonly && collect_garbage(fs, UINT64_MAX) == 0) {}
  return free_bytes;
}

zfs_file *zfs_open(zfs *fs, const char *name, int *rc) {
  pthread_mutex_lock(&fs->mu);
  fobj *f = find(fs, name, NULL);
  zfs_file *h = f ? new_handle(fs, f, 0) : NULL;
  *rc = f ? (h ? 0 : -ENOMEM) : -ENOENT;
  pthread_mutex_unlock(&fs->mu);
  return h;
}

uint64_t zfs_file_size(zfs_file *h) { return file_size_locked(h->f); }

int zfs_close(zfs_file *h) {
  if (!h) return 0;
  zfs *fs = h->fs;
  fobj *f = h->f;
  int rc = h->writer ? zfs_sync(h) : 0;
  pthread_mutex_lock(&fs->mu);
  if (h->writer) {
    f->zone = -1;
    f->has_writer = 0;
    pthread_mutex_lock(&f->wmu);
    if (f->wlen == f->wdone) { /* else a failed sync left data only here: readers still need it */
      free(f->wbuf);
      f->wbuf = NULL;
      f->wlen = f->wdone = 0;
    }
    pthread_mutex_unlock(&f->wmu);
  }
  if (--f->refs == 0 && f->m.n_names == 0) drop_file(fs, f);
  pthread_mutex_unlock(&fs->mu);
  free(h);
  return rc;
}

int64_t zfs_pread(zfs_file *h, uint64_t offset, void *buf, size_t len) {
  zfs *fs = h->fs;
  fobj *f = h->f;
  uint8_t *out = buf;
  size_t done = 0;
  uint32_t block = fs->g.lba_size;
  uint8_t *bounce = NULL;
  size_t bounce_len = 0;
  int64_t rc = 0;
  pthread_rwlock_rdlock(&fs->io_lock); /* GC does not move data under a reader */
  while (done < len) {
    uint64_t pos = offset + done;
    pthread_mutex_lock(&fs->mu);
    pthread_mutex_lock(&f->wmu);
    uint64_t size = f->m.size + f->wlen - f->wdone;
    if (pos >= size) {
      pthread_mutex_unlock(&f->wmu);
      pthread_mutex_unlock(&fs->mu);
      break;
    }
    size_t want = len - done < size - pos ? len - done : (size_t)(size - pos);
    if (pos >= f->m.size) { /* not written out yet: from the writer's buffer */
      memcpy(out + done, f->wbuf + f->wdone + (pos - f->m.size), want);
      pthread_mutex_unlock(&f->wmu);
      pthread_mutex_unlock(&fs->mu);
      done += want;
      continue;
    }
    pthread_mutex_unlock(&f->wmu);
    uint64_t skip = pos, dev_off = 0, n = 0;
    for (uint32_t i = 0; i < f->m.n_extents; i++) {
      if (skip < f->m.extents[i].len) {
        dev_off = f->m.extents[i].start + skip;
        n = f->m.extents[i].len - skip;
        break;
      }
      skip -= f->m.extents[i].len;
    }
    pthread_mutex_unlock(&fs->mu);
    if (n > want) n = want;
    uint64_t a = dev_off / block * block, e = round_up(dev_off + n, block);
    if (e - a > bounce_len) {
      free(bounce);
      bounce_len = e - a;
      if (!(bounce = malloc(bounce_len))) {
        rc = -ENOMEM;
        break;
      }
    }
    if ((rc = zkv_dev_read(fs->dev, a, bounce, e - a))) break;
    memcpy(out + done, bounce + (dev_off - a), n);
    done += n;
  }
  pthread_rwlock_unlock(&fs->io_lock);
  free(bounce);
  return rc ? rc : (int64_t)done;
}

/* ---------- namespace ---------- */

int zfs_stat(zfs *fs, const char *name, uint64_t *size) {
  pthread_mutex_lock(&fs->mu);
  fobj *f = find(fs, name, NULL);
  if (f && size) *size = file_size_locked(f);
  pthread_mutex_unlock(&fs->mu);
  return f ? 0 : -ENOENT;
}

int zfs_delete(zfs *fs, const char *name) {
  if (fs->readonly) return -EROFS;
  pthread_mutex_lock(&fs->mu);
  uint32_t k;
  fobj *f = find(fs, name, &k);
  int rc = f ? remove_name(fs, f, k) : -ENOENT;
  pthread_mutex_unlock(&fs->mu);
  return rc;
}

int zfs_rename(zfs *fs, const char *from, const char *to) {
  if (fs->readonly) return -EROFS;
  if (!to || !*to || strlen(to) > ZFS_MAX_NAME) return -EINVAL;
  if (strcmp(from, to) == 0) return zfs_stat(fs, from, NULL); /* a rename onto itself changes nothing */
  pthread_mutex_lock(&fs->mu);
  uint32_t k, kt;
  fobj *f = find(fs, from, &k);
  int rc = f ? 0 : -ENOENT;
  fobj *target = rc ? NULL : find(fs, to, &kt);
  if (target == f) target = NULL;
  char *copy = rc ? NULL : strdup(to);
  if (!rc && !copy) rc = -ENOMEM;
  if (!rc && zfs_index_put_name(&fs->by_name, copy, f)) { /* `to` leads to f from now on */
    free(copy);
    rc = -ENOMEM;
  }
  if (!rc) {
    zfs_index_del_name(&fs->by_name, f->m.names[k], f);
    free(f->m.names[k]);
    f->m.names[k] = copy;
    /* One record makes the rename durable; the replaced file's delete follows. A crash between
     * them leaves two files with the name `to`; replay gives it to the record written last
     * (claim_names). */
    rc = persist_file(fs, f);
    if (!rc && target) rc = remove_name(fs, target, kt);
  }
  pthread_mutex_unlock(&fs->mu);
  return rc;
}

int zfs_link(zfs *fs, const char *existing, const char *link) {
  if (fs->readonly) return -EROFS;
  if (!link || !*link || strlen(link) > ZFS_MAX_NAME) return -EINVAL;
  pthread_mutex_lock(&fs->mu);
  fobj *f = find(fs, existing, NULL);
  int rc = !f ? -ENOENT : find(fs, link, NULL) ? -EEXIST : 0;
  if (!rc) {
    char **n = realloc(f->m.names, (f->m.n_names + 1) * sizeof *n);
    char *copy = strdup(link);
    if (!n || !copy) {
      free(copy);
      if (n) f->m.names = n;
      rc = -ENOMEM;
    } else if (zfs_index_put_name(&fs->by_name, copy, f)) {
      f->m.names = n;
      free(copy);
      rc = -ENOMEM;
    } else {
      f->m.names = n;
      f->m.names[f->m.n_names++] = copy;
      rc = persist_file(fs, f);
    }
  }
  pthread_mutex_unlock(&fs->mu);
  return rc;
}

int zfs_list(zfs *fs, const char *prefix, void (*fn)(const char *, uint64_t, void *), void *arg) {
  size_t pl = strlen(prefix);
  pthread_mutex_lock(&fs->mu);
  for (size_t i = 0; i < fs->n_files; i++)
    for (uint32_t k = 0; k < fs->files[i]->m.n_names; k++)
      if (strncmp(fs->files[i]->m.names[k], prefix, pl) == 0)
        fn(fs->files[i]->m.names[k], file_size_locked(fs->files[i]), arg);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

int zfs_stats_get(zfs *fs, zfs_stats *out) {
  pthread_mutex_lock(&fs->mu);
  zfs_stats s = fs->st;
  s.files = (uint32_t)fs->n_files;
  s.live_bytes = s.used_zone_bytes = 0;
  s.data_zones = s.empty_zones = s.full_zones = s.open_zones = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    zone_state *zs = &fs->zones[z];
    s.data_zones++;
    s.live_bytes += zs->live;
    s.used_zone_bytes += zs->wp - zs->start;
    if (zs->wp == zs->start)
      s.empty_zones++;
    else if (zs->wp >= zone_end(fs, z))
      s.full_zones++;
    else
      s.open_zones++;
  }
  pthread_mutex_unlock(&fs->mu);
  *out = s;
  return 0;
}

/* ---------- mkfs and mount ---------- */

static void fill_uuid(uint8_t uuid[16]) {
  FILE *r = fopen("/dev/urandom", "rb");
  size_t got = r ? fread(uuid, 1, 16, r) : 0;
  if (r) fclose(r);
  for (size_t i = got; i < 16; i++) uuid[i] = (uint8_t)(now_us() >> (i % 8 * 8));
}

static zfs *alloc_fs(zkv_dev *dev) {
  zfs *fs = calloc(1, sizeof *fs);
  if (!fs) return NULL;
  fs->dev = dev;
  zkv_dev_geometry(dev, &fs->g);
  fs->zones = calloc(fs->g.nr_zones, sizeof *fs->zones);
  fs->alloc_view = calloc(fs->g.nr_zones, sizeof *fs->alloc_view);
  if (!fs->zones || !fs->alloc_view) {
    free(fs->zones);
    free(fs->alloc_view);
    free(fs);
    return NULL;
  }
  pthread_mutex_init(&fs->mu, NULL);
  pthread_cond_init(&fs->zone_released, NULL);
  pthread_rwlock_init(&fs->io_lock, NULL);
  pthread_cond_init(&fs->gc_wake, NULL);
  fs->gc_free_percent = 20;
  return fs;
}

static void stop_gc(zfs *fs);

static void free_fs(zfs *fs) {
  stop_gc(fs);
  pthread_cond_destroy(&fs->gc_wake);
  clear_files(fs);
  zfs_index_free(&fs->by_name);
  zfs_index_free(&fs->by_id);
  free(fs->files);
  free(fs->zones);
  free(fs->alloc_view);
  pthread_mutex_destroy(&fs->mu);
  pthread_cond_destroy(&fs->zone_released);
  pthread_rwlock_destroy(&fs->io_lock);
  free(fs);
}

static int load_zones(zfs *fs) {
  zkv_zone *rep = calloc(fs->g.nr_zones, sizeof *rep);
  if (!rep) return -ENOMEM;
  int n = zkv_dev_report(fs->dev, 0, rep, fs->g.nr_zones);
  for (int i = 0; i < n; i++) {
    fs->zones[i].start = rep[i].start;
    fs->zones[i].wp = rep[i].cond == ZKV_ZONE_FULL ? rep[i].start + fs->g.zone_cap : rep[i].wp;
  }
  free(rep);
  return n < 0 ? n : 0;
}

/* The smallest devices the file system (and the placement policy ZonedEnv installs) can use; the
 * reasons are docs/zone-fs.md's "Reserves" and "Active-zone limit". */
static int check_geometry(const zkv_geometry *g, uint32_t meta, char *err, size_t errlen) {
  if (g->lba_size > ZFS_SUPERBLOCK_SIZE)
    return fail(-EINVAL, err, errlen, "block size %u is above the %u-byte superblock", g->lba_size,
                ZFS_SUPERBLOCK_SIZE);
  if (meta < 2 || meta > ZFS_MAX_META_ZONES)
    return fail(-EINVAL, err, errlen, "%u meta zones: the metadata log needs 2 to %u (one written, one to roll to)",
                meta, ZFS_MAX_META_ZONES);
  if (g->nr_zones < meta + 3)
    return fail(-EINVAL, err, errlen,
                "%u zones are too few: the file system needs at least %u (%u meta zones plus 3 data zones: data files "
                "never take the last two empty zones, kept for RocksDB's metadata files and for GC)",
                g->nr_zones, meta + 3, meta);
  if (g->max_active && g->max_active < 3)
    return fail(-EINVAL, err, errlen,
                "max active zones %u is too low: the file system needs no limit (0) or at least 3 (one zone for "
                "data, one for the metadata log, one for GC migration)",
                g->max_active);
  if (g->max_open && g->max_open < 4)
    return fail(-EINVAL, err, errlen,
                "max open zones %u is too low: zkv needs no limit (0) or at least 4 (the placement policy keeps "
                "two for the metadata log and GC, one for the WAL, one for other files)",
                g->max_open);
  return 0;
}

int zfs_mkfs(zkv_dev *dev, const zfs_options *opt, char *err, size_t errlen) {
  zfs *fs = alloc_fs(dev);
  if (!fs) return fail(-ENOMEM, err, errlen, "out of memory");
  uint32_t meta = opt && opt->meta_zones ? opt->meta_zones : 3;
  int rc = check_geometry(&fs->g, meta, err, errlen);
  for (uint32_t z = 0; !rc && z < fs->g.nr_zones; z++) {
    rc = zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_RESET);
    if (rc) fail(rc, err, errlen, "cannot reset zone %u: %s", z, zkv_status_message(rc));
  }
  if (!rc) rc = load_zones(fs);
  if (!rc) {
    fs->sb = (zfs_superblock){.version = ZFS_FORMAT_VERSION,
                              .sequence = 0,
                              .block_size = fs->g.lba_size,
                              .nr_zones = fs->g.nr_zones,
                              .zone_size = fs->g.zone_size,
                              .zone_cap = fs->g.zone_cap,
                              .meta_zones = meta,
                              .finish_threshold = opt ? opt->finish_threshold : 0};
    fill_uuid(fs->sb.uuid);
    fs->next_file_id = 1;
    fs->meta_zone = meta - 1; /* roll_meta moves to zone 0 */
    rc = roll_meta(fs);
    if (rc) fail(rc, err, errlen, "cannot write the superblock: %s", zkv_status_message(rc));
  }
  free_fs(fs);
  return rc;
}

/* A file record claims its names: a rename over an existing file writes the renamed file's record
 * first and the replaced file's delete after it, so a crash between the two leaves the name with
 * the record written last. A file left without names is gone (its delete was under way). */
static void claim_names(zfs *fs, const zfs_file_meta *m) {
  for (uint32_t k = 0; k < m->n_names; k++) {
    uint32_t j = 0;
    fobj *other = find(fs, m->names[k], &j);
    if (!other || other->m.id == m->id) continue;
    drop_name(fs, other, j);
    if (other->m.n_names == 0) {
      remove_file(fs, other);
      free_fobj(other);
    }
  }
}

static int apply_file(zfs *fs, zfs_file_meta *m) {
  claim_names(fs, m);
  fobj *old = find_id(fs, m->id);
  if (old) {
    unindex_names(fs, old);
    zfs_file_free(&old->m);
    old->m = *m;
    old->persisted_extents = m->n_extents;
    for (uint32_t k = 0; k < m->n_names; k++)
      if (zfs_index_put_name(&fs->by_name, m->names[k], old)) return -ENOMEM;
    return 0;
  }
  fobj *f = new_fobj();
  if (!f) return -ENOMEM;
  f->m = *m;
  f->persisted_extents = m->n_extents;
  f->zone = -1;
  if (m->id >= fs->next_file_id) fs->next_file_id = m->id + 1;
  int rc = add_file(fs, f);
  if (rc) free_fobj(f);
  return rc;
}

/* Applies a sync's record. A file the log no longer has was dropped by a later claim of its name
 * (see claim_names): nothing to apply. */
static int apply_extend(zfs *fs, const zfs_file_extend *x, char *err, size_t errlen) {
  fobj *f = find_id(fs, x->id);
  if (!f) return 0;
  if (x->first > f->m.n_extents)
    return fail(-EUCLEAN, err, errlen, "extend record of file %llu starts at extent %u of %u",
                (unsigned long long)x->id, x->first, f->m.n_extents);
  uint32_t n = x->first + x->n_extents;
  zfs_extent *e = n ? realloc(f->m.extents, n * sizeof *e) : f->m.extents;
  if (n && !e) return -ENOMEM;
  if (x->n_extents) memcpy(e + x->first, x->extents, x->n_extents * sizeof *e);
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += e[i].len;
  f->m.extents = e;
  f->m.n_extents = n;
  if (x->size > total)
    return fail(-EUCLEAN, err, errlen, "extend record gives file %llu %llu bytes, its extents hold %llu",
                (unsigned long long)x->id, (unsigned long long)x->size, (unsigned long long)total);
  f->m.size = x->size;
  f->m.mtime = x->mtime;
  f->m.lifetime = x->lifetime;
  f->persisted_extents = n;
  return 0;
}

/* Decides what a record that does not decode at `off` of a log (read up to the zone's write
 * pointer, `len` bytes) means. Returns NULL when it is the end of the log: unwritten space (zeros)
 * or a torn last write, i.e. the one write in flight at a crash, which the device persisted only
 * as a prefix of its blocks. Returns the reason otherwise: the record is damage, and data that was
 * acknowledged would silently vanish if the log were cut there.
 * - A valid record with a higher sequence after it: the log went on past it.
 * - A record that lies wholly below the write pointer with every block written (no zero suffix):
 *   the device completed that write, so it cannot be torn. A torn write either ends beyond the
 *   write pointer (the pointer fell back over the lost blocks) or, in a zone that reached Full,
 *   reads zeros from the first lost block on.
 * Residual ambiguity: damage to the length field of the very last record of a crashed log, making
 * it reach past the write pointer, looks like a torn write. */
static const char *log_tail_problem(const zfs *fs, const uint8_t *log, size_t len, size_t off, uint64_t last_seq,
                                    int zero_header) {
  uint32_t block = fs->g.lba_size;
  for (size_t o = off + block; o < len; o += block) {
    zfs_record later;
    if (zfs_record_decode(log + o, len - o, block, &later, NULL, 0) > 0 && later.seq > last_seq)
      return "valid records follow it";
  }
  if (zero_header) return NULL; /* unwritten space */
  if (len - off < ZFS_RECORD_HEADER || memcmp(log + off, "ZKVR", 4) != 0)
    return "its first block is neither a record nor unwritten, below the write pointer";
  size_t span = zfs_record_size(get32(log + off + 8), block);
  if (span > len - off) return NULL; /* reaches past the write pointer: the write in flight */
  for (size_t b = block; b < span; b += block)
    if (zfs_all_zero(log + off + b, span - b)) return NULL; /* a persisted prefix, zeros after it */
  return "the record lies wholly written below the write pointer, so it is not a torn last write";
}

/* Replays one meta zone's log; returns 0, ZFS_EMPTY (no snapshot: try an older zone) or an error. */
static int replay(zfs *fs, const uint8_t *log, size_t len, uint64_t base, char *err, size_t errlen) {
  size_t off = 0;
  int have_snapshot = 0;
  uint64_t last_seq = 0;
  char msg[256];
  while (off < len) {
    zfs_record r;
    int64_t n = zfs_record_decode(log + off, len - off, fs->g.lba_size, &r, msg, sizeof msg);
    if (n == ZFS_UNSUPPORTED)
      return fail(-EPROTO, err, errlen, "metadata log at %llu: %s", (unsigned long long)(base + off), msg);
    if (n < 0) { /* the end of the log, a torn last write, or damage: see log_tail_problem */
      const char *why = log_tail_problem(fs, log, len, off, last_seq, n == ZFS_EMPTY);
      if (why)
        return fail(-EUCLEAN, err, errlen, "metadata log damaged at device offset %llu (%s): %s",
                    (unsigned long long)(base + off), msg, why);
      if (n != ZFS_EMPTY)
        snprintf(fs->log_tail, sizeof fs->log_tail, "torn record at device offset %llu (%.180s)",
                 (unsigned long long)(base + off), msg);
      break;
    }
    /* Sequence numbers only grow within a log: an older one is data of the zone's previous life
     * below the write pointer (a write that was under way when the process died), i.e. the end. */
    if (r.seq <= last_seq) break;
    last_seq = r.seq;
    if (r.seq > fs->meta_seq) fs->meta_seq = r.seq;
    if (r.type == ZFS_REC_SNAPSHOT) {
      uint64_t next;
      uint32_t count;
      if (zfs_snapshot_header_decode(r.payload, r.len, &next, &count) < 0)
        return fail(-EUCLEAN, err, errlen, "snapshot header truncated");
      clear_files(fs);
      fs->next_file_id = next;
      size_t p = 12;
      for (uint32_t i = 0; i < count; i++) {
        zfs_file_meta m;
        int64_t used = zfs_file_decode(r.payload + p, r.len - p, &m, msg, sizeof msg);
        if (used < 0) return fail(-EUCLEAN, err, errlen, "snapshot file %u: %s", i, msg);
        if (apply_file(fs, &m)) return -ENOMEM;
        p += (size_t)used;
      }
      have_snapshot = 1;
    } else if (!have_snapshot) {
      return ZFS_EMPTY;
    } else if (r.type == ZFS_REC_FILE_UPDATE) {
      zfs_file_meta m;
      if (zfs_file_decode(r.payload, r.len, &m, msg, sizeof msg) < 0)
        return fail(-EUCLEAN, err, errlen, "file record at %llu: %s", (unsigned long long)(base + off), msg);
      if (apply_file(fs, &m)) return -ENOMEM;
    } else if (r.type == ZFS_REC_FILE_EXTEND) {
      zfs_file_extend x;
      if (zfs_extend_decode(r.payload, r.len, &x, msg, sizeof msg) < 0)
        return fail(-EUCLEAN, err, errlen, "sync record at %llu: %s", (unsigned long long)(base + off), msg);
      int rc = apply_extend(fs, &x, err, errlen);
      free(x.extents);
      if (rc) return rc;
    } else if (r.type == ZFS_REC_FILE_DELETE) {
      uint64_t id;
      if (r.len != 8) return fail(-EUCLEAN, err, errlen, "delete record of %u bytes", r.len);
      memcpy(&id, r.payload, 8);
      fobj *f = find_id(fs, id);
      if (f) {
        remove_file(fs, f);
        free_fobj(f);
      }
    } else if (r.type == ZFS_REC_END) {
      break;
    }
    off += (size_t)n;
  }
  return have_snapshot ? 0 : ZFS_EMPTY;
}

zfs *zfs_mount(zkv_dev *dev, int *rc, char *err, size_t errlen) { return zfs_mount_flags(dev, 0, rc, err, errlen); }

zfs *zfs_mount_flags(zkv_dev *dev, int flags, int *rc, char *err, size_t errlen) {
  zfs *fs = alloc_fs(dev);
  if (!fs) {
    *rc = fail(-ENOMEM, err, errlen, "out of memory");
    return NULL;
  }
  char msg[256];
  if ((*rc = load_zones(fs))) {
    fail(*rc, err, errlen, "zone report failed: %s", zkv_status_message(*rc));
    goto fail;
  }
  /* Candidate superblocks: the meta zone count is read from the first valid one. */
  zfs_superblock cands[8];
  uint32_t zones_of[8], n = 0, meta = 8, corrupt = 0;
  uint64_t max_seq = 0;
  uint8_t sbuf[ZFS_SUPERBLOCK_SIZE];
  for (uint32_t z = 0; z < meta && z < fs->g.nr_zones && n < 8; z++) {
    if (fs->zones[z].wp < fs->zones[z].start + ZFS_SUPERBLOCK_SIZE) continue;
    if ((*rc = zkv_dev_read(dev, fs->zones[z].start, sbuf, sizeof sbuf))) goto fail;
    int d = zfs_superblock_decode(sbuf, sizeof sbuf, &cands[n], msg, sizeof msg);
    if (z < ZFS_MAX_META_ZONES) {
      zfs_meta_status *ms = &fs->meta_status[z];
      ms->state = d >= 0 ? ZFS_META_VALID : ZFS_META_CORRUPT;
      ms->sequence = d >= 0 ? cands[n].sequence : 0;
      snprintf(ms->message, sizeof ms->message, "%s", d >= 0 ? "" : msg);
    }
    if (d == ZFS_UNSUPPORTED) {
      *rc = fail(-EPROTO, err, errlen, "zone %u: %s", z, msg);
      goto fail;
    }
    if (d < 0) {
      corrupt++;
      continue;
    }
    if (meta == 8) meta = cands[n].meta_zones;
    if (cands[n].sequence > max_seq) max_seq = cands[n].sequence;
    zones_of[n++] = z;
  }
  if (n == 0) {
    *rc = corrupt ? fail(-EUCLEAN, err, errlen, "no valid superblock: %s", msg)
                  : fail(-ENODATA, err, errlen, "no zkv file system on this device (run mkfs)");
    goto fail;
  }
  for (uint32_t i = 0; i < n; i++)
    if (cands[i].nr_zones != fs->g.nr_zones || cands[i].zone_size != fs->g.zone_size ||
        cands[i].zone_cap != fs->g.zone_cap || cands[i].block_size != fs->g.lba_size) {
      *rc = fail(-EINVAL, err, errlen, "file system geometry (%u zones of %llu) differs from the device's (%u of %llu)",
                 cands[i].nr_zones, (unsigned long long)cands[i].zone_size, fs->g.nr_zones,
                 (unsigned long long)fs->g.zone_size);
      goto fail;
    }
  /* Newest first; fall back to an older log only if the newest has no snapshot (crash in a roll). */
  *rc = ZFS_EMPTY;
  for (uint32_t tries = 0; tries < n && *rc == ZFS_EMPTY; tries++) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
      if (cands[i].sequence > cands[best].sequence) best = i;
    uint32_t z = zones_of[best];
    uint64_t from = fs->zones[z].start + ZFS_SUPERBLOCK_SIZE, len = fs->zones[z].wp - from;
    uint8_t *log = len ? malloc(len) : NULL;
    if (len && !log) {
      *rc = -ENOMEM;
      goto fail;
    }
    *rc = len ? zkv_dev_read(dev, from, log, len) : 0;
    if (*rc == 0) {
      fs->sb = cands[best];
      fs->meta_zone = z;
      fs->meta_wp = fs->zones[z].wp;
      *rc = replay(fs, log, len, from, err, errlen);
    }
    free(log);
    cands[best].sequence = 0, cands[best].nr_zones = 0; /* tried */
    if (*rc == ZFS_EMPTY) { clear_files(fs); }
  }
  if (*rc == ZFS_EMPTY) *rc = fail(-EUCLEAN, err, errlen, "no metadata log holds a snapshot");
  if (*rc) goto fail;
  fs->sb.sequence = max_seq; /* the roll below must outrank every superblock on the device */
  for (uint32_t z = 0; z < fs->sb.meta_zones; z++) fs->zones[z].meta = 1;
  for (size_t i = 0; i < fs->n_files; i++) {
    zfs_file_meta *m = &fs->files[i]->m;
    for (uint32_t k = 0; k < m->n_extents; k++) {
      uint32_t z = zone_of(fs, m->extents[k].start);
      if (z < fs->sb.meta_zones || z >= fs->g.nr_zones || m->extents[k].start + m->extents[k].len > fs->zones[z].wp) {
        *rc = fail(-EUCLEAN, err, errlen, "file '%s' has an extent at %llu beyond its zone's written data", m->names[0],
                   (unsigned long long)m->extents[k].start);
        goto fail;
      }
      fs->zones[z].live += m->extents[k].len;
      fs->zones[z].live_phys += round_up(m->extents[k].len, fs->g.lba_size);
      if (m->lifetime > fs->zones[z].lifetime) fs->zones[z].lifetime = m->lifetime;
    }
  }
  fs->readonly = flags & ZFS_MOUNT_READONLY;
  if (fs->readonly) return fs; /* inspection: change nothing on the device */
  /* Data written but never synced has no file: its zones are reset. */
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (fs->zones[z].live == 0 && fs->zones[z].wp > fs->zones[z].start) {
      if ((*rc = zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_RESET))) goto fail;
      fs->zones[z].wp = fs->zones[z].start;
      fs->st.resets++;
      fs->st.resets_without_copy++;
    }
  /* Two zones of the active limit stay free: one for the metadata log, one for GC migration. */
  fs->active_limit = fs->g.max_active ? (fs->g.max_active > 3 ? fs->g.max_active - 2 : 1) : 0;
  /* Start a fresh log, so a torn tail is never followed by new records; it is written in the
   * current format (a version 1 log is a valid version 2 log). */
  fs->sb.version = ZFS_FORMAT_VERSION;
  if ((*rc = roll_meta(fs))) {
    fail(*rc, err, errlen, "cannot roll the metadata log: %s", zkv_status_message(*rc));
    goto fail;
  }
  return fs; /* background GC starts with zfs_start_gc, once the policies are installed */
fail:
  free_fs(fs);
  return NULL;
}

int zfs_start_gc(zfs *fs) {
  if (fs->readonly) return -EROFS;
  pthread_mutex_lock(&fs->mu);
  int rc = 0;
  if (!fs->gc_running && !fs->gc_stop) {
    rc = -pthread_create(&fs->gc_thread, NULL, gc_worker, fs);
    fs->gc_running = rc == 0;
  }
  pthread_mutex_unlock(&fs->mu);
  return rc;
}

static void stop_gc(zfs *fs) {
  if (!fs->gc_running) return;
  pthread_mutex_lock(&fs->mu);
  fs->gc_stop = 1;
  pthread_cond_signal(&fs->gc_wake);
  pthread_mutex_unlock(&fs->mu);
  pthread_join(fs->gc_thread, NULL);
  fs->gc_running = 0;
}

/* Closes the log with an end record: a log that ends cleanly cannot have a torn tail, so any
 * record that fails before it is damage (log_tail_problem). A failure here (a dead device) only
 * means the next mount treats the log as a crashed one. */
void zfs_unmount(zfs *fs) {
  if (!fs) return;
  stop_gc(fs);
  if (!fs->readonly) {
    pthread_mutex_lock(&fs->mu);
    append_record(fs, ZFS_REC_END, NULL, 0);
    pthread_mutex_unlock(&fs->mu);
  }
  free_fs(fs);
}

/* ---------- inspection ---------- */

int zfs_superblock_get(zfs *fs, zfs_superblock *out) {
  *out = fs->sb;
  return 0;
}

const char *zfs_log_end(zfs *fs) { return fs->log_tail; }

int zfs_meta_status_get(zfs *fs, uint32_t zone, zfs_meta_status *out) {
  if (zone >= ZFS_MAX_META_ZONES) return -EINVAL;
  *out = fs->meta_status[zone];
  return 0;
}

int zfs_zone_info_get(zfs *fs, uint32_t zone, zfs_zone_info *out) {
  if (zone >= fs->g.nr_zones) return -EINVAL;
  pthread_mutex_lock(&fs->mu);
  fill_zone_info(fs, zone, out);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

int zfs_walk_files(zfs *fs, void (*fn)(const zfs_file_meta *m, void *arg), void *arg) {
  pthread_mutex_lock(&fs->mu);
  for (size_t i = 0; i < fs->n_files; i++)
    if (in_namespace(fs->files[i])) fn(&fs->files[i]->m, arg);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

typedef struct owned_extent {
  zfs_extent e;
  const char *file;
} owned_extent;

static int by_start(const void *a, const void *b) {
  const owned_extent *x = a, *y = b;
  return x->e.start < y->e.start ? -1 : x->e.start > y->e.start;
}

int zfs_check(zfs *fs, void (*problem)(const char *msg, void *arg), void *arg) {
  char msg[512];
  int problems = 0;
  pthread_mutex_lock(&fs->mu);
  for (uint32_t z = 0; z < fs->sb.meta_zones && z < ZFS_MAX_META_ZONES; z++)
    if (fs->meta_status[z].state == ZFS_META_CORRUPT) {
      snprintf(msg, sizeof msg, "meta zone %u: superblock damaged (%s); the log in zone %u was used", z,
               fs->meta_status[z].message, fs->meta_zone);
      problem(msg, arg), problems++;
    }
  size_t n = 0, cap = 64;
  owned_extent *all = malloc(cap * sizeof *all);
  for (size_t i = 0; all && i < fs->n_files; i++)
    for (uint32_t k = 0; k < fs->files[i]->m.n_extents; k++) {
      if (n == cap) {
        owned_extent *grown = realloc(all, (cap *= 2) * sizeof *all);
        if (!grown) break;
        all = grown;
      }
      all[n++] = (owned_extent){fs->files[i]->m.extents[k],
                                in_namespace(fs->files[i]) ? fs->files[i]->m.names[0] : "(deleted, still open)"};
    }
  if (all) {
    qsort(all, n, sizeof *all, by_start);
    for (size_t i = 1; i < n; i++)
      if (all[i - 1].e.start + all[i - 1].e.len > all[i].e.start) {
        snprintf(msg, sizeof msg, "extents of '%s' and '%s' overlap at device offset %llu", all[i - 1].file,
                 all[i].file, (unsigned long long)all[i].e.start);
        problem(msg, arg), problems++;
      }
  }
  free(all);
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    zone_state *zs = &fs->zones[z];
    if (zs->live > zs->wp - zs->start) {
      snprintf(msg, sizeof msg, "zone %u: %llu live bytes but only %llu written", z, (unsigned long long)zs->live,
               (unsigned long long)(zs->wp - zs->start));
      problem(msg, arg), problems++;
    }
  }
  pthread_mutex_unlock(&fs->mu);
  return problems;
}
