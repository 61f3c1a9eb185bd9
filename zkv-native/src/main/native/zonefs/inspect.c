/* Inspection for the CLI and the Java side: statistics, superblock, meta zones, zones, files, and
 * the consistency check (fsck). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

int zfs_stats_get(zfs *fs, zfs_stats *out) {
  pthread_mutex_lock(&fs->mu);
  zfs_stats s = fs->st;
  s.files = (uint32_t)fs->n_files;
  s.live_bytes = s.used_zone_bytes = 0;
  s.data_zones = s.empty_zones = s.full_zones = s.open_zones = s.owned_zones = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    zone_state *zs = &fs->zones[z];
    s.data_zones++;
    s.live_bytes += zs->live;
    s.used_zone_bytes += zs->wp - zs->start;
    s.owned_zones += zs->owner != NULL;
    if (zs->wp == zs->start)
      s.empty_zones++;
    else if (zs->wp >= zone_end(fs, z))
      s.full_zones++;
    else
      s.open_zones++;
  }
  s.policy_decisions_total = fs->policy_base[0] + s.policy_decisions;
  s.fallback_allocations_total = fs->policy_base[1] + s.fallback_allocations;
  s.zone_steals_total = fs->policy_base[2] + s.zone_steals;
  for (int i = 0; i < ZFS_OVERRIDES; i++) s.overrides_total[i] = fs->override_base[i] + s.overrides[i];
  gc_counts_since_format(fs, s.gc_totals);
  s.wal_reserved_zones = fs->walr_n;
  pthread_mutex_unlock(&fs->mu);
  zkv_dev_stats d;
  zkv_dev_stats_get(fs->dev, &d);
  s.device_errors = d.errors;
  *out = s;
  return 0;
}

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
  /* The zones' live counts against the extents that are there (also of files deleted while open):
   * a count that drifted resets a zone whose data is still in use, or never resets one. */
  uint64_t *live = calloc(fs->g.nr_zones, sizeof *live), *phys = calloc(fs->g.nr_zones, sizeof *phys);
  for (size_t i = 0; live && phys && i < fs->n_files; i++)
    for (uint32_t k = 0; k < fs->files[i]->m.n_extents; k++) {
      zfs_extent e = fs->files[i]->m.extents[k];
      uint32_t z = zone_of(fs, e.start);
      if (z >= fs->g.nr_zones) continue;
      live[z] += e.len;
      phys[z] += extent_blocks(fs, e);
    }
  for (uint32_t z = fs->sb.meta_zones; live && phys && z < fs->g.nr_zones; z++)
    if (fs->zones[z].live != live[z] || fs->zones[z].live_phys != phys[z]) {
      snprintf(msg, sizeof msg,
               "zone %u: counted %llu live bytes in %llu bytes of blocks, its extents hold %llu in %llu", z,
               (unsigned long long)fs->zones[z].live, (unsigned long long)fs->zones[z].live_phys,
               (unsigned long long)live[z], (unsigned long long)phys[z]);
      problem(msg, arg), problems++;
    }
  /* Each file's per-zone map (what the placement call-outs see) against its extents. */
  for (size_t i = 0; live && i < fs->n_files; i++) {
    const fobj *f = fs->files[i];
    if (f->zone_live_stale) continue; /* the call-outs walk the extents for it */
    memset(live, 0, fs->g.nr_zones * sizeof *live);
    for (uint32_t k = 0; k < f->m.n_extents; k++) {
      uint32_t z = zone_of(fs, f->m.extents[k].start);
      if (z < fs->g.nr_zones) live[z] += f->m.extents[k].len;
    }
    uint64_t mapped = 0;
    for (uint32_t k = 0; k < f->n_zone_live; k++) {
      uint32_t z = f->zone_live[k].zone;
      mapped += f->zone_live[k].live;
      if (z < fs->g.nr_zones && live[z] == f->zone_live[k].live) continue;
      snprintf(msg, sizeof msg, "file '%s': its zone map gives zone %u %llu live bytes, its extents %llu",
               in_namespace(f) ? f->m.names[0] : "(deleted, still open)", z, (unsigned long long)f->zone_live[k].live,
               (unsigned long long)(z < fs->g.nr_zones ? live[z] : 0));
      problem(msg, arg), problems++;
    }
    if (mapped != f->m.size) {
      snprintf(msg, sizeof msg, "file '%s': its zone map holds %llu bytes, the file %llu on the device",
               in_namespace(f) ? f->m.names[0] : "(deleted, still open)", (unsigned long long)mapped,
               (unsigned long long)f->m.size);
      problem(msg, arg), problems++;
    }
  }
  free(live);
  free(phys);
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
