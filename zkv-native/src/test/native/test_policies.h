/* The C tests' policies. The file system decides nothing by lifetime or garbage itself (placement,
 * victims and when to collect are the Java policies' in zkv-placement); tests that need such
 * decisions install these, simplified versions of zkv's defaults, written against the call-out API
 * only (zonefs.h: zfs_view):
 * - tp_allocate: LIZA as ZenFS has it (a partly written zone of the closest longer lifetime, else
 *   an empty zone within the active limit, else any partly written zone), with open tokens (WAIT
 *   while writers hold max_open - 2 zones); for the WAL reserve (req->for_wal_reserve) an empty
 *   zone only, the cheapest idle partly written zone finished first at the active limit, as
 *   LIZA's WalReservation answers it;
 * - tp_victim: greedy, the marked zone with the fewest bytes to copy (lowest index on a tie);
 * - tp_trigger: from `percent` free space on, zones at least half garbage.
 * mount_ok (zfs_fixture.h) installs all three; tp_set_gc_level changes or removes the trigger. */
#ifndef ZKV_TEST_POLICIES_H
#define ZKV_TEST_POLICIES_H
#include <errno.h>
#include <stdint.h>

#include "zonefs.h"

#define TP_POLICY static __attribute__((unused))

typedef struct tp_config {
  uint32_t open_tokens; /* zones writers may own at once, 0 = no limit */
  uint32_t gc_percent;  /* the trigger's level, percent free */
  uint64_t block;       /* the smallest write */
} tp_config;

#define TP_GC_PERCENT 20 /* the trigger's level every mount starts with */
static tp_config tp_cfg = {.open_tokens = 0, .gc_percent = TP_GC_PERCENT, .block = 4096};

static unsigned tp_lifetime_diff(uint32_t zone_lt, uint32_t file_lt) {
  if (file_lt <= 1) return zone_lt == file_lt ? 0 : 100;
  if (zone_lt > file_lt) return zone_lt - file_lt;
  return zone_lt == file_lt ? 50 : 100;
}

static int tp_partly_written(const zfs_zone_info *z) { return z->wp > z->start && z->wp < z->start + z->capacity; }

TP_POLICY int tp_allocate(void *ctx, const zfs_alloc_request *req, const zfs_view *v, zfs_alloc_decision *out) {
  const tp_config *c = ctx;
  uint32_t owned = 0, active = 0;
  for (uint32_t i = 0; i < v->n_zones; i++) {
    const zfs_zone_info *z = &v->zones[i];
    if (z->meta) continue;
    owned += z->owner_file != ZFS_NO_OWNER;
    active += tp_partly_written(z) || (z->busy && z->wp == z->start);
  }
  if (!req->for_gc && c->open_tokens && owned >= c->open_tokens) {
    out->action = ZFS_ALLOC_WAIT;
    return 0;
  }
  int64_t best = -1;
  unsigned best_diff = 101;
  for (uint32_t i = 0; i < v->n_zones; i++) {
    const zfs_zone_info *z = &v->zones[i];
    if (z->meta || z->busy || !tp_partly_written(z) || z->start + z->capacity - z->wp < c->block) continue;
    unsigned d = tp_lifetime_diff(z->lifetime, req->lifetime);
    if (d <= best_diff) best = i, best_diff = d;
  }
  if (best >= 0 && best_diff < 50 && !req->for_wal_reserve) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_USE, .zone = (uint32_t)best};
    return 0;
  }
  uint32_t n_finish = 0;
  if (req->for_wal_reserve && v->active_limit && active >= v->active_limit) {
    /* LIZA's WalReservation: the cheapest partly written zone nobody holds is finished first */
    int64_t cheapest = -1;
    for (uint32_t i = 0; i < v->n_zones; i++) {
      const zfs_zone_info *z = &v->zones[i];
      if (z->meta || z->busy || !tp_partly_written(z)) continue;
      if (cheapest < 0 || z->start + z->capacity - z->wp <
                              v->zones[cheapest].start + v->zones[cheapest].capacity - v->zones[cheapest].wp)
        cheapest = i;
    }
    if (cheapest >= 0) out->finish[n_finish++] = (uint32_t)cheapest, active--;
  }
  if (!v->active_limit || active < v->active_limit + (req->for_gc ? 1u : 0u))
    for (uint32_t i = 0; i < v->n_zones; i++) {
      const zfs_zone_info *z = &v->zones[i];
      if (!z->meta && !z->busy && z->wp == z->start) {
        out->action = ZFS_ALLOC_OPEN_EMPTY, out->zone = i, out->n_finish = n_finish;
        return 0;
      }
    }
  if (best >= 0 && !req->for_wal_reserve) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_USE, .zone = (uint32_t)best};
    return 0;
  }
  out->action = ZFS_ALLOC_NO_SPACE; /* the file system releases an idle owner's zone, or collects */
  return 0;
}

TP_POLICY int tp_victim(void *ctx, const zfs_view *v, uint32_t *victim) {
  (void)ctx;
  int64_t best = -1;
  for (uint32_t i = 0; i < v->n_zones; i++)
    if (v->zones[i].victim_ok && (best < 0 || v->zones[i].copy < v->zones[best].copy)) best = i;
  if (best < 0) return -ENOSPC;
  *victim = (uint32_t)best;
  return 0;
}

TP_POLICY int tp_trigger(void *ctx, const zfs_view *v, uint64_t *max_live) {
  const tp_config *c = ctx;
  uint64_t free_bytes = 0, total = 0, cap = 0;
  for (uint32_t i = 0; i < v->n_zones; i++) {
    const zfs_zone_info *z = &v->zones[i];
    if (z->meta) continue;
    free_bytes += z->start + z->capacity - z->wp;
    total += z->capacity;
    cap = z->capacity;
  }
  *max_live = c->gc_percent && free_bytes * 100 <= total * c->gc_percent ? cap / 2 : 0;
  return 0;
}

/* Installs the three on fs, with open tokens as ZenFS keeps them (two of the device's limit back),
 * the trigger at its first level (a level an earlier test set does not carry over). */
TP_POLICY void tp_install(zfs *fs, const zkv_geometry *g) {
  tp_cfg.open_tokens = g->max_open ? (g->max_open > 3 ? g->max_open - 2 : 1) : 0;
  tp_cfg.block = g->lba_size;
  tp_cfg.gc_percent = TP_GC_PERCENT;
  zfs_set_allocator(fs, tp_allocate, &tp_cfg);
  zfs_set_victim_chooser(fs, tp_victim, &tp_cfg);
  zfs_set_gc_trigger(fs, tp_trigger, &tp_cfg);
}

/* The trigger's level, percent free; 0 removes the trigger (no background GC). */
TP_POLICY void tp_set_gc_level(zfs *fs, uint32_t percent) {
  tp_cfg.gc_percent = percent;
  zfs_set_gc_trigger(fs, percent ? tp_trigger : NULL, percent ? &tp_cfg : NULL);
}
#endif
