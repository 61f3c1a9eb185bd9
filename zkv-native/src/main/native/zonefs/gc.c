/* Garbage collection: moving live extents out of a victim zone and resetting it, the victim
 * call-out, the background worker, and reclaiming space on request (resume after NoSpace). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

/* Copies one extent (block-aligned start) into zones allocated for `lifetime`; the new extents
 * go to *out (caller frees). Called with fs->mu and the io_lock (write) held. */
static int move_extent(zfs *fs, zfs_extent e, const fobj *f, int64_t *gc_zone, zfs_extent **out, uint32_t *n_out) {
  zfs_alloc_request req = {f->m.id, f->m.n_names ? f->m.names[0] : "", f->m.lifetime, 1};
  uint32_t block = fs->g.lba_size;
  uint64_t padded = round_up(e.len, block), moved = 0;
  /* A sparse file's extent starts after its chunk header: read the blocks it spans and move the
   * data to the front; the copy is plain data, block aligned, recorded by GC's file record. */
  uint64_t from = e.start / block * block, span = extent_blocks(fs, e);
  uint8_t *buf = malloc(span > padded ? span : padded);
  if (!buf) return -ENOMEM;
  int rc = zkv_dev_read(fs->dev, from, buf, span);
  if (!rc && from != e.start) {
    memmove(buf, buf + (e.start - from), e.len);
    memset(buf + e.len, 0, padded - e.len);
  }
  *out = NULL;
  *n_out = 0;
  while (!rc && moved < padded) {
    uint32_t z;
    /* GC keeps writing into the zone it wrote last while it has room (as a writer keeps its zone);
     * asking for a zone per chunk opened a new zone for every chunk, up to the active limit. */
    zone_state *last = *gc_zone >= 0 ? &fs->zones[*gc_zone] : NULL;
    if (last && !zone_held(last) && last->wp > last->start && zone_end(fs, (uint32_t)*gc_zone) - last->wp >= block) {
      z = (uint32_t)*gc_zone;
    } else if ((rc = fs->allocator ? allocate_by_policy(fs, &req, &z)
                                   : allocate_zone_for(fs, f->m.lifetime, FOR_GC, &z))) {
      if (rc == ALLOC_WAIT) rc = -ENOSPC; /* GC writes on its own token: a wait means no zone */
      break;
    }
    fs->zones[z].busy = 1;
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
  int full_and_idle = victim >= fs->sb.meta_zones && victim < fs->g.nr_zones && !zone_held(&fs->zones[victim]) &&
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
    /* A sparse file's chunks after its last record that were here are in the moved extents, which
     * GC's record persists: no mount may look for chunks in this zone after its reset. */
    if (f->m.active_extent_start != ZFS_NO_ACTIVE_EXTENT && zone_of(fs, f->m.active_extent_start) == (uint32_t)victim) {
      f->m.active_extent_start = ZFS_NO_ACTIVE_EXTENT;
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
int collect_garbage(zfs *fs, uint64_t max_live) {
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

void stop_gc(zfs *fs) {
  if (!fs->gc_running) return;
  pthread_mutex_lock(&fs->mu);
  fs->gc_stop = 1;
  pthread_cond_signal(&fs->gc_wake);
  pthread_mutex_unlock(&fs->mu);
  pthread_join(fs->gc_thread, NULL);
  fs->gc_running = 0;
}
