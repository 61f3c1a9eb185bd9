/* Read-ahead for a sealed WAL's sequential read (RocksDB's recovery reads it from start to end in
 * 32 KiB pieces): the chunks around the one asked for are read as one device read of their span
 * and kept with the handle, so the next pieces come from memory.
 *
 * Why: ZWAL's appends land in any order, so logically adjacent chunks are rarely physically
 * adjacent and the chunk-run read (file_io.c) finds no runs: one device read per 4 KiB chunk made
 * a replay cost a read latency per record. The chunks of one window of appends land near one
 * another (within the queue depth, or a barrier interval), so a window over the file's own extents
 * around the piece holds the next ones too; ZWAL's reader reads a barrier interval at a time for
 * the same reason. The FILE mode's chunks are in order and gain the same (fewer, larger reads).
 *
 * What a window holds: device bytes [from, to) of one zone, from the smallest start to the largest
 * end of the file's extents in that zone within READ_BEHIND before and READ_AHEAD after the piece
 * (only bytes the file system wrote, never past the write pointer). Valid while the zone is not
 * reset: the zone's generation is kept with it (a reset and GC moving this file's data back into
 * the same zone would otherwise serve the zone's old bytes). Only for sealed files (no writer:
 * the extents do not change but by GC's swap, which readers' marks exclude) and one caller at a
 * time per handle (trylock: a concurrent reader goes to the device). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

#define READ_AHEAD (1u << 20)
#define READ_BEHIND (256u << 10)
#define WINDOW_EXTENTS 512 /* extents looked at either way: a window of 4 KiB chunks holds ~320 */

struct read_ahead {
  pthread_mutex_t mu;
  uint8_t *buf;
  size_t cap;
  uint32_t zone, generation;
  uint64_t from, to; /* to == from: empty */
};

void read_ahead_free(zfs_file *h) {
  if (!h->ra) return;
  pthread_mutex_destroy(&h->ra->mu);
  free(h->ra->buf);
  free(h->ra);
  h->ra = NULL;
}

/* Fills the window for extent i's piece at dev_off; returns 0 or an error. */
static int fill(zfs *fs, const fobj *f, read_ahead *ra, uint32_t i, uint64_t dev_off, uint64_t n) {
  uint32_t z = zone_of(fs, dev_off), block = fs->g.lba_size;
  uint64_t lo = dev_off > READ_BEHIND ? dev_off - READ_BEHIND : 0, hi = dev_off + READ_AHEAD;
  uint64_t from = dev_off, to = dev_off + n;
  for (uint32_t k = i; k-- > 0 && i - k <= WINDOW_EXTENTS;) {
    const zfs_extent *e = &f->m.extents[k];
    if (zone_of(fs, e->start) == z && e->start >= lo && e->start < from) from = e->start;
  }
  for (uint32_t k = i + 1; k < f->m.n_extents && k - i <= WINDOW_EXTENTS; k++) {
    const zfs_extent *e = &f->m.extents[k];
    if (zone_of(fs, e->start) == z && e->start + e->len <= hi && e->start + e->len > to) to = e->start + e->len;
  }
  from = from / block * block;
  to = round_up(to, block);
  if (to - from > ra->cap) {
    uint8_t *grown = realloc(ra->buf, to - from);
    if (!grown) return -ENOMEM;
    ra->buf = grown, ra->cap = to - from;
  }
  ra->from = ra->to = 0;
  ra->generation = atomic_load(&fs->zones[z].generation); /* before the read: a reset after it shows */
  int rc = zkv_dev_read(fs->dev, from, ra->buf, to - from);
  if (rc) return rc;
  ra->zone = z, ra->from = from, ra->to = to;
  return 0;
}

int read_ahead_copy(zfs_file *h, uint32_t i, uint64_t dev_off, uint64_t n, uint8_t *out) {
  zfs *fs = h->fs;
  if (!h->ra) {
    read_ahead *ra = calloc(1, sizeof *ra);
    if (!ra) return 1;
    pthread_mutex_init(&ra->mu, NULL);
    read_ahead *none = NULL;
    if (!atomic_compare_exchange_strong(&h->ra, &none, ra)) {
      pthread_mutex_destroy(&ra->mu);
      free(ra);
    }
  }
  read_ahead *ra = h->ra;
  if (pthread_mutex_trylock(&ra->mu)) return 1; /* another reader of this handle: the device */
  uint32_t z = zone_of(fs, dev_off);
  int hit = ra->to > ra->from && ra->zone == z && ra->generation == atomic_load(&fs->zones[z].generation) &&
            dev_off >= ra->from && dev_off + n <= ra->to;
  int rc = hit ? 0 : fill(fs, h->f, ra, i, dev_off, n);
  if (!rc) memcpy(out, ra->buf + (dev_off - ra->from), n);
  pthread_mutex_unlock(&ra->mu);
  return rc ? 1 : 0; /* a failed read is the caller's to do again, and report */
}
