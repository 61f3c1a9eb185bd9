/* Read-ahead for a sealed WAL's sequential read (RocksDB's recovery reads it from start to end in
 * 32 KiB pieces): the chunks after the one asked for are read as one device read of their span
 * and kept with the handle, so the next pieces come from memory; and the window after that is read
 * meanwhile, on the handle's own device queue, so the replay's work and the device's overlap.
 *
 * Why: ZWAL's appends land in any order, so logically adjacent chunks are rarely physically
 * adjacent and the chunk-run read (file_io.c) finds no runs: one device read per 4 KiB chunk made
 * a replay cost a read latency per record. The chunks of one window of appends land near one
 * another (within the queue depth, or a barrier interval), so a window over the file's next
 * extents holds the next pieces; ZWAL's reader reads a barrier interval at a time for the same
 * reason. The FILE mode's chunks are in order and gain the same (fewer, larger reads).
 *
 * A window: device bytes [from, to) of one zone, from the smallest start to the largest end of the
 * file's next extents (logically, from the piece on) that lie in that zone within READ_BEHIND
 * before and READ_AHEAD after the piece: only bytes the file system wrote, never past the write
 * pointer. The next window starts at the first extent the window does not hold. Valid while the
 * zone is not reset: the zone's generation is kept with it (a reset and GC moving this file's data
 * back into the same zone would otherwise serve the zone's old bytes). Only for sealed files (no
 * writer: the extents change only by GC's swap, which readers' marks exclude) and one caller at a
 * time per handle (trylock: a concurrent reader goes to the device). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

#define READ_AHEAD (1u << 20)
#define READ_BEHIND (256u << 10)
#define WINDOW_EXTENTS 512 /* extents looked at: a window of 4 KiB chunks holds ~320 */

typedef struct window {
  uint8_t *buf;
  size_t cap;
  uint32_t zone, generation;
  uint64_t from, to; /* to == from: empty */
  int pending;       /* submitted on the queue, not reaped yet: the device may still write buf */
} window;

struct read_ahead {
  pthread_mutex_t mu;
  window cur, next;
  zkv_queue *q; /* for the next window; NULL: read when needed */
};

static void window_free(window *w) { free(w->buf); }

/* Waits for the next window's read; it is valid if the read succeeded. */
static void settle_next(read_ahead *ra) {
  if (!ra->next.pending) return;
  zkv_completion c;
  int n = zkv_queue_reap(ra->q, &c, 1, 1, -1);
  ra->next.pending = 0;
  if (n != 1 || c.result < 0) ra->next.from = ra->next.to = 0;
}

void read_ahead_free(zfs_file *h) {
  read_ahead *ra = h->ra;
  if (!ra) return;
  settle_next(ra); /* the device must be done with the buffer */
  if (ra->q) zkv_queue_destroy(ra->q);
  pthread_mutex_destroy(&ra->mu);
  window_free(&ra->cur);
  window_free(&ra->next);
  free(ra);
  h->ra = NULL;
}

/* The window for extent i's piece at dev_off (n bytes): bounds only. */
static void bounds(const zfs *fs, const fobj *f, uint32_t i, uint64_t dev_off, uint64_t n, window *w) {
  uint32_t z = zone_of(fs, dev_off), block = fs->g.lba_size;
  uint64_t lo = dev_off > READ_BEHIND ? dev_off - READ_BEHIND : 0, hi = dev_off + READ_AHEAD;
  uint64_t from = dev_off, to = dev_off + n;
  for (uint32_t k = i + 1; k < f->m.n_extents && k - i <= WINDOW_EXTENTS; k++) {
    const zfs_extent *e = &f->m.extents[k];
    if (zone_of(fs, e->start) != z || e->start < lo || e->start + e->len > hi) continue;
    if (e->start < from) from = e->start;
    if (e->start + e->len > to) to = e->start + e->len;
  }
  w->zone = z;
  w->from = from / block * block;
  w->to = round_up(to, block);
}

static int room(window *w, uint64_t need) {
  if (need <= w->cap) return 0;
  uint8_t *grown = realloc(w->buf, need);
  if (!grown) return -ENOMEM;
  w->buf = grown, w->cap = need;
  return 0;
}

static int holds(const zfs *fs, const window *w, uint64_t dev_off, uint64_t n) {
  uint32_t z = zone_of(fs, dev_off);
  return w->to > w->from && w->zone == z && w->generation == atomic_load(&fs->zones[z].generation) &&
         dev_off >= w->from && dev_off + n <= w->to;
}

/* Reads the window for extent i's piece now, into cur. */
static int fill_now(zfs *fs, const fobj *f, read_ahead *ra, uint32_t i, uint64_t dev_off, uint64_t n) {
  window *w = &ra->cur;
  bounds(fs, f, i, dev_off, n, w);
  uint64_t from = w->from, to = w->to;
  w->from = w->to = 0; /* empty until read */
  int rc = room(w, to - from);
  if (rc) return rc;
  w->generation = atomic_load(&fs->zones[zone_of(fs, dev_off)].generation); /* before the read */
  if ((rc = zkv_dev_read(fs->dev, from, w->buf, to - from))) return rc;
  w->from = from, w->to = to;
  return 0;
}

/* Starts reading the window after cur (from the first of the next extents cur does not hold, on
 * from extent i), if the queue allows. */
static void prefetch(zfs *fs, const fobj *f, read_ahead *ra, uint32_t i) {
  if (!ra->q || ra->next.pending) return;
  uint32_t k = i;
  while (k < f->m.n_extents && k - i <= WINDOW_EXTENTS &&
         holds(fs, &ra->cur, f->m.extents[k].start, f->m.extents[k].len))
    k++;
  if (k >= f->m.n_extents || k - i > WINDOW_EXTENTS) return;
  window *w = &ra->next;
  if (holds(fs, w, f->m.extents[k].start, f->m.extents[k].len)) return; /* read already */
  bounds(fs, f, k, f->m.extents[k].start, f->m.extents[k].len, w);
  uint64_t from = w->from, to = w->to;
  w->from = w->to = 0; /* empty until read */
  if (room(w, to - from)) return;
  w->generation = atomic_load(&fs->zones[w->zone].generation); /* before the read */
  zkv_request r = {.op = ZKV_OP_READ, .offset = from, .buf = w->buf, .len = to - from};
  if (zkv_queue_submit(ra->q, &r)) return;
  w->from = from, w->to = to;
  w->pending = 1;
}

int read_ahead_copy(zfs_file *h, uint32_t i, uint64_t dev_off, uint64_t n, uint8_t *out) {
  zfs *fs = h->fs;
  if (!h->ra) {
    read_ahead *ra = calloc(1, sizeof *ra);
    if (!ra) return 1;
    pthread_mutex_init(&ra->mu, NULL);
    int err = 0;
    ra->q = zkv_queue_create(fs->dev, 1, &err); /* NULL: no read-ahead of the next window */
    read_ahead *none = NULL;
    if (!atomic_compare_exchange_strong(&h->ra, &none, ra)) {
      if (ra->q) zkv_queue_destroy(ra->q);
      pthread_mutex_destroy(&ra->mu);
      free(ra);
    }
  }
  read_ahead *ra = h->ra;
  if (pthread_mutex_trylock(&ra->mu)) return 1; /* another reader of this handle: the device */
  int rc = 0;
  if (!holds(fs, &ra->cur, dev_off, n)) {
    settle_next(ra);
    if (holds(fs, &ra->next, dev_off, n)) {
      window t = ra->cur;
      ra->cur = ra->next;
      ra->next = t;
      ra->next.from = ra->next.to = 0;
    } else {
      rc = fill_now(fs, h->f, ra, i, dev_off, n);
    }
    if (!rc) prefetch(fs, h->f, ra, i);
  }
  if (!rc) memcpy(out, ra->cur.buf + (dev_off - ra->cur.from), n);
  pthread_mutex_unlock(&ra->mu);
  return rc ? 1 : 0; /* a failed read is the caller's to do again, and report */
}
