/* ZWAL's write path (docs/wal.md): a WAL's write-outs as zone appends on the file's own queue; the
 * same path writes SST files behind their writer.
 *
 * In ZFS_WAL_ZWAL mode each write-out of a WAL (a sparse file) is one chunk (header, data, padding:
 * docs/formats/zone-fs.md) submitted as a zone append on a device queue the file owns, used only by
 * its writer (RocksDB calls a WAL from one thread at a time: the leader of its write group), with
 * up to queue_depth appends in flight; a chunk never crosses the zone's capacity, the device's
 * largest append (ZASL) or a barrier. The appends complete in any order: each completion says
 * where its chunk landed; the file's extents grow only by the contiguous run from its size on, so
 * the readable size (and every extent a record lists) is always a prefix. The data stays in the
 * write buffer until its append completes, so a read of the file's tail is served from there.
 *
 * Appends are waited for (drained) at a sync (then the device is flushed), at every barrier_bytes
 * of appends, before the file leaves a zone (a chunk never crosses it, and the next zone's record
 * lists every extent before it), and at close; a full write buffer drops its landed part
 * (zwal_make_room). The zone is claimed
 * while appends are in flight in it (nobody finishes, collects or takes it); between drains it is
 * the file's own zone as in the FILE mode.
 *
 * What a crash leaves: every chunk a sync waited for is durable (drain, then flush); chunks in
 * flight may land or not in any order, and the mount keeps the contiguous prefix (mount.c,
 * recover_chunks).
 *
 * An idle writer: RocksDB may leave a WAL alone with appends in flight for as long as it likes (no
 * sync, no further write), which would keep the zone claimed while a writer waiting in take_zone
 * for a zone to be given up waits for exactly that. So the waiting thread finishes them for it
 * (zwal_reap_idle): the queue's lock `mu` is held by the writer for each of its calls; a helper
 * that gets it by trylock (under fs->mu) knows the writer is between calls, waits for the appends
 * without fs->mu, and applies them as the writer would have. Lock order: mu, then fs->mu.
 *
 * Write-behind (SST files, fs->write_behind: on for devices whose queues keep appends in flight):
 * the same queue at depth 1, without chunk headers or barriers, write-outs of half the write buffer
 * (WRITE_BEHIND_CHUNK): one half is on the device while the writer (RocksDB's flush or compaction)
 * fills the other, so the device's write time overlaps the CPU time of building the table instead
 * of adding to it (a 64 MiB flush on confzns spent ~0.15 s waiting for its writes). Nothing else
 * changes: extents grow at completion, a sync drains then flushes and records the extents (the
 * FILE mode's record), a crash keeps what the last sync recorded, as in the FILE mode. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

typedef struct zwal_slot {
  size_t off; /* position of its data in the write buffer */
  uint32_t len;
  uint32_t zone;
  uint64_t phys;
  uint8_t *buf; /* header, data, padding; NULL: the slot is free */
} zwal_slot;

/* An append that completed ahead of the contiguous run: applied when the run reaches it. */
typedef struct zwal_landed {
  size_t off;
  uint32_t len;
  uint64_t at; /* device offset of its data */
} zwal_landed;

struct zwal {
  pthread_mutex_t mu; /* held by the writer in each call, or by a helper reaping for it */
  zkv_queue *q;
  uint32_t depth;
  uint64_t barrier;
  zwal_slot *slots;
  uint32_t inflight;
  zwal_landed *landed;
  uint32_t n_landed;
  uint64_t since_barrier; /* device bytes appended since the last drain */
  int32_t zone;           /* the zone the appends in flight are in (claimed), -1 for none */
  uint64_t next_at;       /* where the zone's appends reach once all in flight have landed */
  int error;              /* an append failed: every later write-out fails with it */
  int reap_failed;        /* a helper's reap failed (zwal_reap_idle): helpers leave the queue alone */
};

/* The bytes before a write-out's data on the device: a WAL chunk's header; none behind an SST. */
static uint32_t header_of(const fobj *f) { return is_sparse(f) ? ZFS_CHUNK_HEADER : 0; }

int zwal_open(zfs *fs, fobj *f) {
  int wal = is_sparse(f) && atomic_load(&fs->wal_mode) == ZFS_WAL_ZWAL;
  if (!wal && !f->behind) return 0;
  zwal *w = calloc(1, sizeof *w);
  if (!w) return -ENOMEM;
  pthread_mutex_lock(&fs->mu);
  w->depth = wal ? fs->wal_queue_depth : 1;
  w->barrier = wal ? fs->wal_barrier : 0;
  pthread_mutex_unlock(&fs->mu);
  w->zone = -1;
  w->slots = calloc(w->depth, sizeof *w->slots);
  w->landed = calloc(w->depth, sizeof *w->landed);
  int err = 0;
  if (w->slots && w->landed) w->q = zkv_queue_create(fs->dev, w->depth, &err);
  if (!w->q) {
    free(w->slots);
    free(w->landed);
    free(w);
    return err ? err : -ENOMEM;
  }
  pthread_mutex_init(&w->mu, NULL);
  pthread_mutex_lock(&fs->mu); /* helpers find the queue under fs->mu */
  f->zw = w;
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

/* A landed chunk's data becomes part of the file, with the zone's accounting (as end_write). Called
 * with fs->mu held. */
static int add_landed(zfs *fs, fobj *f, uint64_t at, uint32_t len) {
  uint32_t z = zone_of(fs, at);
  zone_state *zs = &fs->zones[z];
  zs->live += len;
  zs->live_phys += round_up(header_of(f) + (uint64_t)len, fs->g.lba_size);
  pthread_mutex_lock(&f->wmu);
  int rc = add_extent(fs, f, at, len);
  f->wdone += len;
  pthread_mutex_unlock(&f->wmu);
  fs->st.host_bytes += len;
  f->written_gen = ++fs->data_gen;
  return rc;
}

/* Nothing in flight any more: the zone is the file's own again, no longer claimed; full, or after a
 * failed append (its write pointer unknown), it is given back and the file asks for another zone
 * next time. Called with fs->mu held. */
static void leave_zone(zfs *fs, fobj *f) {
  zwal *w = f->zw;
  if (w->zone < 0) return;
  zone_unclaim(&fs->zones[w->zone]);
  if (w->error || zone_end(fs, (uint32_t)w->zone) - fs->zones[w->zone].wp < fs->g.lba_size) release_zone(fs, f);
  w->zone = -1;
  zones_changed(fs);
}

/* Applies completions: the zone's write pointer moves by each chunk; the file's extents grow by the
 * run that continues at wdone. Called with w->mu and fs->mu held. */
static void apply_locked(zfs *fs, fobj *f, const zkv_completion *c, int n) {
  zwal *w = f->zw;
  int rc = 0;
  for (int i = 0; i < n; i++) {
    zwal_slot *s = &w->slots[c[i].tag];
    w->inflight--;
    if (c[i].result < 0) {
      if (!w->error) w->error = (int)c[i].result;
    } else {
      fs->zones[s->zone].wp += s->phys;
      fs->st.padding_bytes += s->phys - s->len;
      if (w->n_landed == w->depth) { /* cannot happen: the window keeps in flight + landed <= depth */
        if (!w->error) w->error = -EIO;
      } else {
        w->landed[w->n_landed++] = (zwal_landed){s->off, s->len, (uint64_t)c[i].result + header_of(f)};
      }
    }
    free(s->buf);
    s->buf = NULL;
  }
  /* the contiguous run: the landed chunk at wdone, again and again (at most depth of them) */
  for (int progress = 1; progress && !w->error;) {
    progress = 0;
    for (uint32_t k = 0; k < w->n_landed; k++)
      if (w->landed[k].off == f->wdone) {
        if ((rc = add_landed(fs, f, w->landed[k].at, w->landed[k].len)) && !w->error) w->error = rc;
        w->landed[k] = w->landed[--w->n_landed];
        progress = 1;
        break;
      }
  }
  if (w->inflight == 0) leave_zone(fs, f);
}

static int apply(zfs *fs, fobj *f, const zkv_completion *c, int n) {
  after_unlock work;
  lock_fs(fs, &work);
  apply_locked(fs, f, c, n);
  int after = unlock_fs(fs, &work);
  return f->zw->error ? f->zw->error : after;
}

static int reap(zfs *fs, fobj *f, int min) {
  zwal *w = f->zw;
  zkv_completion c[64];
  int n = zkv_queue_reap(w->q, c, min, w->inflight < 64 ? (int)w->inflight : 64, -1);
  if (n < 0) return n;
  return apply(fs, f, c, n);
}

static int drain(zfs *fs, fobj *f) {
  zwal *w = f->zw;
  int rc = 0;
  while (w->inflight && !rc) rc = reap(fs, f, (int)w->inflight);
  w->since_barrier = 0;
  if (!w->inflight && w->zone >= 0) { /* claimed, and nothing was submitted (a failed submit) */
    after_unlock work;
    lock_fs(fs, &work);
    leave_zone(fs, f);
    int after = unlock_fs(fs, &work);
    if (!rc) rc = after;
  }
  return rc ? rc : w->error;
}

/* The zone the next append goes to, claimed, with room for at least a block of data: the file's
 * own (a new one from the policy, its ACTIVE record written first), taken only while nothing is in
 * flight. */
static int append_zone(zfs *fs, fobj *f, uint64_t want, uint32_t *z) {
  zwal *w = f->zw;
  uint32_t block = fs->g.lba_size, header = header_of(f);
  uint64_t room = w->zone >= 0 ? zone_end(fs, (uint32_t)w->zone) - w->next_at : 0;
  /* below the switch room with a zone reserved, the WAL moves to it (claim_writer_zone) */
  if (w->zone >= 0 && room >= header + block && (room >= wal_switch_room(fs, f) || !atomic_load(&fs->walr_n))) {
    *z = (uint32_t)w->zone;
    return 0;
  }
  int rc = drain(fs, f); /* a chunk never crosses a zone: the next zone's record lists them all */
  uint64_t at = 0;
  if (!rc) rc = claim_writer_zone(fs, f, want, header + block, z, &at);
  if (rc) return rc;
  w->zone = (int32_t)*z;
  w->next_at = at;
  return 0;
}

static int submit(zfs *fs, fobj *f, size_t upto) {
  zwal *w = f->zw;
  uint32_t block = fs->g.lba_size, header = header_of(f);
  while (f->wsub < upto) {
    if (w->error) return w->error;
    int rc = 0;
    /* The window: a chunk that landed ahead of an earlier one still holds its place until the run
     * reaches it, so in flight and landed-ahead together stay within the queue depth. Waited for
     * before the zone is chosen: the reap that empties the queue gives the zone's claim back. */
    while (w->inflight + w->n_landed >= w->depth)
      if ((rc = reap(fs, f, 1))) return rc;
    uint32_t z = 0;
    if ((rc = append_zone(fs, f, header + (upto - f->wsub), &z))) return rc;
    uint64_t max = zone_end(fs, z) - w->next_at;
    uint64_t zasl = fs->g.zasl / block * block;
    if (max > zasl) max = zasl;
    if (w->barrier && max > w->barrier - w->since_barrier) max = w->barrier - w->since_barrier;
    size_t data = upto - f->wsub;
    if (header + data > max) data = (size_t)(max - header);
    uint64_t phys = round_up(header + data, block);
    uint32_t slot = 0;
    while (w->slots[slot].buf) slot++;
    uint8_t *buf = malloc(phys);
    if (!buf) return -ENOMEM;
    if (header) { /* wbuf[wdone] is the file's logical offset m.size: both change only in this thread */
      zfs_chunk c = {.file_id = f->m.id,
                     .offset = f->m.size + (f->wsub - f->wdone),
                     .len = (uint32_t)data,
                     .data_crc = zfs_chunk_data_crc(f->wbuf + f->wsub, data)};
      zfs_chunk_encode(&c, buf);
    }
    memcpy(buf + header, f->wbuf + f->wsub, data);
    memset(buf + header + data, 0, phys - header - data);
    zkv_request r = {
        .op = ZKV_OP_APPEND, .flags = io_class_in(fs, z, f), .zone = z, .buf = buf, .len = phys, .tag = slot};
    w->slots[slot] = (zwal_slot){f->wsub, (uint32_t)data, z, phys, buf};
    if ((rc = zkv_queue_submit(w->q, &r))) {
      free(buf);
      w->slots[slot].buf = NULL;
      return rc;
    }
    w->inflight++;
    w->next_at += phys;
    w->since_barrier += phys;
    f->wsub += data;
    if (w->barrier && w->since_barrier >= w->barrier && (rc = drain(fs, f))) return rc;
  }
  return 0;
}

int zwal_submit(zfs *fs, fobj *f, size_t upto) {
  pthread_mutex_lock(&f->zw->mu);
  int rc = submit(fs, f, upto);
  pthread_mutex_unlock(&f->zw->mu);
  return rc;
}

int zwal_drain(zfs *fs, fobj *f) {
  pthread_mutex_lock(&f->zw->mu);
  int rc = drain(fs, f);
  pthread_mutex_unlock(&f->zw->mu);
  return rc;
}

/* The write buffer is full. Waiting for every append in flight (a drain) would stop the writer for
 * a device latency per buffer; instead the part already landed (the file's extents hold it) is
 * dropped from the buffer's front once at least half the buffer has landed, which the window (at
 * most queue depth x write-out size in flight) usually makes true without a wait. The rest moves to
 * the front with the slots' and early landings' positions (w->mu held: no completion is applied
 * meanwhile); readers see the move under wmu. */
int zwal_make_room(zfs *fs, fobj *f) {
  zwal *w = f->zw;
  pthread_mutex_lock(&w->mu);
  int rc = 0;
  while (!rc && f->wdone < WRITE_BUFFER / 2 && w->inflight) rc = reap(fs, f, 1);
  if (!rc) rc = w->error;
  if (!rc && f->wdone == 0) { /* nothing landed nor in flight: everything to the device first */
    rc = submit(fs, f, f->wlen);
    if (!rc) rc = drain(fs, f);
  }
  if (!rc) {
    size_t shift = f->wdone;
    for (uint32_t i = 0; i < w->depth; i++)
      if (w->slots[i].buf) w->slots[i].off -= shift;
    for (uint32_t k = 0; k < w->n_landed; k++) w->landed[k].off -= shift;
    pthread_mutex_lock(&f->wmu);
    memmove(f->wbuf, f->wbuf + shift, f->wlen - shift);
    f->wlen -= shift;
    f->wsub -= shift;
    f->wdone = 0;
    pthread_mutex_unlock(&f->wmu);
  }
  pthread_mutex_unlock(&w->mu);
  return rc;
}

uint32_t zwal_in_flight(fobj *f) {
  pthread_mutex_lock(&f->zw->mu);
  uint32_t n = f->zw->inflight;
  pthread_mutex_unlock(&f->zw->mu);
  return n;
}

int zwal_reap_idle(zfs *fs) {
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    fobj *f = fs->zones[z].owner;
    zwal *w = f ? f->zw : NULL; /* alive while fs->mu is held: zwal_close unhooks it under fs->mu */
    if (!w || !fs->zones[z].busy || pthread_mutex_trylock(&w->mu)) continue;
    if (w->zone != (int32_t)z || w->inflight == 0 || w->reap_failed) { /* claimed otherwise, or failed */
      pthread_mutex_unlock(&w->mu);
      continue;
    }
    pthread_mutex_unlock(&fs->mu); /* the writer's own call would wait for its appends without it */
    zkv_completion c[64];
    int n = 0;
    while (w->inflight > 0) {
      int max = w->inflight < 64 ? (int)w->inflight : 64;
      if ((n = zkv_queue_reap(w->q, c, max, max, -1)) < 0) break;
      pthread_mutex_lock(&fs->mu);
      apply_locked(fs, f, c, n); /* a zone it leaves goes back in this thread's scope */
      pthread_mutex_unlock(&fs->mu);
    }
    pthread_mutex_lock(&fs->mu);
    /* a failed reap leaves appends on the device: the zone stays claimed for the writer's drain */
    if (n < 0) {
      w->reap_failed = 1;
      if (!w->error) w->error = n;
    }
    fs->st.zwal_idle_reaps++;
    pthread_mutex_unlock(&w->mu);
    return 1;
  }
  return 0;
}

void zwal_close(zfs *fs, fobj *f) {
  zwal *w = f->zw;
  if (!w) return;
  pthread_mutex_lock(&w->mu);
  (void)drain(fs, f);
  pthread_mutex_lock(&fs->mu);
  f->zw = NULL;
  pthread_mutex_unlock(&fs->mu);
  pthread_mutex_unlock(&w->mu); /* no helper can find it now, nor hold it */
  pthread_mutex_destroy(&w->mu);
  zkv_queue_destroy(w->q);
  free(w->slots);
  free(w->landed);
  free(w);
}
