/* The metadata log's writes (meta_mu's): reserved records written in reservation order, the roll's
 * writes, the log's failure, and the flush a record needs before it (make_durable). Below the
 * reservations (meta_log.c) and the scopes that defer records (after_unlock.c). */
#define _GNU_SOURCE
#include <stdlib.h>

#include "zonefs_internal.h"

/* Waits until every reserved record is written (called with mu held: no new one is reserved
 * meanwhile, and the writers of those need no lock but meta_mu). Returns the log's failure, if any. */
int wait_log_written(zfs *fs) {
  pthread_mutex_lock(&fs->meta_mu);
  while (fs->meta_done != fs->meta_wp && !fs->meta_failed) pthread_cond_wait(&fs->meta_progress, &fs->meta_mu);
  int rc = fs->meta_failed;
  pthread_mutex_unlock(&fs->meta_mu);
  return rc;
}

/* The log failed (a write failed, or a roll stopped half way): every later record fails with rc. */
void log_fail(zfs *fs, int rc) {
  pthread_mutex_lock(&fs->meta_mu);
  if (!fs->meta_failed) fs->meta_failed = rc;
  pthread_cond_broadcast(&fs->meta_progress);
  pthread_mutex_unlock(&fs->meta_mu);
}

int log_failed(zfs *fs) {
  pthread_mutex_lock(&fs->meta_mu);
  int rc = fs->meta_failed;
  pthread_mutex_unlock(&fs->meta_mu);
  return rc;
}

/* Writes at the log's end now (the roll: mu held, nothing else reserved). */
int write_meta(zfs *fs, const uint8_t *buf, size_t len) {
  int rc = zkv_dev_write(fs->dev, fs->meta_wp, buf, len, ZKV_IO_FUA | ZKV_IO_CLASS(ZKV_CLASS_META));
  pthread_mutex_lock(&fs->meta_mu);
  if (rc)
    fs->meta_failed = rc;
  else
    fs->meta_done = fs->meta_wp += len;
  pthread_cond_broadcast(&fs->meta_progress);
  pthread_mutex_unlock(&fs->meta_mu);
  if (!rc) fs->st.meta_bytes += len;
  return rc;
}

/* The record's turn comes when every record reserved before it is written (meta_done reaches it);
 * only then is it written, and no other log write runs meanwhile (the later ones wait for their
 * turn), so the log's writes stay sequential. No lock is held across the device write: a
 * reservation, made under mu, only looks at meta_failed. */
int write_reserved(zfs *fs, meta_pending *p) {
  if (!p->buf) return 0;
  int durable = make_durable(fs, p->durable_gen); /* before its turn: the flush holds up no record */
  pthread_mutex_lock(&fs->meta_mu);
  if (durable && !fs->meta_failed) fs->meta_failed = durable;
  while (fs->meta_done != p->at && !fs->meta_failed) pthread_cond_wait(&fs->meta_progress, &fs->meta_mu);
  int rc = fs->meta_failed;
  pthread_mutex_unlock(&fs->meta_mu);
  if (!rc) {
    rc = zkv_dev_write(fs->dev, p->at, p->buf, p->size, ZKV_IO_FUA | ZKV_IO_CLASS(ZKV_CLASS_META));
    pthread_mutex_lock(&fs->meta_mu);
    if (rc)
      fs->meta_failed = rc;
    else
      fs->meta_done = p->at + p->size;
    pthread_cond_broadcast(&fs->meta_progress);
    pthread_mutex_unlock(&fs->meta_mu);
  }
  free(p->buf);
  p->buf = NULL;
  return rc;
}

/* Rule 1 of docs/zone-fs.md ("Order of writes"): file data is durable before any record that may
 * point at it. Every data write bumps data_gen when it completed (and sets its file's written_gen);
 * a flush that started after generation g completed makes everything up to g durable. A record of
 * one file needs the flush only while that file's own last write is not durable yet; a snapshot,
 * while any is. A sync flushed its own data before its record, so that record usually needs none.
 * Needs no lock: the flush runs wherever the record is written (after fs->mu, as a rule). */
int make_durable(zfs *fs, uint64_t needed) {
  if (needed <= atomic_load(&fs->durable_gen)) return 0;
  uint64_t gen = atomic_load(&fs->data_gen);
  int rc = zkv_dev_flush(fs->dev);
  if (rc) return rc;
  uint64_t d = atomic_load(&fs->durable_gen);
  while (gen > d && !atomic_compare_exchange_weak(&fs->durable_gen, &d, gen)) {}
  return 0;
}
