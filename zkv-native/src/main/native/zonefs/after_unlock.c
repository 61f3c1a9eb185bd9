/* Device work a change leaves for after fs->mu: its metadata records and its zone resets.
 *
 * A change to files or zones is decided and made in memory under fs->mu, which every write-out,
 * allocation and sync of every file needs for a few microseconds. Its device work (the records
 * that make it durable, the resets of zones it emptied) takes a device write each, and a reset on
 * a real device can take milliseconds: done under fs->mu, each would stall every other file's
 * writers. So an operation opens a scope (lock_fs), whatever it reserves or empties under the lock
 * is collected there, and unlock_fs does the work after releasing the lock, in this order:
 *   1. the records, in reservation order (write_reserved; each made after the data it points at is
 *      durable: meta_pending.durable_gen);
 *   2. the resets, only when every record went through and the log has not failed (a record on
 *      the device may otherwise still point into the zone: docs/zone-fs.md, "Order of writes");
 *   3. under fs->mu again, the reset zones become empty.
 * A zone waiting for its reset stays busy (zone_held): nobody allocates, finishes or collects it,
 * and it counts as active, which is what the device thinks until the reset is done. The caller
 * gets the first error (a record that failed fails the log: every later record fails too).
 *
 * Outside a scope (mount, unmount, the roll, fsck) records and resets happen at once, as before.
 * A scope belongs to its thread (a thread-local pointer, so the functions deep in the namespace and
 * allocation code need no extra parameter); scopes nest (GC inside a writer's begin_write runs its
 * own). A thread must not wait for another under fs->mu while its scope holds records: a roll
 * (which waits until every reserved record is written) or a wait on a condition writes them first
 * (write_deferred_records_now). Zone finishes and closes are not deferred: they change the open
 * and active tokens, which the file system's count must match whenever another writer may look. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "zonefs_internal.h"

static __thread after_unlock *current_scope;

void lock_fs(zfs *fs, after_unlock *work) {
  *work = (after_unlock){.fs = fs, .outer = current_scope};
  current_scope = work;
  pthread_mutex_lock(&fs->mu);
}

void lock_namespace(zfs *fs, after_unlock *work) {
  pthread_mutex_lock(&fs->ns_mu);
  lock_fs(fs, work);
  work->namespace = 1;
}

/* The zone's reset is done (or, `ok` = 0, failed: left for GC); under fs->mu. */
static void zone_reset_done(zfs *fs, uint32_t z, int ok, int flags) {
  zone_state *zs = &fs->zones[z];
  if (ok) {
    zs->wp = zs->start;
    zs->live = zs->live_phys = 0;
    zs->lifetime = 0;
    zs->tag = -1;
    zs->labelled = 0;
    zs->io_class = ZKV_CLASS_NONE;
    atomic_fetch_add(&zs->generation, 1);
    fs->st.resets++;
    if (flags & RESET_WITHOUT_COPY) fs->st.resets_without_copy++;
    if (flags & RESET_GC_ZONE) fs->st.gc_zones++;
    if (flags & RESET_GC_RUN) fs->st.gc_runs++;
  }
  zone_unclaim(zs);
  zones_changed(fs);
}

int reset_zone_now(zfs *fs, uint32_t z, int flags) {
  int rc = zkv_dev_zone_mgmt(fs->dev, z, ZKV_ZONE_RESET);
  zone_reset_done(fs, z, rc == 0, flags);
  return rc;
}

int defer_record(zfs *fs, meta_pending *p) {
  after_unlock *a = current_scope;
  if (!a || a->fs != fs) return write_reserved(fs, p);
  if (a->n_records == a->cap_records) {
    uint32_t cap = a->cap_records ? 2 * a->cap_records : 4;
    meta_pending *grown = realloc(a->records, cap * sizeof *grown);
    if (!grown) return write_reserved(fs, p); /* no room to defer it: written now, under the lock */
    a->records = grown;
    a->cap_records = cap;
  }
  a->records[a->n_records++] = *p;
  p->buf = NULL;
  return 0;
}

void defer_reset(zfs *fs, uint32_t z, int flags, int required) {
  after_unlock *a = current_scope;
  /* Claimed until the reset is done: nobody takes it meanwhile (GC's victim keeps GC's claim). */
  (void)zone_claim(&fs->zones[z]);
  if (a && a->fs == fs && a->n_resets == a->cap_resets) {
    uint32_t cap = a->cap_resets ? 2 * a->cap_resets : 4;
    deferred_reset *grown = realloc(a->resets, cap * sizeof *grown);
    if (grown) a->resets = grown, a->cap_resets = cap;
  }
  if (!a || a->fs != fs || a->n_resets == a->cap_resets) {
    int rc = reset_zone_now(fs, z, flags); /* a failed reset leaves the zone for GC */
    if (a && a->fs == fs && required && !a->failed) a->failed = rc;
    return;
  }
  a->resets[a->n_resets++] = (deferred_reset){z, (uint8_t)flags, (uint8_t)required, 0};
}

int write_deferred_records_now(zfs *fs) {
  after_unlock *a = current_scope;
  int rc = 0;
  for (; a && a->fs == fs; a = a->outer) {
    for (uint32_t i = 0; i < a->n_records; i++) {
      int r = write_reserved(fs, &a->records[i]);
      if (!a->failed) a->failed = r;
      if (!rc) rc = r;
    }
    a->n_records = 0;
  }
  return rc;
}

void run_deferred_now(zfs *fs) {
  (void)write_deferred_records_now(fs);
  for (after_unlock *a = current_scope; a && a->fs == fs; a = a->outer) {
    for (uint32_t i = 0; i < a->n_resets; i++) {
      uint32_t z = a->resets[i].zone;
      int rc = a->failed ? a->failed : log_failed(fs);
      if (rc)
        zone_reset_done(fs, z, 0, 0);
      else
        rc = reset_zone_now(fs, z, a->resets[i].flags);
      if (rc && a->resets[i].required && !a->failed) a->failed = rc;
    }
    a->n_resets = 0;
  }
}

int unlock_fs(zfs *fs, after_unlock *work) {
  pthread_mutex_unlock(&fs->mu);
  if (work->namespace) pthread_mutex_unlock(&fs->ns_mu);
  current_scope = work->outer;
  int rc = work->failed;
  for (uint32_t i = 0; i < work->n_records; i++) {
    int r = write_reserved(fs, &work->records[i]); /* frees it, also after an earlier failure */
    if (!rc) rc = r;
  }
  if (work->n_resets) {
    int refused = rc ? rc : log_failed(fs); /* no reset while a record may point into the zone */
    for (uint32_t i = 0; i < work->n_resets; i++) {
      deferred_reset *r = &work->resets[i];
      int reset = refused ? refused : zkv_dev_zone_mgmt(fs->dev, r->zone, ZKV_ZONE_RESET);
      r->ok = reset == 0;
      if (reset && r->required && !rc) rc = reset; /* GC's victim: the collection failed */
    }
    pthread_mutex_lock(&fs->mu);
    for (uint32_t i = 0; i < work->n_resets; i++)
      zone_reset_done(fs, work->resets[i].zone, work->resets[i].ok, work->resets[i].flags);
    pthread_mutex_unlock(&fs->mu);
  }
  free(work->records);
  free(work->resets);
  *work = (after_unlock){0};
  return rc;
}
