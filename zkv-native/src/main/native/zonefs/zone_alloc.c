/* Zone allocation: the reserves that protect the file system, the call-out to the placement policy
 * and the carrying out of its decision, the built-in rule used without a policy, and which zone a
 * writer writes next. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

#define LIFETIME_DIFF_NOT_GOOD 100
#define LIFETIME_DIFF_COULD_BE_WORSE 50

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

static int is_metadata_file(const char *name) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t n = strlen(base);
  return strncmp(base, "MANIFEST-", 9) == 0 || strcmp(base, "CURRENT") == 0 || strncmp(base, "OPTIONS-", 8) == 0 ||
         strcmp(base, "IDENTITY") == 0 || (n > 6 && strcmp(base + n - 6, ".dbtmp") == 0);
}
int purpose_of(const char *file_name, int for_gc) {
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
int victim_eligible(zfs *fs, uint32_t zone, uint64_t max_live) {
  zone_state *s = &fs->zones[zone];
  return zone >= fs->sb.meta_zones && !s->busy && s->wp >= zone_end(fs, zone) && s->live_phys < fs->g.zone_cap &&
         s->live_phys <= max_live;
}
void fill_zone_info(zfs *fs, uint32_t zone, zfs_zone_info *out) {
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
/* Asks the external policy and carries out its decision, checking it against the zones' state:
 * a policy bug becomes a clear error, never a write into the wrong zone.
 *
 * Where the policy finds no zone (NEED_GC, NO_SPACE) or asks for an empty zone the reserves keep
 * from this writer, the built-in rule decides instead, without the policy's finishes: it writes
 * into any partly written zone with room (relaxing the lifetime match) or, for GC, an empty zone.
 * ZenFS fails such writes with NoSpace while open zones have room, and its GC migrates only into
 * open zones; both are the false "No space left" its users report. GC runs only when no zone has
 * room at all. */
int allocate_by_policy(zfs *fs, const zfs_alloc_request *req, uint32_t *out) {
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
int allocate_zone_for(zfs *fs, uint32_t lifetime, int purpose, uint32_t *out) {
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
/* Takes a zone for one write: the writer's previous zone if it has room (keeps the file
 * contiguous), else one from the allocator. Zones are held only for the duration of a write, so
 * more writers than the active-zone limit share zones instead of failing; when every usable zone
 * is being written, the writer waits for one. Called with fs->mu held. */
static int allocate_zone(zfs *fs, const fobj *f, uint32_t *out) {
  return allocate_zone_for(fs, f->m.lifetime, purpose_of(f->m.n_names ? f->m.names[0] : "", 0), out);
}
int take_zone(zfs *fs, fobj *f, uint32_t *out) {
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
