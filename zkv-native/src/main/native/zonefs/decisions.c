/* The policies' call-outs: the view a decision is made on, and calling the placement, victim and
 * GC-trigger policies without any file system lock held.
 *
 * A policy is a decision, not a mechanism: it may be slow (the Java policies build their tables
 * and may run a collector's pause), so it is handed a snapshot of the zones and files taken under
 * fs->mu and called after the lock is released. Writers of other files append, sync and take the
 * zones they own meanwhile; the caller commits the decision under fs->mu again after checking it
 * against the state of that moment, and asks again on a fresh view when it went stale
 * (zone_alloc.c, gc.c; counted in stale_decisions). Installing a policy waits until no call-out is
 * under way, so a replaced policy's context is never used after its owner frees it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

/* The zone-file entries of one file: its per-zone map, or its extents when the map missed an
 * update (no memory); runs of extents in one zone add up to one entry. Returns how many it wrote
 * (none when `out` is NULL: counting). */
static size_t file_entries(const zfs *fs, const fobj *f, zfs_zone_file *out) {
  size_t n = 0;
  zfs_zone_file zf = {.file_id = f->m.id, .lifetime = f->m.lifetime};
  if (!f->zone_live_stale) {
    for (uint32_t k = 0; k < f->n_zone_live; k++, n++)
      if (out) zf.zone = f->zone_live[k].zone, zf.live = f->zone_live[k].live, out[n] = zf;
    return n;
  }
  zf.zone = UINT32_MAX;
  for (uint32_t k = 0; k < f->m.n_extents; k++) {
    uint32_t z = zone_of(fs, f->m.extents[k].start);
    if (z != zf.zone && zf.live) {
      if (out) out[n] = zf;
      n++;
    }
    if (z != zf.zone) zf.zone = z, zf.live = 0;
    zf.live += f->m.extents[k].len;
  }
  if (zf.live) {
    if (out) out[n] = zf;
    n++;
  }
  return n;
}

int view_take(zfs *fs, decision_view *out, int (*victim_ok)(zfs *fs, uint32_t z, void *arg), void *arg) {
  memset(out, 0, sizeof *out);
  size_t n_entries = 0, name_bytes = 0;
  for (size_t i = 0; i < fs->n_files; i++) {
    const fobj *f = fs->files[i];
    n_entries += file_entries(fs, f, NULL);
    name_bytes += (in_namespace(f) ? strlen(f->m.names[0]) : 0) + 1;
  }
  out->zones = malloc(fs->g.nr_zones * sizeof *out->zones);
  out->files = malloc((n_entries ? n_entries : 1) * sizeof *out->files);
  out->names = malloc(name_bytes ? name_bytes : 1);
  if (!out->zones || !out->files || !out->names) {
    view_free(out);
    return -ENOMEM;
  }
  for (uint32_t z = 0; z < fs->g.nr_zones; z++) {
    fill_zone_info(fs, z, &out->zones[z]);
    if (victim_ok) out->zones[z].victim_ok = victim_ok(fs, z, arg);
  }
  size_t at = 0;
  char *name = out->names;
  for (size_t i = 0; i < fs->n_files; i++) {
    const fobj *f = fs->files[i];
    const char *src = in_namespace(f) ? f->m.names[0] : "";
    size_t len = strlen(src) + 1;
    memcpy(name, src, len);
    size_t n = file_entries(fs, f, out->files + at);
    for (size_t k = 0; k < n; k++) out->files[at + k].name = name;
    at += n;
    name += len;
  }
  /* an SST writer's reserves; an allocation sets its own writer's (allocate_by_policy) */
  out->v = (zfs_view){out->zones,
                      fs->g.nr_zones,
                      fs->active_limit,
                      empty_zones_kept(fs, FOR_COMPACTION, ZKV_CLASS_INTERNAL),
                      fs->op_zones,
                      out->files,
                      at};
  out->zone_events = fs->zone_events;
  return 0;
}

void view_free(decision_view *v) {
  free(v->zones);
  free(v->files);
  free(v->names);
  memset(v, 0, sizeof *v);
}

/* Counts a call-out in before fs->mu is released, and out after it is taken again; the last one
 * out wakes zfs_set_* waiting to replace a policy. */
static void callout_enter(zfs *fs) {
  run_deferred_now(fs); /* a roll or a writer must not wait for this scope's work during the call */
  fs->callouts_running++;
  pthread_mutex_unlock(&fs->mu);
}

static void callout_exit(zfs *fs) {
  pthread_mutex_lock(&fs->mu);
  if (--fs->callouts_running == 0) pthread_cond_broadcast(&fs->callouts_done);
}

int call_allocator(zfs *fs, const zfs_alloc_request *req, decision_view *view, zfs_alloc_decision *out) {
  zfs_allocator fn = fs->allocator;
  void *ctx = fs->allocator_ctx;
  if (!fn) return -ENOENT;
  /* The request's name may be renamed away meanwhile: the call gets its own copy. */
  char *name = strdup(req->file_name);
  if (!name) return -ENOMEM;
  zfs_alloc_request own = *req;
  own.file_name = name;
  callout_enter(fs);
  int rc = fn(ctx, &own, &view->v, out);
  callout_exit(fs);
  free(name);
  return rc;
}

int call_victim_chooser(zfs *fs, decision_view *view, uint32_t *victim) {
  zfs_victim_chooser fn = fs->victim_chooser;
  void *ctx = fs->victim_chooser_ctx;
  if (!fn) return -ENOENT;
  callout_enter(fs);
  int rc = fn(ctx, &view->v, victim);
  callout_exit(fs);
  return rc;
}

int call_gc_trigger(zfs *fs, uint64_t *max_live) {
  zfs_gc_trigger fn = fs->gc_trigger;
  void *ctx = fs->gc_trigger_ctx;
  if (!fn) return -ENOENT;
  decision_view view;
  int rc = view_take(fs, &view, NULL, NULL);
  if (rc) return rc;
  callout_enter(fs);
  rc = fn(ctx, &view.v, max_live);
  callout_exit(fs);
  view_free(&view);
  return rc;
}

int zfs_inspect_view(zfs *fs, int (*fn)(void *ctx, const zfs_view *view), void *ctx) {
  decision_view view;
  pthread_mutex_lock(&fs->mu);
  int rc = view_take(fs, &view, NULL, NULL);
  pthread_mutex_unlock(&fs->mu);
  if (rc) return rc;
  rc = fn(ctx, &view.v);
  view_free(&view);
  return rc;
}

/* Installs a policy (under fs->mu), then waits until no call-out runs: one may still be using the
 * policy it replaced. */
static void installed(zfs *fs) {
  while (fs->callouts_running) pthread_cond_wait(&fs->callouts_done, &fs->mu);
  pthread_mutex_unlock(&fs->mu);
}

void zfs_set_allocator(zfs *fs, zfs_allocator fn, void *ctx) {
  pthread_mutex_lock(&fs->mu);
  fs->allocator = fn;
  fs->allocator_ctx = ctx;
  installed(fs);
}

void zfs_set_victim_chooser(zfs *fs, zfs_victim_chooser fn, void *ctx) {
  pthread_mutex_lock(&fs->mu);
  fs->victim_chooser = fn;
  fs->victim_chooser_ctx = ctx;
  installed(fs);
}

void zfs_set_gc_trigger(zfs *fs, zfs_gc_trigger fn, void *ctx) {
  pthread_mutex_lock(&fs->mu);
  fs->gc_trigger = fn;
  fs->gc_trigger_ctx = ctx;
  installed(fs);
}
