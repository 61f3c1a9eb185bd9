/* The in-memory file table: file objects, the hash indexes by name and by id, and what dropping a
 * file gives back to its zones. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

fobj *file_find(zfs *fs, const char *name, uint32_t *name_index) {
  fobj *f = zfs_index_get_name(&fs->by_name, name);
  if (f && name_index)
    for (uint32_t k = 0; k < f->m.n_names; k++)
      if (strcmp(f->m.names[k], name) == 0) *name_index = k;
  return f;
}

fobj *file_find_id(zfs *fs, uint64_t id) { return zfs_index_get_id(&fs->by_id, id); }

fobj *new_fobj(void) {
  fobj *f = calloc(1, sizeof *f);
  if (f) pthread_mutex_init(&f->wmu, NULL);
  return f;
}

void free_fobj(fobj *f) {
  zfs_file_free(&f->m);
  free(f->zone_live);
  free(f->ext_end);
  free(f->wbuf);
  pthread_mutex_destroy(&f->wmu);
  free(f);
}

/* Room in the extent index for the file's extents (doubling); out of memory, the index goes stale. */
static int index_room(fobj *f) {
  uint32_t n = f->m.n_extents;
  if (n <= f->cap_ext_end) return 1;
  uint32_t cap = f->cap_ext_end ? 2 * f->cap_ext_end : 16;
  if (cap < n) cap = n;
  uint64_t *grown = realloc(f->ext_end, cap * sizeof *grown);
  if (!grown) {
    f->ext_index_stale = 1;
    return 0;
  }
  f->ext_end = grown;
  f->cap_ext_end = cap;
  return 1;
}

void index_extents(fobj *f) {
  uint32_t n = f->m.n_extents;
  if (!index_room(f)) return;
  uint64_t end = 0;
  for (uint32_t i = 0; i < n; i++) f->ext_end[i] = end += f->m.extents[i].len;
  f->ext_index_stale = 0;
}

void index_extent_added(fobj *f, int appended, uint64_t logical) {
  uint32_t n = f->m.n_extents;
  if (f->ext_index_stale) return;
  if (!appended) {
    f->ext_end[n - 1] += logical;
    return;
  }
  if (!index_room(f)) return;
  f->ext_end[n - 1] = (n > 1 ? f->ext_end[n - 2] : 0) + f->m.extents[n - 1].len;
}

uint32_t find_extent(const fobj *f, uint64_t pos, uint64_t *within) {
  uint32_t n = f->m.n_extents;
  if (f->ext_index_stale) {
    uint32_t i = 0;
    for (; i + 1 < n && pos >= f->m.extents[i].len; i++) pos -= f->m.extents[i].len;
    *within = pos;
    return i;
  }
  uint32_t lo = 0, hi = n ? n - 1 : 0; /* the first extent ending after pos */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (f->ext_end[mid] > pos)
      hi = mid;
    else
      lo = mid + 1;
  }
  *within = pos - (lo ? f->ext_end[lo - 1] : 0);
  return lo;
}

void file_zone_add(fobj *f, uint32_t z, int64_t delta) {
  uint32_t i = f->n_zone_live;
  while (i > 0 && f->zone_live[i - 1].zone != z) i--; /* the zone written last is at the end */
  if (i == 0) {
    if (delta <= 0) return; /* nothing of the file there */
    if (f->n_zone_live == f->cap_zone_live) {
      uint32_t cap = f->cap_zone_live ? 2 * f->cap_zone_live : 4;
      file_zone_live *grown = realloc(f->zone_live, cap * sizeof *grown);
      if (!grown) {
        f->zone_live_stale = 1;
        return;
      }
      f->zone_live = grown, f->cap_zone_live = cap;
    }
    f->zone_live[f->n_zone_live++] = (file_zone_live){z, (uint64_t)delta};
    return;
  }
  file_zone_live *e = &f->zone_live[i - 1];
  e->live = delta < 0 && (uint64_t)-delta >= e->live ? 0 : e->live + (uint64_t)delta;
  if (!e->live) {
    memmove(e, e + 1, (f->n_zone_live - i) * sizeof *e);
    f->n_zone_live--;
  }
}

/* Bytes of the file, also those still in the writer's buffer. */
uint64_t file_size_locked(fobj *f) {
  pthread_mutex_lock(&f->wmu);
  uint64_t n = f->m.size + f->wlen - f->wdone;
  pthread_mutex_unlock(&f->wmu);
  return n;
}

/* Takes the names of f out of the name index (those that still lead to f). */
void unindex_names(zfs *fs, const fobj *f) {
  for (uint32_t k = 0; k < f->m.n_names; k++) zfs_index_del_name(&fs->by_name, f->m.names[k], f);
}

/* Adds a file to the table and both indexes; a name another file holds now leads to this one. */
int add_file(zfs *fs, fobj *f) {
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
void remove_file(zfs *fs, fobj *f) {
  unindex_names(fs, f);
  zfs_index_del_id(&fs->by_id, f->m.id);
  fobj *last = fs->files[--fs->n_files];
  fs->files[f->slot] = last;
  last->slot = f->slot;
}

void clear_files(zfs *fs) {
  for (size_t i = 0; i < fs->n_files; i++) free_fobj(fs->files[i]);
  fs->n_files = 0;
  zfs_index_clear(&fs->by_name);
  zfs_index_clear(&fs->by_id);
}

/* Name k of f goes away (from the index too, where it still leads to f). */
void drop_name(zfs *fs, fobj *f, uint32_t k) {
  zfs_index_del_name(&fs->by_name, f->m.names[k], f);
  free(f->m.names[k]);
  f->m.names[k] = f->m.names[--f->m.n_names];
}

/* Drops a file that has no names and no handles: its zones lose live bytes, empty ones reset. */
/* An extent's data is no longer live: its zone's counts drop (never below zero). */
void zone_drop_live(zfs *fs, zfs_extent e) {
  zone_state *zs = &fs->zones[zone_of(fs, e.start)];
  uint64_t phys = extent_blocks(fs, e);
  zs->live -= e.len < zs->live ? e.len : zs->live;
  zs->live_phys -= phys < zs->live_phys ? phys : zs->live_phys;
}

static void release_space(zfs *fs, fobj *f) {
  for (uint32_t i = 0; i < f->m.n_extents; i++) {
    zone_drop_live(fs, f->m.extents[i]);
    reset_if_unused(fs, zone_of(fs, f->m.extents[i].start));
  }
}

/* A data zone nobody holds whose live data is all gone is reset (ZenFS's ResetUnusedIOZones): when
 * the caller's scope releases fs->mu, after its records (after_unlock.c); a failed reset leaves it
 * for GC. */
void reset_if_unused(zfs *fs, uint32_t z) {
  zone_state *zs = &fs->zones[z];
  /* Not after the log failed: its records on the device may still point into the zone. */
  if (zs->live_phys || zone_held(zs) || zs->wp == zs->start || log_failed(fs)) return;
  defer_reset(fs, z, RESET_WITHOUT_COPY, 0);
}

void drop_file(zfs *fs, fobj *f) {
  remove_file(fs, f);
  release_space(fs, f);
  free_fobj(f);
}

int remove_name(zfs *fs, fobj *f, uint32_t k) {
  drop_name(fs, f, k);
  if (f->m.n_names > 0) return persist_file(fs, f);
  int rc = persist_delete(fs, f->m.id);
  if (f->refs == 0) drop_file(fs, f);
  return rc;
}
