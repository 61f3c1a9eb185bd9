/* mkfs, mount (superblock choice, log replay, the checks a mount makes) and unmount. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zonefs_internal.h"

static void fill_uuid(uint8_t uuid[16]) {
  FILE *r = fopen("/dev/urandom", "rb");
  size_t got = r ? fread(uuid, 1, 16, r) : 0;
  if (r) fclose(r);
  for (size_t i = got; i < 16; i++) uuid[i] = (uint8_t)(now_us() >> (i % 8 * 8));
}

static zfs *alloc_fs(zkv_dev *dev) {
  zfs *fs = aligned_alloc(_Alignof(zfs), sizeof *fs); /* the readers' stripes */
  if (!fs) return NULL;
  memset(fs, 0, sizeof *fs);
  fs->dev = dev;
  zkv_dev_geometry(dev, &fs->g);
  fs->zones = calloc(fs->g.nr_zones, sizeof *fs->zones);
  if (!fs->zones) {
    free(fs);
    return NULL;
  }
  for (uint32_t z = 0; z < fs->g.nr_zones; z++) fs->zones[z].tag = -1;
  fs->wal_buffer = WRITE_BUFFER;
  fs->write_behind = zkv_dev_queues_async(dev); /* on where appends can stay in flight */
  fs->reap_idle_writer = zwal_reap_idle;
  pthread_mutex_init(&fs->ns_mu, NULL);
  pthread_mutex_init(&fs->mu, NULL);
  pthread_cond_init(&fs->zone_released, NULL);
  pthread_cond_init(&fs->callouts_done, NULL);
  pthread_rwlock_init(&fs->io_lock, NULL);
  pthread_mutex_init(&fs->gc_mu, NULL);
  pthread_mutex_init(&fs->meta_mu, NULL);
  pthread_cond_init(&fs->meta_progress, NULL);
  pthread_cond_init(&fs->gc_wake, NULL);
  pthread_cond_init(&fs->walr_wake, NULL);
  return fs;
}

static void free_fs(zfs *fs) {
  stop_wal_reserve(fs);
  stop_gc(fs);
  pthread_cond_destroy(&fs->gc_wake);
  pthread_cond_destroy(&fs->walr_wake);
  free(fs->walr_finish);
  clear_files(fs);
  zfs_index_free(&fs->by_name);
  zfs_index_free(&fs->by_id);
  free(fs->files);
  free(fs->zones);
  pthread_mutex_destroy(&fs->ns_mu);
  pthread_mutex_destroy(&fs->mu);
  pthread_cond_destroy(&fs->zone_released);
  pthread_cond_destroy(&fs->callouts_done);
  pthread_rwlock_destroy(&fs->io_lock);
  pthread_mutex_destroy(&fs->gc_mu);
  pthread_mutex_destroy(&fs->meta_mu);
  pthread_cond_destroy(&fs->meta_progress);
  free(fs);
}

static int load_zones(zfs *fs) {
  zkv_zone *rep = calloc(fs->g.nr_zones, sizeof *rep);
  if (!rep) return -ENOMEM;
  int n = zkv_dev_report(fs->dev, 0, rep, fs->g.nr_zones);
  for (int i = 0; i < n; i++) {
    fs->zones[i].start = rep[i].start;
    fs->zones[i].wp = rep[i].cond == ZKV_ZONE_FULL ? rep[i].start + fs->g.zone_cap : rep[i].wp;
  }
  free(rep);
  return n < 0 ? n : 0;
}

/* The smallest devices the file system (and the placement policy ZonedEnv installs) can use; the
 * reasons are docs/zone-fs.md's "Reserves" and "Active-zone limit". */
static int check_geometry(const zkv_geometry *g, uint32_t meta, char *err, size_t errlen) {
  if (g->lba_size > ZFS_SUPERBLOCK_SIZE)
    return fail(-EINVAL, err, errlen, "block size %u is above the %u-byte superblock", g->lba_size,
                ZFS_SUPERBLOCK_SIZE);
  if (meta < 2 || meta > ZFS_MAX_META_ZONES)
    return fail(-EINVAL, err, errlen, "%u meta zones: the metadata log needs 2 to %u (one written, one to roll to)",
                meta, ZFS_MAX_META_ZONES);
  if (g->nr_zones < meta + 3)
    return fail(-EINVAL, err, errlen,
                "%u zones are too few: the file system needs at least %u (%u meta zones plus 3 data zones: data files "
                "never take the last two empty zones, kept for RocksDB's metadata files and for GC)",
                g->nr_zones, meta + 3, meta);
  if ((g->flags & ZKV_GEO_CLASS_BOUND_ZONES) && g->meta_class_zones &&
      (g->meta_class_zones < meta + 1 || g->nr_zones - g->meta_class_zones < 3))
    return fail(-EINVAL, err, errlen,
                "the device gives WAL and metadata %u of its %u zones: the file system needs at least %u of them (%u "
                "meta zones plus one for the WAL) and 3 for the other files (a plmarray: needs a larger meta set, or "
                "more zones per set)",
                g->meta_class_zones, g->nr_zones, meta + 1, meta);
  if (g->max_active && g->max_active < 3)
    return fail(-EINVAL, err, errlen,
                "max active zones %u is too low: the file system needs no limit (0) or at least 3 (one zone for "
                "data, one for the metadata log, one for GC migration)",
                g->max_active);
  if (g->max_open && g->max_open < 4)
    return fail(-EINVAL, err, errlen,
                "max open zones %u is too low: zkv needs no limit (0) or at least 4 (the placement policy keeps "
                "two for the metadata log and GC, one for the WAL, one for other files)",
                g->max_open);
  return 0;
}

int zfs_mkfs(zkv_dev *dev, const zfs_options *opt, char *err, size_t errlen) {
  zfs *fs = alloc_fs(dev);
  if (!fs) return fail(-ENOMEM, err, errlen, "out of memory");
  uint32_t meta = opt && opt->meta_zones ? opt->meta_zones : 3;
  int rc = check_geometry(&fs->g, meta, err, errlen);
  for (uint32_t z = 0; !rc && z < fs->g.nr_zones; z++) {
    rc = zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_RESET);
    if (rc) fail(rc, err, errlen, "cannot reset zone %u: %s", z, zkv_status_message(rc));
  }
  if (!rc) rc = load_zones(fs);
  if (!rc) {
    fs->sb = (zfs_superblock){.version = ZFS_FORMAT_VERSION,
                              .sequence = 0,
                              .block_size = fs->g.lba_size,
                              .nr_zones = fs->g.nr_zones,
                              .zone_size = fs->g.zone_size,
                              .zone_cap = fs->g.zone_cap,
                              .meta_zones = meta,
                              .finish_threshold = opt ? opt->finish_threshold : 0};
    fill_uuid(fs->sb.uuid);
    fs->next_file_id = 1;
    fs->meta_zone = meta - 1; /* roll_meta moves to zone 0 */
    rc = roll_meta(fs);
    if (rc) fail(rc, err, errlen, "cannot write the superblock: %s", zkv_status_message(rc));
  }
  free_fs(fs);
  return rc;
}

/* A file record claims its names: a rename over an existing file writes the renamed file's record
 * first and the replaced file's delete after it, so a crash between the two leaves the name with
 * the record written last. A file left without names is gone (its delete was under way). */
static void claim_names(zfs *fs, const zfs_file_meta *m) {
  for (uint32_t k = 0; k < m->n_names; k++) {
    uint32_t j = 0;
    fobj *other = file_find(fs, m->names[k], &j);
    if (!other || other->m.id == m->id) continue;
    drop_name(fs, other, j);
    if (other->m.n_names == 0) {
      remove_file(fs, other);
      free_fobj(other);
    }
  }
}

static int apply_file(zfs *fs, zfs_file_meta *m) {
  claim_names(fs, m);
  fobj *old = file_find_id(fs, m->id);
  if (old) {
    unindex_names(fs, old);
    zfs_file_free(&old->m);
    old->m = *m;
    old->persisted_extents = m->n_extents;
    for (uint32_t k = 0; k < m->n_names; k++)
      if (zfs_index_put_name(&fs->by_name, m->names[k], old)) return -ENOMEM;
    return 0;
  }
  fobj *f = new_fobj();
  if (!f) return -ENOMEM;
  f->sealed = 1; /* no writer yet: readers need no lock */
  f->m = *m;
  f->persisted_extents = m->n_extents;
  f->zone = -1;
  if (m->id >= fs->next_file_id) fs->next_file_id = m->id + 1;
  int rc = add_file(fs, f);
  if (rc) free_fobj(f);
  return rc;
}

/* Applies a sync's record. A file the log no longer has was dropped by a later claim of its name
 * (see claim_names): nothing to apply. */
static int apply_extend(zfs *fs, const zfs_file_extend *x, char *err, size_t errlen) {
  fobj *f = file_find_id(fs, x->id);
  if (!f) return 0;
  if (x->first > f->m.n_extents)
    return fail(-EUCLEAN, err, errlen, "extend record of file %llu starts at extent %u of %u",
                (unsigned long long)x->id, x->first, f->m.n_extents);
  uint32_t n = x->first + x->n_extents;
  zfs_extent *e = n ? realloc(f->m.extents, n * sizeof *e) : f->m.extents;
  if (n && !e) return -ENOMEM;
  if (x->n_extents) memcpy(e + x->first, x->extents, x->n_extents * sizeof *e);
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += e[i].len;
  f->m.extents = e;
  f->m.n_extents = n;
  if (x->size > total)
    return fail(-EUCLEAN, err, errlen, "extend record gives file %llu %llu bytes, its extents hold %llu",
                (unsigned long long)x->id, (unsigned long long)x->size, (unsigned long long)total);
  f->m.size = x->size;
  f->m.mtime = x->mtime;
  f->m.lifetime = x->lifetime;
  f->persisted_extents = n;
  return 0;
}

/* Decides what a record that does not decode at `off` of a log (read up to the zone's write
 * pointer, `len` bytes) means. Returns NULL when it is the end of the log: unwritten space (zeros)
 * or a torn last write, i.e. the one write in flight at a crash, which the device persisted only
 * as a prefix of its blocks. Returns the reason otherwise: the record is damage, and data that was
 * acknowledged would silently vanish if the log were cut there.
 * - A valid record with a higher sequence after it: the log went on past it.
 * - A record that lies wholly below the write pointer with every block written (no zero suffix):
 *   the device completed that write, so it cannot be torn. A torn write either ends beyond the
 *   write pointer (the pointer fell back over the lost blocks) or, in a zone that reached Full,
 *   reads zeros from the first lost block on.
 * Residual ambiguity: damage to the length field of the very last record of a crashed log, making
 * it reach past the write pointer, looks like a torn write. */
static const char *log_tail_problem(const zfs *fs, const uint8_t *log, size_t len, size_t off, uint64_t last_seq,
                                    int zero_header) {
  uint32_t block = fs->g.lba_size;
  for (size_t o = off + block; o < len; o += block) {
    zfs_record later;
    if (zfs_record_decode(log + o, len - o, block, &later, NULL, 0) > 0 && later.seq > last_seq)
      return "valid records follow it";
  }
  if (zero_header) return NULL; /* unwritten space */
  if (len - off < ZFS_RECORD_HEADER || memcmp(log + off, "ZKVR", 4) != 0)
    return "its first block is neither a record nor unwritten, below the write pointer";
  size_t span = zfs_record_size(get32(log + off + 8), block);
  if (span > len - off) return NULL; /* reaches past the write pointer: the write in flight */
  for (size_t b = block; b < span; b += block)
    if (zfs_all_zero(log + off + b, span - b)) return NULL; /* a persisted prefix, zeros after it */
  return "the record lies wholly written below the write pointer, so it is not a torn last write";
}

/* Replays one meta zone's log; returns 0, ZFS_EMPTY (no snapshot: try an older zone) or an error. */
static int replay(zfs *fs, const uint8_t *log, size_t len, uint64_t base, char *err, size_t errlen) {
  size_t off = 0;
  int have_snapshot = 0;
  uint64_t last_seq = 0;
  char msg[256];
  while (off < len) {
    zfs_record r;
    int64_t n = zfs_record_decode(log + off, len - off, fs->g.lba_size, &r, msg, sizeof msg);
    if (n == ZFS_UNSUPPORTED)
      return fail(-EPROTO, err, errlen, "metadata log at %llu: %s", (unsigned long long)(base + off), msg);
    if (n < 0) { /* the end of the log, a torn last write, or damage: see log_tail_problem */
      const char *why = log_tail_problem(fs, log, len, off, last_seq, n == ZFS_EMPTY);
      if (why)
        return fail(-EUCLEAN, err, errlen, "metadata log damaged at device offset %llu (%s): %s",
                    (unsigned long long)(base + off), msg, why);
      if (n != ZFS_EMPTY)
        snprintf(fs->log_tail, sizeof fs->log_tail, "torn record at device offset %llu (%.180s)",
                 (unsigned long long)(base + off), msg);
      break;
    }
    /* Sequence numbers only grow within a log: an older one is data of the zone's previous life
     * below the write pointer (a write that was under way when the process died), i.e. the end. */
    if (r.seq <= last_seq) break;
    last_seq = r.seq;
    if (r.seq > fs->meta_seq) fs->meta_seq = r.seq;
    if (r.type == ZFS_REC_SNAPSHOT) {
      uint64_t next;
      uint32_t count;
      if (zfs_snapshot_header_decode(r.payload, r.len, &next, &count) < 0)
        return fail(-EUCLEAN, err, errlen, "snapshot header truncated");
      clear_files(fs);
      fs->next_file_id = next;
      size_t p = 12;
      for (uint32_t i = 0; i < count; i++) {
        zfs_file_meta m;
        int64_t used = zfs_file_decode(r.payload + p, r.len - p, &m, msg, sizeof msg);
        if (used < 0) return fail(-EUCLEAN, err, errlen, "snapshot file %u: %s", i, msg);
        if (apply_file(fs, &m)) return -ENOMEM;
        p += (size_t)used;
      }
      have_snapshot = 1;
    } else if (!have_snapshot) {
      return ZFS_EMPTY;
    } else if (r.type == ZFS_REC_FILE_UPDATE) {
      zfs_file_meta m;
      if (zfs_file_decode(r.payload, r.len, &m, msg, sizeof msg) < 0)
        return fail(-EUCLEAN, err, errlen, "file record at %llu: %s", (unsigned long long)(base + off), msg);
      if (apply_file(fs, &m)) return -ENOMEM;
    } else if (r.type == ZFS_REC_FILE_EXTEND) {
      zfs_file_extend x;
      if (zfs_extend_decode(r.payload, r.len, &x, msg, sizeof msg) < 0)
        return fail(-EUCLEAN, err, errlen, "sync record at %llu: %s", (unsigned long long)(base + off), msg);
      int rc = apply_extend(fs, &x, err, errlen);
      free(x.extents);
      if (rc) return rc;
    } else if (r.type == ZFS_REC_FILE_ACTIVE) {
      zfs_file_extend x;
      uint64_t active;
      if (zfs_active_decode(r.payload, r.len, &active, &x, msg, sizeof msg) < 0)
        return fail(-EUCLEAN, err, errlen, "active record at %llu: %s", (unsigned long long)(base + off), msg);
      int rc = apply_extend(fs, &x, err, errlen);
      free(x.extents);
      if (rc) return rc;
      fobj *f = file_find_id(fs, x.id);
      if (f) f->m.active_extent_start = active;
    } else if (r.type == ZFS_REC_FILE_DELETE) {
      uint64_t id;
      if (r.len != 8) return fail(-EUCLEAN, err, errlen, "delete record of %u bytes", r.len);
      memcpy(&id, r.payload, 8);
      fobj *f = file_find_id(fs, id);
      if (f) {
        remove_file(fs, f);
        free_fobj(f);
      }
    } else if (r.type == ZFS_REC_ZONE_LABELS) {
      uint32_t n = r.len >= 4 ? get32(r.payload) : UINT32_MAX;
      if (n == UINT32_MAX || r.len != 4 + 12 * (uint64_t)n)
        return fail(-EUCLEAN, err, errlen, "zone label record of %u bytes", r.len);
      for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = r.payload + 4 + 12 * i;
        uint32_t z = get32(e);
        int32_t tag = (int32_t)get32(e + 4);
        if (z >= fs->g.nr_zones || tag < -1)
          return fail(-EUCLEAN, err, errlen, "zone label record names zone %u tag %d", z, tag);
        fs->zones[z].tag = tag;
        fs->zones[z].lifetime = get32(e + 8);
        fs->zones[z].labelled = 1;
      }
    } else if (r.type == ZFS_REC_ZONE_LEASES || r.type == ZFS_REC_ZONE_LEASE_KEYS) {
      /* a version 7 record carries no key: its leases read as keyless (docs/formats/zkv-wal.md) */
      uint32_t entry = r.type == ZFS_REC_ZONE_LEASES ? 16 : ZFS_LEASE_ENTRY;
      uint32_t n = r.len >= 4 ? get32(r.payload) : UINT32_MAX;
      if (n == UINT32_MAX || r.len != 4 + entry * (uint64_t)n)
        return fail(-EUCLEAN, err, errlen, "zone lease record of %u bytes", r.len);
      for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = r.payload + 4 + entry * i;
        uint32_t z = get32(e);
        if (z < fs->sb.meta_zones || z >= fs->g.nr_zones)
          return fail(-EUCLEAN, err, errlen, "zone lease record names zone %u", z);
        uint64_t owner = get64(e + 8);
        atomic_store(&fs->zones[z].lease_owner, owner);
        fs->zones[z].lease_key[0] = owner && entry == ZFS_LEASE_ENTRY ? get64(e + 16) : 0;
        fs->zones[z].lease_key[1] = owner && entry == ZFS_LEASE_ENTRY ? get64(e + 24) : 0;
      }
    } else if (r.type == ZFS_REC_POLICY_COUNTS) {
      /* 24 bytes in a version 4 log (no overrides by reason), ZFS_POLICY_COUNTS_V5_LEN in a
       * version 5 one (no GC counters), ZFS_POLICY_COUNTS_LEN since */
      if (r.len != 24 && r.len != ZFS_POLICY_COUNTS_V5_LEN && r.len != ZFS_POLICY_COUNTS_LEN)
        return fail(-EUCLEAN, err, errlen, "policy counts record of %u bytes", r.len);
      for (int i = 0; i < 3; i++) fs->policy_base[i] = get64(r.payload + 8 * i);
      for (int i = 0; i < ZFS_OVERRIDES; i++) fs->override_base[i] = r.len == 24 ? 0 : get64(r.payload + 24 + 8 * i);
      for (int i = 0; i < 6; i++)
        fs->gc_base[i] = r.len == ZFS_POLICY_COUNTS_LEN ? get64(r.payload + ZFS_POLICY_COUNTS_V5_LEN + 8 * i) : 0;
    } else if (r.type == ZFS_REC_END) {
      break;
    }
    off += (size_t)n;
  }
  return have_snapshot ? 0 : ZFS_EMPTY;
}

/* A sparse file's chunks after its last record (docs/formats/zone-fs.md, "Recovering a WAL's
 * chunks"): every chunk from the file's active extent start to the zone's write pointer is read,
 * in whatever physical order it reached the device (zone appends complete out of order), then
 * placed by its logical offset; the file keeps the contiguous run that continues what the log
 * has, and nothing after the first gap (a write in flight at the crash, never acknowledged: a sync
 * waits for every append before it). A chunk whose data fails its checksum (torn) is a gap, but
 * its valid header says where the next one starts; an undecodable header, another file's chunk
 * (a zone taken from this writer) or one cut by the write pointer ends the scan. Chunks the log
 * already knows (a record written after some of them) and duplicates are skipped by offset; one
 * that overlaps what the file has differently ends the file there. */
typedef struct found_chunk {
  uint64_t offset, at; /* logical offset; device offset of its data */
  uint32_t len;
  uint8_t torn;
} found_chunk;

static int by_offset(const void *a, const void *b) {
  const found_chunk *x = a, *y = b;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return x->torn != y->torn ? (x->torn ? 1 : -1) : 0; /* a whole copy before a torn one */
}

/* The scan reads ahead: a WAL of 4 KiB chunks is one chunk per block, and a device read per chunk
 * made a mount's scan of a large WAL cost a read latency per 4 KiB. */
#define SCAN_READ_AHEAD (1u << 20)

typedef struct scan_window {
  uint8_t *buf;
  size_t cap;
  uint64_t from, to; /* device bytes [from, to) are in buf */
} scan_window;

/* Device bytes [pos, pos + len) from the window, read (ahead, up to the write pointer) if needed. */
static const uint8_t *scan_bytes(zfs *fs, scan_window *w, uint64_t pos, uint64_t len, uint64_t wp, int *rc) {
  if (pos >= w->from && pos + len <= w->to) return w->buf + (pos - w->from);
  uint64_t span = len > SCAN_READ_AHEAD ? len : SCAN_READ_AHEAD;
  if (span > wp - pos) span = wp - pos;
  if (span > w->cap) {
    uint8_t *grown = realloc(w->buf, span);
    if (!grown) {
      *rc = -ENOMEM;
      return NULL;
    }
    w->buf = grown, w->cap = span;
  }
  if ((*rc = zkv_dev_read(fs->dev, pos, w->buf, span))) return NULL;
  fs->st.mount_chunk_reads++;
  w->from = pos, w->to = pos + span;
  return w->buf;
}

static int scan_chunks(zfs *fs, fobj *f, uint64_t pos, found_chunk **out, size_t *n_out) {
  uint32_t block = fs->g.lba_size;
  uint64_t wp = fs->zones[zone_of(fs, pos)].wp;
  size_t n = 0, cap_found = 0;
  scan_window w = {0};
  found_chunk *found = NULL;
  int rc = 0;
  while (!rc && pos + block <= wp) {
    const uint8_t *p = scan_bytes(fs, &w, pos, block, wp, &rc); /* the header's block */
    if (!p) break;
    zfs_chunk c;
    if (zfs_chunk_decode(p, block, &c) || c.file_id != f->m.id) break;
    uint64_t phys = round_up(ZFS_CHUNK_HEADER + (uint64_t)c.len, block);
    if (pos + phys > wp) break; /* cut by the write pointer */
    if (!(p = scan_bytes(fs, &w, pos, phys, wp, &rc))) break;
    if (n == cap_found) {
      size_t grown_cap = cap_found ? 2 * cap_found : 64;
      found_chunk *grown = realloc(found, grown_cap * sizeof *grown);
      if (!grown) {
        rc = -ENOMEM;
        break;
      }
      found = grown, cap_found = grown_cap;
    }
    int torn = zfs_chunk_data_crc(p + ZFS_CHUNK_HEADER, c.len) != c.data_crc;
    found[n++] = (found_chunk){c.offset, pos + ZFS_CHUNK_HEADER, c.len, (uint8_t)torn};
    pos += phys;
  }
  free(w.buf);
  fs->st.mount_chunks += n;
  *out = found;
  *n_out = n;
  return rc;
}

static int recover_chunks(zfs *fs, fobj *f) {
  uint64_t pos = f->m.active_extent_start;
  f->m.active_extent_start = ZFS_NO_ACTIVE_EXTENT;
  uint32_t z = zone_of(fs, pos);
  if (z < fs->sb.meta_zones || z >= fs->g.nr_zones || pos % fs->g.lba_size) return -EUCLEAN;
  found_chunk *found = NULL;
  size_t n = 0;
  int rc = scan_chunks(fs, f, pos, &found, &n);
  if (!rc && n > 1) qsort(found, n, sizeof *found, by_offset);
  for (size_t i = 0; !rc && i < n; i++) {
    const found_chunk *c = &found[i];
    if (c->offset + c->len <= f->m.size) continue; /* known to the log, or a duplicate */
    if (c->offset != f->m.size || c->torn) break;  /* a gap, an overlap, or torn: the file ends */
    zfs_extent *e = realloc(f->m.extents, (f->m.n_extents + 1) * sizeof *e);
    if (!e) {
      rc = -ENOMEM;
      break;
    }
    f->m.extents = e;
    f->m.extents[f->m.n_extents++] = (zfs_extent){c->at, c->len};
    f->m.size += c->len;
    fs->st.mount_chunk_bytes += c->len;
  }
  free(found);
  return rc;
}

zfs *zfs_mount(zkv_dev *dev, int *rc, char *err, size_t errlen) { return zfs_mount_flags(dev, 0, rc, err, errlen); }

/* The superblocks found in the meta zones (the meta zone count is read from the first valid one). */
typedef struct {
  zfs_superblock sb[8];
  uint32_t zone[8], n;
  uint64_t max_seq;
} sb_candidates;

/* Reads the candidate superblocks and notes each meta zone's state; 0 or -errno with `err` set. */
static int find_superblocks(zfs *fs, sb_candidates *c, char *err, size_t errlen) {
  char msg[256] = "";
  uint32_t meta = 8, corrupt = 0;
  uint8_t sbuf[ZFS_SUPERBLOCK_SIZE];
  memset(c, 0, sizeof *c);
  for (uint32_t z = 0; z < meta && z < fs->g.nr_zones && c->n < 8; z++) {
    if (fs->zones[z].wp < fs->zones[z].start + ZFS_SUPERBLOCK_SIZE) continue;
    int rc = zkv_dev_read(fs->dev, fs->zones[z].start, sbuf, sizeof sbuf);
    if (rc) return rc;
    zfs_superblock *sb = &c->sb[c->n];
    int d = zfs_superblock_decode(sbuf, sizeof sbuf, sb, msg, sizeof msg);
    if (z < ZFS_MAX_META_ZONES) {
      zfs_meta_status *ms = &fs->meta_status[z];
      ms->state = d >= 0 ? ZFS_META_VALID : ZFS_META_CORRUPT;
      ms->sequence = d >= 0 ? sb->sequence : 0;
      snprintf(ms->message, sizeof ms->message, "%s", d >= 0 ? "" : msg);
    }
    if (d == ZFS_UNSUPPORTED) return fail(-EPROTO, err, errlen, "zone %u: %s", z, msg);
    if (d < 0) {
      corrupt++;
      continue;
    }
    if (meta == 8) meta = sb->meta_zones;
    if (sb->sequence > c->max_seq) c->max_seq = sb->sequence;
    c->zone[c->n++] = z;
  }
  if (c->n == 0)
    return corrupt ? fail(-EUCLEAN, err, errlen, "no valid superblock: %s", msg)
                   : fail(-ENODATA, err, errlen, "no zkv file system on this device (run mkfs)");
  for (uint32_t i = 0; i < c->n; i++)
    if (c->sb[i].nr_zones != fs->g.nr_zones || c->sb[i].zone_size != fs->g.zone_size ||
        c->sb[i].zone_cap != fs->g.zone_cap || c->sb[i].block_size != fs->g.lba_size)
      return fail(-EINVAL, err, errlen,
                  "file system geometry (%u zones of %llu) differs from the device's (%u of %llu)", c->sb[i].nr_zones,
                  (unsigned long long)c->sb[i].zone_size, fs->g.nr_zones, (unsigned long long)fs->g.zone_size);
  return 0;
}

/* Replays the newest metadata log; falls back to an older one only if the newest has no snapshot
 * (crash in a roll). 0 or -errno with `err` set. */
static int replay_newest_log(zfs *fs, sb_candidates *c, char *err, size_t errlen) {
  int rc = ZFS_EMPTY;
  for (uint32_t tries = 0; tries < c->n && rc == ZFS_EMPTY; tries++) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < c->n; i++)
      if (c->sb[i].sequence > c->sb[best].sequence) best = i;
    uint32_t z = c->zone[best];
    uint64_t from = fs->zones[z].start + ZFS_SUPERBLOCK_SIZE, len = fs->zones[z].wp - from;
    uint8_t *log = len ? malloc(len) : NULL;
    if (len && !log) return -ENOMEM;
    rc = len ? zkv_dev_read(fs->dev, from, log, len) : 0;
    if (rc == 0) {
      fs->sb = c->sb[best];
      fs->meta_zone = z;
      fs->meta_done = fs->meta_wp = fs->zones[z].wp; /* single-threaded here: no meta_mu */
      rc = replay(fs, log, len, from, err, errlen);
    }
    free(log);
    c->sb[best].sequence = 0, c->sb[best].nr_zones = 0; /* tried */
    if (rc == ZFS_EMPTY) clear_files(fs);
  }
  return rc == ZFS_EMPTY ? fail(-EUCLEAN, err, errlen, "no metadata log holds a snapshot") : rc;
}

/* Recovers the chunks sparse files (WALs) appended after their last record, timing the scan. */
static int recover_sparse_chunks(zfs *fs, char *err, size_t errlen) {
  struct timespec scan_start, scan_end;
  clock_gettime(CLOCK_MONOTONIC, &scan_start);
  for (size_t i = 0; i < fs->n_files; i++) {
    fobj *f = fs->files[i];
    if (!is_sparse(f) || f->m.active_extent_start == ZFS_NO_ACTIVE_EXTENT) continue;
    int rc = recover_chunks(fs, f);
    if (rc)
      return fail(rc, err, errlen, "cannot recover the chunks of '%s' after its last record: %s", f->m.names[0],
                  zkv_status_message(rc));
  }
  clock_gettime(CLOCK_MONOTONIC, &scan_end);
  fs->st.mount_chunk_scan_ns =
      (uint64_t)((scan_end.tv_sec - scan_start.tv_sec) * 1000000000LL + (scan_end.tv_nsec - scan_start.tv_nsec));
  return 0;
}

/* Counts every file extent into its zone (live bytes, blocks, the file's zones, the lifetime);
 * marks in `not_wal` the zones holding data of files other than WALs. */
static int account_extents(zfs *fs, uint8_t *not_wal, char *err, size_t errlen) {
  for (size_t i = 0; i < fs->n_files; i++) {
    zfs_file_meta *m = &fs->files[i]->m;
    for (uint32_t k = 0; k < m->n_extents; k++) {
      uint32_t z = zone_of(fs, m->extents[k].start);
      if (z < fs->sb.meta_zones || z >= fs->g.nr_zones || m->extents[k].start + m->extents[k].len > fs->zones[z].wp)
        return fail(-EUCLEAN, err, errlen, "file '%s' has an extent at %llu beyond its zone's written data",
                    m->names[0], (unsigned long long)m->extents[k].start);
      if (!is_sparse(fs->files[i])) not_wal[z] = 1;
      fs->zones[z].live += m->extents[k].len;
      fs->zones[z].live_phys += extent_blocks(fs, m->extents[k]);
      file_zone_add(fs->files[i], z, (int64_t)m->extents[k].len);
      if (!fs->zones[z].labelled && m->lifetime > fs->zones[z].lifetime) fs->zones[z].lifetime = m->lifetime;
    }
  }
  return 0;
}

/* Each zone's labels from what it holds: none when empty; otherwise its I/O class. */
static void label_zones(zfs *fs, const uint8_t *not_wal) {
  for (uint32_t z = 0; z < fs->g.nr_zones; z++)
    if (fs->zones[z].live == 0) { /* reset since, or reset below */
      fs->zones[z].tag = -1;
      fs->zones[z].labelled = 0;
      fs->zones[z].lifetime = 0;
      fs->zones[z].io_class = ZKV_CLASS_NONE;
    } else {
      /* A zone's class is the device's binding: a WAL that outgrew its share wrote into the other
       * classes' zones as those classes (take_zone_class), and GC copies a victim's data as the
       * class its target zone took. Where the device binds none, a zone holding only WALs' data is
       * a WAL zone (kept apart in ZWAL mode), any other NONE (any file may continue it). */
      fs->zones[z].io_class = (uint8_t)zkv_dev_zone_class(fs->dev, z);
      if (fs->zones[z].io_class == ZKV_CLASS_NONE && z >= fs->sb.meta_zones && !not_wal[z])
        fs->zones[z].io_class = ZKV_CLASS_WAL;
    }
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (atomic_load(&fs->zones[z].lease_owner)) fs->zones[z].io_class = ZKV_CLASS_WAL; /* its owner's log */
}

/* The zones' live data and labels from the files' extents; 0 or -errno with `err` set. */
static int build_zone_state(zfs *fs, char *err, size_t errlen) {
  for (uint32_t z = 0; z < fs->sb.meta_zones; z++) fs->zones[z].meta = 1;
  uint8_t *not_wal = calloc(fs->g.nr_zones, 1);
  if (!not_wal) return fail(-ENOMEM, err, errlen, "out of memory");
  int rc = account_extents(fs, not_wal, err, errlen);
  if (rc == 0) label_zones(fs, not_wal);
  free(not_wal);
  if (rc == 0)
    for (size_t i = 0; i < fs->n_files; i++) index_extents(fs->files[i]);
  return rc;
}

/* Data written but never synced has no file: its zones are reset (leased zones are their owners'). */
static int reset_unowned_zones(zfs *fs) {
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (fs->zones[z].live == 0 && fs->zones[z].wp > fs->zones[z].start && !atomic_load(&fs->zones[z].lease_owner)) {
      int rc = zkv_dev_zone_mgmt(fs->dev, z, ZKV_ZONE_RESET);
      if (rc) return rc;
      fs->zones[z].wp = fs->zones[z].start;
      fs->st.resets++;
      fs->st.resets_without_copy++;
    }
  return 0;
}

/* What a writable mount changes on the device: unowned zones reset, a fresh metadata log. */
static int prepare_for_writes(zfs *fs, char *err, size_t errlen) {
  int rc = reset_unowned_zones(fs);
  if (rc) return rc;
  /* Two zones of the active limit stay free: one for the metadata log, one for GC migration. */
  fs->active_limit = fs->g.max_active ? (fs->g.max_active > 3 ? fs->g.max_active - 2 : 1) : 0;
  /* Start a fresh log, so a torn tail is never followed by new records; it is written in the
   * current format (a version 1 log is a valid version 2 log). */
  fs->sb.version = ZFS_FORMAT_VERSION;
  if ((rc = roll_meta(fs))) fail(rc, err, errlen, "cannot roll the metadata log: %s", zkv_status_message(rc));
  return rc;
}

zfs *zfs_mount_flags(zkv_dev *dev, int flags, int *rc, char *err, size_t errlen) {
  zfs *fs = alloc_fs(dev);
  if (!fs) {
    *rc = fail(-ENOMEM, err, errlen, "out of memory");
    return NULL;
  }
  sb_candidates cands;
  if ((*rc = load_zones(fs))) {
    fail(*rc, err, errlen, "zone report failed: %s", zkv_status_message(*rc));
    goto fail;
  }
  if ((*rc = find_superblocks(fs, &cands, err, errlen))) goto fail;
  if ((*rc = replay_newest_log(fs, &cands, err, errlen))) goto fail;
  /* The chunks recovered below may sit in the device's volatile write cache still (the process
   * died, the power did not): the roll's snapshot, which lists them, must flush first (rule 1 of
   * "Order of writes"). */
  fs->data_gen++;
  if ((*rc = recover_sparse_chunks(fs, err, errlen))) goto fail;
  fs->sb.sequence = cands.max_seq; /* the roll below must outrank every superblock on the device */
  if ((*rc = build_zone_state(fs, err, errlen))) goto fail;
  fs->readonly = flags & ZFS_MOUNT_READONLY;
  if (fs->readonly) return fs; /* inspection: change nothing on the device */
  if ((*rc = prepare_for_writes(fs, err, errlen))) goto fail;
  return fs; /* background GC starts with zfs_start_gc, once the policies are installed */
fail:
  free_fs(fs);
  return NULL;
}

/* Closes the log with an end record: a log that ends cleanly cannot have a torn tail, so any
 * record that fails before it is damage (log_tail_problem). A failure here (a dead device) only
 * means the next mount treats the log as a crashed one. */
void zfs_unmount(zfs *fs) {
  if (!fs) return;
  stop_wal_reserve(fs); /* finishes the zones WALs left first */
  stop_gc(fs);
  if (!fs->readonly) {
    pthread_mutex_lock(&fs->mu);
    if (persist_policy_counts(fs) == 0) append_record(fs, ZFS_REC_END, NULL, 0);
    pthread_mutex_unlock(&fs->mu);
  }
  free_fs(fs);
}
