/* The metadata log: records reserved at the current meta zone's end, the roll to a fresh zone with
 * a snapshot, and what each namespace change or sync persists (format: docs/formats/zone-fs.md).
 * The records' writes are meta_write.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

static uint8_t *encode_snapshot(zfs *fs, size_t *len) {
  size_t n = 12;
  uint32_t count = 0;
  for (size_t i = 0; i < fs->n_files; i++)
    if (in_namespace(fs->files[i])) n += zfs_file_encoded_size(&fs->files[i]->m), count++;
  uint8_t *p = malloc(n);
  if (!p) return NULL;
  memcpy(p, &fs->next_file_id, 8);
  memcpy(p + 8, &count, 4);
  size_t off = 12;
  for (size_t i = 0; i < fs->n_files; i++)
    if (in_namespace(fs->files[i])) off += (size_t)zfs_file_encode(&fs->files[i]->m, p + off, n - off);
  *len = n;
  return p;
}

/* Reserves a record at the log's end (rolling to a fresh meta zone first when it does not fit)
 * and encodes it into out->buf; write_reserved writes it. `f`: the file the record describes
 * (its data is made durable first), NULL for none, or for a snapshot (every file's). raw: the
 * roll's own records (no room check). Called with fs->mu held. */
static int reserve_record(zfs *fs, uint16_t type, const uint8_t *payload, size_t len, const fobj *f, int raw,
                          meta_pending *out) {
  out->buf = NULL;
  size_t size = zfs_record_size((uint32_t)len, fs->g.lba_size);
  int rc = 0;
  /* A roll waits until every reserved record is written: this thread's own deferred ones first. */
  if (!raw && fs->meta_wp + size > zone_end(fs, fs->meta_zone) &&
      ((rc = write_deferred_records_now(fs)) || (rc = roll_meta(fs))))
    return rc;
  if ((rc = log_failed(fs))) return rc;
  uint64_t durable_gen = 0;
  if (type == ZFS_REC_FILE_UPDATE || type == ZFS_REC_FILE_EXTEND || type == ZFS_REC_FILE_ACTIVE)
    durable_gen = f ? f->written_gen : 0;
  else if (type == ZFS_REC_SNAPSHOT)
    durable_gen = atomic_load(&fs->data_gen);
  uint8_t *rec = malloc(size);
  if (!rec) return -ENOMEM;
  zfs_record_encode(type, ++fs->meta_seq, payload, (uint32_t)len, fs->g.lba_size, rec, size);
  *out = (meta_pending){fs->meta_wp, rec, size, durable_gen};
  fs->meta_wp += size;
  fs->st.meta_bytes += size;
  return 0;
}

/* A record reserved now (mu held) and written when the thread's scope releases mu (after_unlock.c),
 * or at once outside a scope and for the roll's own records (raw). */
static int append_record_for(zfs *fs, uint16_t type, const uint8_t *payload, size_t len, const fobj *f, int raw) {
  meta_pending p;
  int rc = reserve_record(fs, type, payload, len, f, raw, &p);
  return rc ? rc : raw ? write_reserved(fs, &p) : defer_record(fs, &p);
}

static int append_record_raw(zfs *fs, uint16_t type, const uint8_t *payload, size_t len) {
  return append_record_for(fs, type, payload, len, NULL, 1);
}

int append_record(zfs *fs, uint16_t type, const uint8_t *payload, size_t len);

/* A ZONE_LABELS payload: zone `only`'s labels, or (UINT32_MAX) every labelled zone's; NULL with
 * *len 0 when there is none, NULL with *len 1 when out of memory. */
static uint8_t *encode_zone_labels(const zfs *fs, uint32_t only, size_t *len) {
  uint32_t n = 0;
  for (uint32_t z = 0; z < fs->g.nr_zones; z++) n += fs->zones[z].labelled && (only == UINT32_MAX || z == only);
  *len = n ? 4 + 12 * (size_t)n : 0;
  uint8_t *p = n ? malloc(*len) : NULL;
  if (!p) {
    *len = n ? 1 : 0;
    return NULL;
  }
  put32(p, n);
  size_t at = 4;
  for (uint32_t z = 0; z < fs->g.nr_zones; z++)
    if (fs->zones[z].labelled && (only == UINT32_MAX || z == only)) {
      put32(p + at, z);
      put32(p + at + 4, (uint32_t)fs->zones[z].tag);
      put32(p + at + 8, fs->zones[z].lifetime);
      at += 12;
    }
  return p;
}

/* Writes the labels of `only` (or all zones) as one record; raw: the roll calls it after its
 * snapshot, everyone else through persist_zone_labels. */
static int append_zone_labels(zfs *fs, uint32_t only, int raw) {
  size_t len;
  uint8_t *p = encode_zone_labels(fs, only, &len);
  if (!p) return len ? -ENOMEM : 0;
  int rc = raw ? append_record_raw(fs, ZFS_REC_ZONE_LABELS, p, len) : append_record(fs, ZFS_REC_ZONE_LABELS, p, len);
  free(p);
  return rc;
}

int persist_zone_labels(zfs *fs, uint32_t zone) { return append_zone_labels(fs, zone, 0); }

/* A ZONE_LEASE_KEYS record of the zones listed, with their owners and keys now (owner 0: returned);
 * raw: the roll's, written at once. */
static int append_leases(zfs *fs, const uint32_t *zones, uint32_t n, int raw) {
  size_t len = 4 + ZFS_LEASE_ENTRY * (size_t)n;
  uint8_t *p = malloc(len);
  if (!p) return -ENOMEM;
  put32(p, n);
  for (uint32_t i = 0; i < n; i++) {
    uint8_t *e = p + 4 + ZFS_LEASE_ENTRY * i;
    const zone_state *z = &fs->zones[zones[i]];
    put32(e, zones[i]);
    put32(e + 4, 0);
    put64(e + 8, atomic_load(&z->lease_owner));
    put64(e + 16, z->lease_key[0]);
    put64(e + 24, z->lease_key[1]);
  }
  int rc =
      raw ? append_record_raw(fs, ZFS_REC_ZONE_LEASE_KEYS, p, len) : append_record(fs, ZFS_REC_ZONE_LEASE_KEYS, p, len);
  free(p);
  return rc;
}

int persist_leases_of(zfs *fs, const uint32_t *zones, uint32_t n) { return append_leases(fs, zones, n, 0); }

/* Every leased zone's lease in one record (the roll's); none if none. */
static int persist_all_leases(zfs *fs) {
  uint32_t *zones = malloc(fs->g.nr_zones * sizeof *zones), n = 0;
  if (!zones) return -ENOMEM;
  for (uint32_t z = 0; z < fs->g.nr_zones; z++)
    if (atomic_load(&fs->zones[z].lease_owner)) zones[n++] = z;
  int rc = n ? append_leases(fs, zones, n, 1) : 0;
  free(zones);
  return rc;
}

void gc_counts_since_format(const zfs *fs, uint64_t out[6]) {
  const uint64_t mine[6] = {
      fs->st.gc_runs,      fs->st.gc_zones, fs->st.gc_bytes, fs->st.resets, fs->st.resets_without_copy,
      fs->st.zone_finishes};
  for (int i = 0; i < 6; i++) out[i] = fs->gc_base[i] + mine[i];
}

/* The placement counters since format (earlier mounts' plus this one's), then the overrides by
 * reason likewise, then GC's (gc_counts_since_format). */
static int append_policy_counts(zfs *fs, int raw) {
  uint8_t p[ZFS_POLICY_COUNTS_LEN];
  put64(p, fs->policy_base[0] + fs->st.policy_decisions);
  put64(p + 8, fs->policy_base[1] + fs->st.fallback_allocations);
  put64(p + 16, fs->policy_base[2] + fs->st.zone_steals);
  for (int i = 0; i < ZFS_OVERRIDES; i++) put64(p + 24 + 8 * i, fs->override_base[i] + fs->st.overrides[i]);
  uint64_t gc[6];
  gc_counts_since_format(fs, gc);
  for (int i = 0; i < 6; i++) put64(p + ZFS_POLICY_COUNTS_V5_LEN + 8 * i, gc[i]);
  return raw ? append_record_raw(fs, ZFS_REC_POLICY_COUNTS, p, sizeof p)
             : append_record(fs, ZFS_REC_POLICY_COUNTS, p, sizeof p);
}

int persist_policy_counts(zfs *fs) { return append_policy_counts(fs, 0); }

static int roll_steps(zfs *fs);

/* Starts a fresh meta zone: superblock with the next sequence, then the complete snapshot. The
 * old zone is reset only once the new one is durable, so a crash leaves one valid log. A roll that
 * stops half way (a device error, a snapshot that no longer fits) fails the log: records written
 * after a superblock without its snapshot would be lost at the next mount, which falls back to
 * the old zone. */
int roll_meta(zfs *fs) {
  int rc = wait_log_written(fs); /* every reserved record is in the old zone first */
  if (!rc && (rc = roll_steps(fs))) log_fail(fs, rc);
  return rc;
}

static int roll_steps(zfs *fs) {
  int rc;
  uint32_t old = fs->meta_zone, next = (old + 1) % fs->sb.meta_zones;
  /* The old log is finished first (its data stays readable; a FULL zone is not active), so a roll
   * needs one active zone, not two: after a crash the data zones left open may take every other
   * active zone, and the mount's roll must still go through. */
  if (old != next && fs->meta_wp > fs->zones[old].start && fs->meta_wp < zone_end(fs, old)) {
    if ((rc = zkv_dev_zone_mgmt(fs->dev, old, ZKV_ZONE_FINISH))) return rc;
    fs->st.zone_finishes++;
    pthread_mutex_lock(&fs->meta_mu);
    fs->meta_done = fs->meta_wp = zone_end(fs, old);
    pthread_mutex_unlock(&fs->meta_mu);
  }
  rc = zkv_dev_zone_mgmt(fs->dev, next, ZKV_ZONE_RESET);
  if (rc) return rc;
  fs->meta_zone = next;
  fs->meta_wp = fs->zones[next].start;
  pthread_mutex_lock(&fs->meta_mu);
  fs->meta_done = fs->meta_wp;
  pthread_mutex_unlock(&fs->meta_mu);
  fs->sb.sequence++;
  uint8_t sbuf[ZFS_SUPERBLOCK_SIZE];
  zfs_superblock_encode(&fs->sb, sbuf, sizeof sbuf);
  if ((rc = write_meta(fs, sbuf, sizeof sbuf))) return rc;
  size_t len;
  uint8_t *snap = encode_snapshot(fs, &len);
  if (!snap) return -ENOMEM;
  uint64_t labels = zfs_record_size(4 + 12 * fs->g.nr_zones, fs->g.lba_size) +
                    zfs_record_size(ZFS_POLICY_COUNTS_LEN, fs->g.lba_size) +
                    zfs_record_size(4 + 16 * fs->g.nr_zones, fs->g.lba_size);
  if (zfs_record_size((uint32_t)len, fs->g.lba_size) + ZFS_SUPERBLOCK_SIZE + labels > fs->g.zone_cap) {
    free(snap);
    return -EFBIG; /* the file table no longer fits a meta zone */
  }
  rc = append_record_raw(fs, ZFS_REC_SNAPSHOT, snap, len);
  free(snap);
  if (rc) return rc;
  if ((rc = append_zone_labels(fs, UINT32_MAX, 1))) return rc;
  if ((rc = append_policy_counts(fs, 1))) return rc;
  if ((rc = persist_all_leases(fs))) return rc;
  fs->st.meta_rolls++;
  return old == next ? 0 : zkv_dev_zone_mgmt(fs->dev, old, ZKV_ZONE_RESET);
}

int append_record(zfs *fs, uint16_t type, const uint8_t *payload, size_t len) {
  return append_record_for(fs, type, payload, len, NULL, 0);
}

int persist_file(zfs *fs, fobj *f) {
  if (!in_namespace(f)) return 0; /* deleted while open: nothing of it is persisted any more */
  size_t len = zfs_file_encoded_size(&f->m);
  uint8_t *p = malloc(len);
  if (!p) return -ENOMEM;
  zfs_file_encode(&f->m, p, len);
  int rc = append_record_for(fs, ZFS_REC_FILE_UPDATE, p, len, f, 0);
  free(p);
  if (!rc) f->persisted_extents = f->m.n_extents;
  return rc;
}

/* The extents a file gained since its last record (the last one the log knows may have grown). */
static zfs_file_extend extents_since_last_record(const fobj *f) {
  uint32_t first = f->persisted_extents ? f->persisted_extents - 1 : 0;
  return (zfs_file_extend){.id = f->m.id,
                           .size = f->m.size,
                           .mtime = f->m.mtime,
                           .lifetime = f->m.lifetime,
                           .first = first,
                           .n_extents = f->m.n_extents - first,
                           .extents = f->m.extents + first};
}

/* What a sync persists: the new size and the extents gained since the file's last record, in a
 * record of constant size (a full record would re-encode every extent on every sync: metadata
 * growing with the square of a WAL's syncs). Reserved here, under mu; zfs_sync writes it after
 * releasing mu, so other files' writers and allocations never wait for a sync's metadata write. */
int reserve_sync(zfs *fs, fobj *f, meta_pending *out) {
  out->buf = NULL;
  if (!in_namespace(f)) return 0;
  zfs_file_extend x = extents_since_last_record(f);
  size_t len = zfs_extend_encoded_size(x.n_extents);
  uint8_t small[256], *p = len <= sizeof small ? small : malloc(len);
  if (!p) return -ENOMEM;
  zfs_extend_encode(&x, p, len);
  int rc = reserve_record(fs, ZFS_REC_FILE_EXTEND, p, len, f, 0, out);
  if (p != small) free(p);
  if (!rc) f->persisted_extents = f->m.n_extents;
  return rc;
}

/* A sparse file's record at each zone it takes (and at close, with no active extent): the chunks
 * written since its last record, and where its next chunks go, which a mount reads back. Between
 * two such records its syncs write no metadata: their size is amortised over the zone (about one
 * 16-byte extent per chunk), never a record per sync. */
int persist_active(zfs *fs, fobj *f, uint64_t active_extent_start) {
  if (!in_namespace(f)) return 0;
  zfs_file_extend x = extents_since_last_record(f);
  size_t len = zfs_active_encoded_size(x.n_extents);
  uint8_t small[256], *p = len <= sizeof small ? small : malloc(len);
  if (!p) return -ENOMEM;
  zfs_active_encode(active_extent_start, &x, p, len);
  int rc = append_record_for(fs, ZFS_REC_FILE_ACTIVE, p, len, f, 0);
  if (p != small) free(p);
  if (!rc) {
    f->persisted_extents = f->m.n_extents;
    f->m.active_extent_start = active_extent_start;
  }
  return rc;
}

int persist_delete(zfs *fs, uint64_t id) { return append_record(fs, ZFS_REC_FILE_DELETE, (uint8_t *)&id, 8); }
