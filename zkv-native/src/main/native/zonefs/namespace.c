/* The namespace: creating, opening and closing files, and stat, delete, rename, link, list. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

static zfs_file *new_handle(zfs *fs, fobj *f, int writer) {
  zfs_file *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->fs = fs, h->f = f, h->writer = writer;
  f->refs++;
  return h;
}

/* A writer's handle given up without a sync (its creation's record failed). */
static void abandon_handle(zfs_file *h) {
  zfs *fs = h->fs;
  fobj *f = h->f;
  zwal_close(fs, f);
  pthread_mutex_lock(&fs->ns_mu);
  pthread_mutex_lock(&fs->mu);
  release_zone(fs, f);
  f->has_writer = 0;
  if (--f->refs == 0 && f->m.n_names == 0) drop_file(fs, f);
  pthread_mutex_unlock(&fs->mu);
  pthread_mutex_unlock(&fs->ns_mu);
  read_ahead_free(h);
  free(h);
}

/* Whether a writer of f writes behind (zwal.c): an SST, while the file system's setting is on. */
static int writes_behind(zfs *fs, const fobj *f) {
  return f->m.n_names && is_sst_file(f->m.names[0]) && atomic_load(&fs->write_behind);
}

zfs_file *zfs_create(zfs *fs, const char *name, uint32_t lifetime, int *rc) {
  if (!name || !*name || strlen(name) > ZFS_MAX_NAME || fs->readonly) {
    *rc = fs->readonly ? -EROFS : -EINVAL;
    return NULL;
  }
  after_unlock work;
  lock_namespace(fs, &work);
  uint32_t k;
  fobj *old = file_find(fs, name, &k);
  zfs_file *h = NULL;
  *rc = 0;
  if (old && old->has_writer) *rc = -EBUSY;
  fobj *f = NULL;
  if (!*rc) {
    f = new_fobj();
    if (f && (f->m.names = calloc(1, sizeof *f->m.names)) != NULL) {
      f->m.names[0] = strdup(name);
      f->m.n_names = f->m.names[0] ? 1 : 0;
      f->wbuf = malloc(WRITE_BUFFER);
    }
    if (!f || !f->m.n_names || !f->wbuf) {
      if (f) free_fobj(f);
      f = NULL;
      *rc = -ENOMEM;
    }
  }
  if (f) {
    f->m.n_names = 1;
    f->m.id = fs->next_file_id++;
    f->m.lifetime = lifetime;
    f->m.mtime = now_us();
    f->m.active_extent_start = ZFS_NO_ACTIVE_EXTENT;
    if (is_wal_file(name)) f->m.flags |= ZFS_FILE_SPARSE; /* as ZenFS's WAL files */
    f->behind = writes_behind(fs, f);
    f->wcap = write_out_size(fs, f);
    f->zone = -1;
    f->has_writer = 1;
    if ((*rc = add_file(fs, f))) {
      free_fobj(f);
    } else if ((*rc = persist_file(fs, f))) {
      remove_file(fs, f);
      if (old) zfs_index_put_name(&fs->by_name, old->m.names[k], old); /* the name is old's again */
      free_fobj(f);
    } else if (!(h = new_handle(fs, f, 1))) {
      *rc = -ENOMEM;
    } else if (old) {
      /* The new file's record claimed the name (rule 3 of "Order of writes"); the replaced file
       * loses it only now, so a crash in between never leaves the name without a file. Replay
       * gives the name to the new record even if this delete never reaches the device. */
      remove_name(fs, old, k);
    }
  }
  int written = unlock_fs(fs, &work);               /* the records, after the lock */
  if (h && !written) written = zwal_open(fs, h->f); /* ZWAL: the file's queue */
  if (h && written) {
    /* The log failed: nothing persists on this mount any more (every later record fails too).
     * The file stays in memory as the calls left it; the caller gets no handle. */
    abandon_handle(h);
    h = NULL;
    *rc = written;
  }
  return h;
}

zfs_file *zfs_reopen(zfs *fs, const char *name, int *rc) {
  if (fs->readonly) {
    *rc = -EROFS;
    return NULL;
  }
  readers_exclude(fs); /* a sealed file's readers take no lock: none may be reading when it unseals */
  pthread_mutex_lock(&fs->ns_mu);
  pthread_mutex_lock(&fs->mu);
  fobj *f = file_find(fs, name, NULL);
  zfs_file *h = NULL;
  *rc = !f ? -ENOENT : f->has_writer ? -EBUSY : 0;
  if (!*rc && !(f->wbuf = malloc(WRITE_BUFFER))) *rc = -ENOMEM;
  if (!*rc && !(h = new_handle(fs, f, 1))) {
    free(f->wbuf);
    f->wbuf = NULL;
    *rc = -ENOMEM;
  }
  if (h) {
    f->behind = writes_behind(fs, f);
    f->wcap = write_out_size(fs, f);
    f->has_writer = 1;
    atomic_store(&f->sealed, 0);
    f->zone = -1;
    f->wlen = f->wsub = f->wdone = 0;
  }
  pthread_mutex_unlock(&fs->mu);
  pthread_mutex_unlock(&fs->ns_mu);
  readers_admit(fs);
  int queue = h ? zwal_open(fs, f) : 0; /* ZWAL: the file's queue */
  if (queue) {
    abandon_handle(h);
    h = NULL;
    *rc = queue;
  }
  return h;
}

zfs_file *zfs_open(zfs *fs, const char *name, int *rc) {
  pthread_mutex_lock(&fs->ns_mu); /* writers' allocations and write-outs go on meanwhile */
  fobj *f = file_find(fs, name, NULL);
  zfs_file *h = f ? new_handle(fs, f, 0) : NULL;
  *rc = f ? (h ? 0 : -ENOMEM) : -ENOENT;
  pthread_mutex_unlock(&fs->ns_mu);
  return h;
}

/* An info log's tail that a full device has no room for is dropped at close, so that closing a
 * database on a full device does not fail for its diagnostic log: RocksDB itself ignores errors
 * appending to it. What already reached the device stays. Returns whether `f` is an info log. */
static int drop_info_log_tail(zfs *fs, fobj *f) {
  pthread_mutex_lock(&fs->ns_mu);
  int info_log = f->m.n_names && is_info_log_file(f->m.names[0]);
  pthread_mutex_unlock(&fs->ns_mu);
  if (info_log) {
    pthread_mutex_lock(&f->wmu);
    f->wlen = f->wdone = 0; /* wbuf[wdone, wlen) never reached the device; [0, wdone) is in m.size */
    pthread_mutex_unlock(&f->wmu);
  }
  return info_log;
}

int zfs_close(zfs_file *h) {
  if (!h) return 0;
  zfs *fs = h->fs;
  fobj *f = h->f;
  read_ahead_free(h); /* its read in flight ends before the file's zones may be reset */
  int rc = h->writer ? zfs_sync(h) : 0;
  /* with nothing left buffered, the sync only records what reached the device */
  if (rc == -ENOSPC && h->writer && drop_info_log_tail(fs, f)) rc = zfs_sync(h);
  if (h->writer) zwal_close(fs, f); /* drained by the sync (or failed): its queue goes */
  after_unlock work;
  lock_namespace(fs, &work);
  /* A clean close records a sparse file's last chunks, so no mount has to look for them. */
  if (h->writer && is_sparse(f) && rc == 0) rc = persist_active(fs, f, ZFS_NO_ACTIVE_EXTENT);
  if (h->writer) {
    /* The zone goes back as ZenFS's CloseActiveZone does: explicitly closed if partly written (it
     * keeps its active token, gives its open one back). A failed close only leaves the zone
     * implicitly open, which the device closes itself when it needs the resource: it fails
     * nothing here, the data is durable. */
    int32_t z = f->zone;
    release_zone(fs, f);
    if (z >= 0 && fs->zones[z].wp > fs->zones[z].start && fs->zones[z].wp < zone_end(fs, (uint32_t)z))
      (void)zkv_dev_zone_mgmt(fs->dev, (uint32_t)z, ZKV_ZONE_CLOSE);
    f->has_writer = 0;
    pthread_mutex_lock(&f->wmu);
    int sealed = f->wlen == f->wdone;
    if (sealed) { /* else a failed sync left data only here: readers still need it */
      free(f->wbuf);
      f->wbuf = NULL;
      f->wlen = f->wdone = 0;
    }
    pthread_mutex_unlock(&f->wmu);
    if (sealed) atomic_store_explicit(&f->sealed, 1, memory_order_release); /* after its last extent */
  }
  if (--f->refs == 0 && f->m.n_names == 0) drop_file(fs, f);
  int written = unlock_fs(fs, &work);
  free(h);
  return rc ? rc : written;
}

int zfs_stat(zfs *fs, const char *name, uint64_t *size) {
  pthread_mutex_lock(&fs->ns_mu);
  fobj *f = file_find(fs, name, NULL);
  if (f && size) *size = file_size_locked(f);
  pthread_mutex_unlock(&fs->ns_mu);
  return f ? 0 : -ENOENT;
}

int zfs_delete(zfs *fs, const char *name) {
  if (fs->readonly) return -EROFS;
  after_unlock work;
  lock_namespace(fs, &work);
  uint32_t k;
  fobj *f = file_find(fs, name, &k);
  int rc = f ? remove_name(fs, f, k) : -ENOENT;
  int written = unlock_fs(fs, &work); /* the delete record, then the resets of the zones it emptied */
  return rc ? rc : written;
}

int zfs_rename(zfs *fs, const char *from, const char *to) {
  if (fs->readonly) return -EROFS;
  if (!to || !*to || strlen(to) > ZFS_MAX_NAME) return -EINVAL;
  if (strcmp(from, to) == 0) return zfs_stat(fs, from, NULL); /* a rename onto itself changes nothing */
  after_unlock work;
  lock_namespace(fs, &work);
  uint32_t k, kt;
  fobj *f = file_find(fs, from, &k);
  int rc = f ? 0 : -ENOENT;
  fobj *target = rc ? NULL : file_find(fs, to, &kt);
  if (target == f) target = NULL;
  char *copy = rc ? NULL : strdup(to);
  if (!rc && !copy) rc = -ENOMEM;
  if (!rc && zfs_index_put_name(&fs->by_name, copy, f)) { /* `to` leads to f from now on */
    free(copy);
    rc = -ENOMEM;
  }
  if (!rc) {
    zfs_index_del_name(&fs->by_name, f->m.names[k], f);
    free(f->m.names[k]);
    f->m.names[k] = copy;
    /* One record makes the rename durable; the replaced file's delete follows. A crash between
     * them leaves two files with the name `to`; replay gives it to the record written last
     * (claim_names). */
    rc = persist_file(fs, f);
    if (!rc && target) rc = remove_name(fs, target, kt);
  }
  int written = unlock_fs(fs, &work);
  return rc ? rc : written;
}

int zfs_link(zfs *fs, const char *existing, const char *link) {
  if (fs->readonly) return -EROFS;
  if (!link || !*link || strlen(link) > ZFS_MAX_NAME) return -EINVAL;
  after_unlock work;
  lock_namespace(fs, &work);
  fobj *f = file_find(fs, existing, NULL);
  int rc = !f ? -ENOENT : file_find(fs, link, NULL) ? -EEXIST : 0;
  if (!rc) {
    char **n = realloc(f->m.names, (f->m.n_names + 1) * sizeof *n);
    char *copy = strdup(link);
    if (!n || !copy) {
      free(copy);
      if (n) f->m.names = n;
      rc = -ENOMEM;
    } else if (zfs_index_put_name(&fs->by_name, copy, f)) {
      f->m.names = n;
      free(copy);
      rc = -ENOMEM;
    } else {
      f->m.names = n;
      f->m.names[f->m.n_names++] = copy;
      rc = persist_file(fs, f);
    }
  }
  int written = unlock_fs(fs, &work);
  return rc ? rc : written;
}

int zfs_list(zfs *fs, const char *prefix, void (*fn)(const char *, uint64_t, void *), void *arg) {
  size_t pl = strlen(prefix);
  pthread_mutex_lock(&fs->ns_mu); /* a long listing holds up no writer */
  for (size_t i = 0; i < fs->n_files; i++)
    for (uint32_t k = 0; k < fs->files[i]->m.n_names; k++)
      if (strncmp(fs->files[i]->m.names[k], prefix, pl) == 0)
        fn(fs->files[i]->m.names[k], file_size_locked(fs->files[i]), arg);
  pthread_mutex_unlock(&fs->ns_mu);
  return 0;
}
