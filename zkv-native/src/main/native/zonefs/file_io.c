/* File I/O: appends through the writer's buffer, write-out into zones (the FILE mode's; ZWAL's are
 * zwal.c's), syncs, and reads. The zone each write goes to is writer_zone.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zonefs_internal.h"

/* The FILE mode's write: a claimed zone and the room left in it. */
static int begin_write(zfs *fs, fobj *f, uint64_t want, uint32_t *z, uint64_t *at, uint64_t *room) {
  int rc = claim_writer_zone(fs, f, want, fs->g.lba_size, z, at);
  if (!rc) *room = zone_end(fs, *z) - *at;
  return rc;
}

/* Ends a device write of `phys` bytes at `at` (result `rc`) that holds `data` bytes of the file
 * from device offset `data_at` on: counts them, adds the extent, and gives a full zone back (its
 * active token with it); after a failed write the zone's write pointer is unknown here, so the
 * writer asks for another zone next time. Returns rc, or the extent's error. */
static int end_write(zfs *fs, fobj *f, uint32_t z, int rc, uint64_t at, size_t phys, uint64_t data_at, size_t data) {
  after_unlock work; /* a full zone whose data is all deleted is reset after the lock */
  lock_fs(fs, &work);
  zone_state *zs = &fs->zones[z];
  zone_unclaim(zs);
  if (!rc) {
    zs->wp = at + phys;
    zs->live += data;
    if (data) zs->live_phys += phys;
    pthread_mutex_lock(&f->wmu);
    rc = data ? add_extent(fs, f, data_at, data) : 0;
    f->wdone += data;
    pthread_mutex_unlock(&f->wmu);
    fs->st.host_bytes += data;
    f->written_gen = ++fs->data_gen;
    fs->st.padding_bytes += phys - data;
  }
  if ((rc || zone_end(fs, z) - zs->wp < fs->g.lba_size) && f->zone == (int32_t)z) release_zone(fs, f);
  zones_changed(fs);
  int after = unlock_fs(fs, &work);
  return rc ? rc : after;
}

/* Writes wbuf[0, n) (n whole blocks, or the padded tail when `logical` < n) into zones. */
static int write_out(zfs *fs, fobj *f, size_t n, size_t logical) {
  size_t done = f->wdone; /* after a failed attempt, what already reached the device stays */
  while (done < n) {
    uint32_t z = 0;
    uint64_t at = 0, room = 0;
    int rc = begin_write(fs, f, n - done, &z, &at, &room);
    if (rc) return rc;
    size_t chunk = n - done < room ? n - done : (size_t)room;
    if (chunk > fs->g.zasl) chunk = fs->g.zasl / fs->g.lba_size * fs->g.lba_size;
    rc = zkv_dev_write(fs->dev, at, f->wbuf + done, chunk, io_class_in(fs, z, f));
    size_t real = done + chunk <= logical ? chunk : (logical > done ? logical - done : 0);
    if ((rc = end_write(fs, f, z, rc, at, chunk, at, real))) return rc;
    done += chunk;
  }
  return 0;
}

/* A sparse file's write-out: wbuf[wdone, logical) as chunks, each one device write of header,
 * data and zero padding (docs/formats/zone-fs.md). */
static int write_out_chunks(zfs *fs, fobj *f, size_t logical) {
  uint32_t block = fs->g.lba_size;
  size_t done = f->wdone;
  uint8_t *chunk = NULL;
  size_t chunk_cap = 0;
  int rc = 0;
  while (!rc && done < logical) {
    uint32_t z = 0;
    uint64_t at = 0, room = 0;
    if ((rc = begin_write(fs, f, ZFS_CHUNK_HEADER + (logical - done), &z, &at, &room))) break;
    uint64_t max = room < fs->g.zasl ? room : fs->g.zasl / block * block;
    size_t data = logical - done;
    if (ZFS_CHUNK_HEADER + data > max) data = (size_t)(max - ZFS_CHUNK_HEADER);
    size_t phys = (size_t)round_up(ZFS_CHUNK_HEADER + data, block);
    if (phys > chunk_cap) {
      free(chunk);
      chunk_cap = phys;
      if (!(chunk = malloc(chunk_cap))) rc = -ENOMEM;
    }
    if (!rc) {
      zfs_chunk c = {.file_id = f->m.id,
                     .offset = f->m.size,
                     .len = (uint32_t)data,
                     .data_crc = zfs_chunk_data_crc(f->wbuf + done, data)};
      zfs_chunk_encode(&c, chunk);
      memcpy(chunk + ZFS_CHUNK_HEADER, f->wbuf + done, data);
      memset(chunk + ZFS_CHUNK_HEADER + data, 0, phys - ZFS_CHUNK_HEADER - data);
      rc = zkv_dev_write(fs->dev, at, chunk, phys, io_class_in(fs, z, f));
    }
    if (!(rc = end_write(fs, f, z, rc, at, phys, at + ZFS_CHUNK_HEADER, data))) done += data;
  }
  free(chunk);
  return rc;
}

/* ZWAL: everything buffered submitted and landed; the buffer is empty again. */
static int zwal_write_all(zfs *fs, fobj *f) {
  int rc = zwal_submit(fs, f, f->wlen);
  if (!rc) rc = zwal_drain(fs, f);
  if (rc) return rc;
  pthread_mutex_lock(&f->wmu);
  f->wlen = f->wsub = f->wdone = 0;
  pthread_mutex_unlock(&f->wmu);
  return 0;
}

/* ZWAL: the data stays in wbuf until its append lands (reads of the tail come from there); a chunk
 * is submitted whenever a write-out's worth has gathered, and a full buffer drops its landed part. */
static int zwal_append(zfs *fs, fobj *f, const uint8_t *p, size_t len) {
  while (len) {
    if (f->wlen == WRITE_BUFFER) {
      int rc = zwal_make_room(fs, f);
      if (rc) return rc;
    }
    size_t take = WRITE_BUFFER - f->wlen < len ? WRITE_BUFFER - f->wlen : len;
    pthread_mutex_lock(&f->wmu); /* readers may be copying from wbuf */
    memcpy(f->wbuf + f->wlen, p, take);
    f->wlen += take;
    pthread_mutex_unlock(&f->wmu);
    p += take, len -= take;
    if (f->wlen - f->wsub >= f->wcap) {
      int rc = zwal_submit(fs, f, f->wlen - (f->wlen - f->wsub) % f->wcap);
      if (rc) return rc;
    }
  }
  return 0;
}

int zfs_append(zfs_file *h, const void *buf, size_t len) {
  if (!h->writer) return -EBADF;
  if (h->fs->readonly) return -EROFS;
  fobj *f = h->f;
  zfs *fs = h->fs;
  const uint8_t *p = buf;
  if (f->zw) return zwal_append(fs, f, p, len);
  while (len) {
    size_t take = f->wcap - f->wlen < len ? f->wcap - f->wlen : len;
    pthread_mutex_lock(&f->wmu); /* readers may be copying from wbuf */
    memcpy(f->wbuf + f->wlen, p, take);
    f->wlen += take;
    pthread_mutex_unlock(&f->wmu);
    p += take, len -= take;
    if (f->wlen == f->wcap) {
      int rc = is_sparse(f) ? write_out_chunks(fs, f, f->wcap) : write_out(fs, f, f->wcap, f->wcap);
      if (rc) return rc;
      pthread_mutex_lock(&f->wmu);
      f->wlen = f->wdone = 0;
      pthread_mutex_unlock(&f->wmu);
    }
  }
  return 0;
}

int zfs_sync(zfs_file *h) {
  if (!h->writer) return 0;
  fobj *f = h->f;
  zfs *fs = h->fs;
  if (f->zw) { /* every append of the file landed before the flush */
    int rc = zwal_write_all(fs, f);
    if (rc) return rc;
  } else if (f->wlen) {
    int rc;
    if (is_sparse(f)) {
      rc = write_out_chunks(fs, f, f->wlen);
    } else {
      size_t padded = round_up(f->wlen, fs->g.lba_size);
      memset(f->wbuf + f->wlen, 0, padded - f->wlen);
      rc = write_out(fs, f, padded, f->wlen);
    }
    if (rc) return rc;
    pthread_mutex_lock(&f->wmu);
    f->wlen = f->wdone = 0;
    pthread_mutex_unlock(&f->wmu);
  }
  /* Data durable before the metadata that points at it: the flush runs outside the lock and covers
   * this file's writes (none when another file's flush already did: make_durable). Its record is
   * reserved under the lock and written after it is released, so other files' write-outs and
   * allocations do not wait for this metadata write. */
  int rc = make_durable(fs, f->written_gen);
  if (rc) return rc;
  after_unlock work;
  lock_fs(fs, &work);
  f->m.mtime = now_us();
  meta_pending record = {0};
  /* A sparse file's synced chunks are found on the device by the next mount: no record. */
  rc = is_sparse(f) ? 0 : reserve_sync(fs, f, &record);
  if (!rc) rc = defer_record(fs, &record);
  int written = unlock_fs(fs, &work);
  return rc ? rc : written;
}

void zfs_set_space_class(zfs_file *h, int space_class) {
  pthread_mutex_lock(&h->fs->mu);
  h->f->space_class = (uint8_t)space_class;
  pthread_mutex_unlock(&h->fs->mu);
}

void zfs_end_opening_wal(zfs *fs, const char *name) {
  pthread_mutex_lock(&fs->mu);
  fobj *f = file_find(fs, name, NULL);
  if (f && f->space_class == ZFS_SPACE_OPENING_WAL) f->space_class = ZFS_SPACE_BY_NAME;
  pthread_mutex_unlock(&fs->mu);
}

void zfs_set_lifetime(zfs_file *h, uint32_t lifetime) {
  pthread_mutex_lock(&h->fs->mu);
  h->f->m.lifetime = lifetime;
  pthread_mutex_unlock(&h->fs->mu);
}

uint64_t zfs_file_size(zfs_file *h) { return file_size_locked(h->f); }

int zfs_set_wal_mode(zfs *fs, int mode, uint32_t queue_depth, uint64_t barrier_bytes) {
  if (mode != ZFS_WAL_FILE && mode != ZFS_WAL_ZWAL) return -EINVAL;
  if (mode == ZFS_WAL_ZWAL) {
    if (queue_depth < 1 || queue_depth > 64) return -EINVAL;
    if (barrier_bytes % fs->g.lba_size || barrier_bytes > fs->g.zone_cap) return -EINVAL;
    if (!zkv_dev_queues_async(fs->dev)) return -EOPNOTSUPP;
  }
  pthread_mutex_lock(&fs->mu);
  fs->wal_queue_depth = queue_depth;
  fs->wal_barrier = barrier_bytes ? barrier_bytes : fs->g.zone_cap;
  atomic_store(&fs->wal_mode, mode);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

int zfs_set_wal_buffer(zfs *fs, uint32_t bytes) {
  if (bytes < fs->g.lba_size || bytes > WRITE_BUFFER || bytes % fs->g.lba_size) return -EINVAL;
  atomic_store(&fs->wal_buffer, bytes);
  return 0;
}

uint32_t zfs_wal_buffer(zfs *fs) { return atomic_load(&fs->wal_buffer); }

int zfs_set_write_behind(zfs *fs, int on) {
  if (on && !zkv_dev_queues_async(fs->dev)) return -EOPNOTSUPP;
  atomic_store(&fs->write_behind, on != 0);
  return 0;
}

/* A run of a sparse file's extents that are chunks one after another on the device (the next
 * chunk's data starts right after this one's padding and the next header): read as one device read
 * of their span, the pieces copied out. At most CHUNK_RUN_MAX pieces and CHUNK_RUN_SPAN bytes. */
#define CHUNK_RUN_MAX 64
#define READ_AHEAD_PIECE (256u << 10) /* reads under this of a sealed WAL go through read_ahead.c */
#define CHUNK_RUN_SPAN (1u << 20)
typedef struct chunk_run {
  uint32_t n;
  uint64_t at[CHUNK_RUN_MAX], len[CHUNK_RUN_MAX]; /* device offset and bytes of each piece */
  uint64_t bytes;                                 /* their sum */
} chunk_run;

/* The run starting with extent i's piece [first, first + first_len) and going on while the next
 * extent is the next chunk on the device, up to `want` bytes. Called with the file's extents stable
 * (wmu held, or sealed). */
static void gather_chunk_run(const zfs *fs, const fobj *f, uint32_t i, uint64_t first, uint64_t first_len,
                             uint64_t want, chunk_run *run) {
  uint32_t block = fs->g.lba_size;
  run->n = 1;
  run->at[0] = first;
  run->len[0] = first_len;
  run->bytes = first_len;
  uint64_t start = first / block * block;
  for (uint32_t k = i + 1; k < f->m.n_extents && run->n < CHUNK_RUN_MAX && run->bytes < want; k++) {
    const zfs_extent *prev = &f->m.extents[k - 1], *next = &f->m.extents[k];
    if (next->start != round_up(prev->start + prev->len, block) + ZFS_CHUNK_HEADER) break;
    if (zone_of(fs, next->start) != zone_of(fs, first)) break;
    uint64_t take = next->len < want - run->bytes ? next->len : want - run->bytes;
    if (round_up(next->start + take, block) - start > CHUNK_RUN_SPAN) break;
    run->at[run->n] = next->start;
    run->len[run->n++] = take;
    run->bytes += take;
  }
}

static int read_chunk_run(zfs *fs, const chunk_run *run, uint8_t *out) {
  uint32_t block = fs->g.lba_size;
  uint64_t a = run->at[0] / block * block, e = round_up(run->at[run->n - 1] + run->len[run->n - 1], block);
  uint8_t *span = malloc(e - a);
  if (!span) return -ENOMEM;
  int rc = zkv_dev_read(fs->dev, a, span, e - a);
  for (uint32_t k = 0; !rc && k < run->n; k++) {
    memcpy(out, span + (run->at[k] - a), run->len[k]);
    out += run->len[k];
  }
  free(span);
  return rc;
}

/* Reads without the file system's lock: a file's extents change under the writer's lock (appends)
 * or while readers are excluded (GC's swap), so the writer's lock and a reader's mark are enough;
 * a sealed file (no writer) needs no lock at all, and two readers of one SST write no shared cache
 * line. Aligned reads go straight into the caller's buffer; others (RocksDB's block reads) ask
 * the device for the aligned blocks and take only the bytes wanted (zkv_dev_read_part: no bounce
 * copy on the emulator). */
int64_t zfs_pread(zfs_file *h, uint64_t offset, void *buf, size_t len) {
  zfs *fs = h->fs;
  fobj *f = h->f;
  uint8_t *out = buf;
  size_t done = 0;
  uint32_t block = fs->g.lba_size;
  int64_t rc = 0;
  zkv_stripe *mark = readers_enter(fs); /* GC does not swap extents under a reader */
  int sealed = atomic_load_explicit(&f->sealed, memory_order_acquire);
  while (done < len) {
    uint64_t pos = offset + done;
    if (!sealed) pthread_mutex_lock(&f->wmu);
    uint64_t size = sealed ? f->m.size : f->m.size + f->wlen - f->wdone;
    if (pos >= size) {
      if (!sealed) pthread_mutex_unlock(&f->wmu);
      break;
    }
    size_t want = len - done < size - pos ? len - done : (size_t)(size - pos);
    if (pos >= f->m.size) { /* not written out yet: from the writer's buffer (never sealed) */
      memcpy(out + done, f->wbuf + f->wdone + (pos - f->m.size), want);
      pthread_mutex_unlock(&f->wmu);
      done += want;
      continue;
    }
    uint64_t skip = 0;
    uint32_t i = find_extent(f, pos, &skip);
    uint64_t dev_off = f->m.extents[i].start + skip, n = f->m.extents[i].len - skip;
    /* a sealed WAL read in small pieces (RocksDB's replay): from the handle's read-ahead window */
    if (sealed && is_sparse(f) && want < READ_AHEAD_PIECE) {
      uint64_t piece = n < want ? n : want;
      if (read_ahead_copy(h, i, dev_off, piece, out + done) == 0) {
        done += piece;
        continue;
      }
    }
    /* A WAL's chunks lie one after another in its zone: a read of several is one device read */
    chunk_run run = {0};
    if (is_sparse(f) && n < want) gather_chunk_run(fs, f, i, dev_off, n, want, &run);
    if (!sealed) pthread_mutex_unlock(&f->wmu);
    if (run.n > 1) {
      if ((rc = read_chunk_run(fs, &run, out + done))) break;
      done += run.bytes;
      continue;
    }
    if (n > want) n = want;
    uint64_t a = dev_off / block * block, e = round_up(dev_off + n, block);
    if (a == dev_off && e == dev_off + n && ((uintptr_t)(out + done) % block) == 0)
      rc = zkv_dev_read(fs->dev, a, out + done, n); /* aligned: no copy */
    else
      rc = zkv_dev_read_part(fs->dev, a, e - a, dev_off - a, out + done, n);
    if (rc) break;
    done += n;
  }
  readers_exit(mark);
  return rc ? rc : (int64_t)done;
}
