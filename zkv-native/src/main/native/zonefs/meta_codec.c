#include "meta_codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/le_bytes.h"

static const uint8_t SB_MAGIC[8] = {'Z', 'K', 'V', 'F', 'S', 0, 0, 1};
#define REC_MAGIC 0x52564B5Au /* "ZKVR" little-endian */
#define SB_CRC_OFF (ZFS_SUPERBLOCK_SIZE - 4)
#define MAX_NAMES 1024u

/* ---------- superblock ---------- */

int zfs_superblock_encode(const zfs_superblock *sb, uint8_t *out, size_t cap) {
  if (cap < ZFS_SUPERBLOCK_SIZE) return ZFS_CORRUPT;
  memset(out, 0, ZFS_SUPERBLOCK_SIZE);
  memcpy(out, SB_MAGIC, 8);
  put32(out + 8, sb->version);
  put32(out + 12, sb->flags);
  put64(out + 16, sb->sequence);
  memcpy(out + 24, sb->uuid, 16);
  put32(out + 40, sb->block_size);
  put32(out + 44, sb->nr_zones);
  put64(out + 48, sb->zone_size);
  put64(out + 56, sb->zone_cap);
  put32(out + 64, sb->meta_zones);
  put32(out + 68, sb->finish_threshold);
  put32(out + SB_CRC_OFF, zkv_crc32c(0, out, SB_CRC_OFF));
  return ZFS_SUPERBLOCK_SIZE;
}

int zfs_all_zero(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}

int zfs_superblock_decode(const uint8_t *in, size_t len, zfs_superblock *sb, char *err, size_t errlen) {
  if (len < ZFS_SUPERBLOCK_SIZE) return fail(ZFS_TORN, err, errlen, "superblock truncated (%zu bytes)", len);
  if (zfs_all_zero(in, ZFS_SUPERBLOCK_SIZE)) return fail(ZFS_EMPTY, err, errlen, "no superblock (zone is empty)");
  if (memcmp(in, SB_MAGIC, 8) != 0)
    return fail(ZFS_CORRUPT, err, errlen, "not a zkv file system (bad superblock magic)");
  if (zkv_crc32c(0, in, SB_CRC_OFF) != get32(in + SB_CRC_OFF))
    return fail(ZFS_CORRUPT, err, errlen, "superblock checksum mismatch");
  memset(sb, 0, sizeof *sb);
  sb->version = get32(in + 8);
  if (sb->version < ZFS_OLDEST_FORMAT_VERSION || sb->version > ZFS_FORMAT_VERSION)
    return fail(ZFS_UNSUPPORTED, err, errlen, "file system format version %u; this zkv reads versions %u to %u",
                sb->version, ZFS_OLDEST_FORMAT_VERSION, ZFS_FORMAT_VERSION);
  sb->flags = get32(in + 12);
  sb->sequence = get64(in + 16);
  memcpy(sb->uuid, in + 24, 16);
  sb->block_size = get32(in + 40);
  sb->nr_zones = get32(in + 44);
  sb->zone_size = get64(in + 48);
  sb->zone_cap = get64(in + 56);
  sb->meta_zones = get32(in + 64);
  sb->finish_threshold = get32(in + 68);
  if (sb->block_size == 0 || sb->block_size > ZFS_SUPERBLOCK_SIZE || ZFS_SUPERBLOCK_SIZE % sb->block_size ||
      sb->zone_cap == 0 || sb->zone_cap > sb->zone_size || sb->zone_cap % sb->block_size || sb->meta_zones < 2 ||
      sb->meta_zones >= sb->nr_zones || sb->finish_threshold > 100)
    return fail(ZFS_CORRUPT, err, errlen, "superblock fields are inconsistent");
  return ZFS_SUPERBLOCK_SIZE;
}

/* ---------- records ---------- */

size_t zfs_record_size(uint32_t payload_len, uint32_t block) {
  size_t n = ZFS_RECORD_HEADER + (size_t)payload_len;
  return (n + block - 1) / block * block;
}

static uint32_t record_crc(const uint8_t *hdr, const uint8_t *payload, uint32_t len) {
  return zkv_crc32c(zkv_crc32c(0, hdr, 20), payload, len);
}

int64_t zfs_record_encode(uint16_t type, uint64_t seq, const uint8_t *payload, uint32_t len, uint32_t block,
                          uint8_t *out, size_t cap) {
  size_t total = zfs_record_size(len, block);
  if (block == 0 || total > cap) return ZFS_CORRUPT;
  memset(out, 0, total);
  put32(out, REC_MAGIC);
  put16(out + 4, type);
  put16(out + 6, 0);
  put32(out + 8, len);
  put64(out + 12, seq);
  if (len) memcpy(out + ZFS_RECORD_HEADER, payload, len);
  put32(out + 20, record_crc(out, out + ZFS_RECORD_HEADER, len));
  return (int64_t)total;
}

int64_t zfs_record_decode(const uint8_t *in, size_t avail, uint32_t block, zfs_record *rec, char *err, size_t errlen) {
  if (block == 0) return fail(ZFS_CORRUPT, err, errlen, "block size 0");
  size_t hdr = avail < ZFS_RECORD_HEADER ? avail : ZFS_RECORD_HEADER;
  if (zfs_all_zero(in, hdr)) return fail(ZFS_EMPTY, err, errlen, "end of log");
  if (avail < ZFS_RECORD_HEADER) return fail(ZFS_TORN, err, errlen, "record header cut short");
  if (get32(in) != REC_MAGIC) return fail(ZFS_CORRUPT, err, errlen, "bad record magic 0x%08x", get32(in));
  uint16_t type = get16(in + 4);
  uint32_t len = get32(in + 8);
  if (get16(in + 6) != 0) return fail(ZFS_CORRUPT, err, errlen, "record reserved field is not zero");
  if (len > avail - ZFS_RECORD_HEADER) return fail(ZFS_TORN, err, errlen, "record of %u bytes cut short", len);
  if (record_crc(in, in + ZFS_RECORD_HEADER, len) != get32(in + 20))
    return fail(ZFS_TORN, err, errlen, "record checksum mismatch");
  if (type < ZFS_REC_SNAPSHOT || type > ZFS_REC_ZONE_LEASE_KEYS)
    return fail(ZFS_UNSUPPORTED, err, errlen, "unknown record type %u (written by a newer zkv?)", type);
  size_t total = zfs_record_size(len, block);
  rec->type = type;
  rec->seq = get64(in + 12);
  rec->payload = in + ZFS_RECORD_HEADER;
  rec->len = len;
  return (int64_t)(total <= avail ? total : avail);
}

/* ---------- file metadata ---------- */

/* Writes n extents (start, length) at p; returns the end. */
static uint8_t *put_extents(uint8_t *p, const zfs_extent *e, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    put64(p, e[i].start), p += 8;
    put64(p, e[i].len), p += 8;
  }
  return p;
}

size_t zfs_file_encoded_size(const zfs_file_meta *f) {
  size_t n = 8 * 4 + 4 * 3;
  for (uint32_t i = 0; i < f->n_names; i++) n += 2 + strlen(f->names[i]);
  return n + 4 + (size_t)f->n_extents * 16;
}

int64_t zfs_file_encode(const zfs_file_meta *f, uint8_t *out, size_t cap) {
  size_t need = zfs_file_encoded_size(f);
  if (need > cap) return ZFS_CORRUPT;
  uint8_t *p = out;
  put64(p, f->id), p += 8;
  put64(p, f->size), p += 8;
  put64(p, f->mtime), p += 8;
  put64(p, f->active_extent_start), p += 8;
  put32(p, f->lifetime), p += 4;
  put32(p, f->flags), p += 4;
  put32(p, f->n_names), p += 4;
  for (uint32_t i = 0; i < f->n_names; i++) {
    size_t l = strlen(f->names[i]);
    if (l == 0 || l > ZFS_MAX_NAME) return ZFS_CORRUPT;
    put16(p, (uint16_t)l), p += 2;
    memcpy(p, f->names[i], l), p += l;
  }
  put32(p, f->n_extents), p += 4;
  put_extents(p, f->extents, f->n_extents);
  return (int64_t)need;
}

void zfs_file_free(zfs_file_meta *f) {
  if (!f) return;
  for (uint32_t i = 0; f->names && i < f->n_names; i++) free(f->names[i]);
  free(f->names);
  free(f->extents);
  f->names = NULL;
  f->extents = NULL;
  f->n_names = f->n_extents = 0;
}

#define NEED(n)                                                                                        \
  do {                                                                                                 \
    if ((size_t)(end - p) < (size_t)(n)) {                                                             \
      zfs_file_free(f);                                                                                \
      return fail(ZFS_CORRUPT, err, errlen, "file record truncated at byte %td", (ptrdiff_t)(p - in)); \
    }                                                                                                  \
  } while (0)

int64_t zfs_file_decode(const uint8_t *in, size_t len, zfs_file_meta *f, char *err, size_t errlen) {
  const uint8_t *p = in, *end = in + len;
  memset(f, 0, sizeof *f);
  NEED(44);
  f->id = get64(p), p += 8;
  f->size = get64(p), p += 8;
  f->mtime = get64(p), p += 8;
  f->active_extent_start = get64(p), p += 8;
  f->lifetime = get32(p), p += 4;
  f->flags = get32(p), p += 4;
  uint32_t n_names = get32(p);
  p += 4;
  if (n_names == 0 || n_names > MAX_NAMES)
    return fail(ZFS_CORRUPT, err, errlen, "file %llu has %u names", (unsigned long long)f->id, n_names);
  if (!(f->names = calloc(n_names, sizeof *f->names))) return fail(ZFS_CORRUPT, err, errlen, "out of memory");
  for (uint32_t i = 0; i < n_names; i++) {
    NEED(2);
    uint16_t l = get16(p);
    p += 2;
    if (l == 0 || l > ZFS_MAX_NAME) {
      zfs_file_free(f);
      return fail(ZFS_CORRUPT, err, errlen, "file name of length %u", l);
    }
    NEED(l);
    if (memchr(p, 0, l)) {
      zfs_file_free(f);
      return fail(ZFS_CORRUPT, err, errlen, "file name contains a NUL byte");
    }
    if (!(f->names[i] = malloc((size_t)l + 1))) {
      zfs_file_free(f);
      return fail(ZFS_CORRUPT, err, errlen, "out of memory");
    }
    memcpy(f->names[i], p, l);
    f->names[i][l] = 0;
    f->n_names = i + 1;
    p += l;
  }
  NEED(4);
  uint32_t n_ext = get32(p);
  p += 4;
  NEED((uint64_t)n_ext * 16);
  if (n_ext && !(f->extents = calloc(n_ext, sizeof *f->extents))) {
    zfs_file_free(f);
    return fail(ZFS_CORRUPT, err, errlen, "out of memory");
  }
  uint64_t total = 0;
  for (uint32_t i = 0; i < n_ext; i++) {
    f->extents[i].start = get64(p), p += 8;
    f->extents[i].len = get64(p), p += 8;
    if (f->extents[i].len == 0 || f->extents[i].start + f->extents[i].len < f->extents[i].start) {
      zfs_file_free(f);
      return fail(ZFS_CORRUPT, err, errlen, "file extent %u is empty or wraps", i);
    }
    total += f->extents[i].len;
  }
  f->n_extents = n_ext;
  if (f->size > total) {
    zfs_file_free(f);
    return fail(ZFS_CORRUPT, err, errlen, "file size %llu exceeds its extents (%llu bytes)",
                (unsigned long long)f->size, (unsigned long long)total);
  }
  return p - in;
}

int zfs_snapshot_header_decode(const uint8_t *in, size_t len, uint64_t *next_file_id, uint32_t *count) {
  if (len < 12) return ZFS_CORRUPT;
  *next_file_id = get64(in);
  *count = get32(in + 8);
  return 12;
}

/* ---------- file extend (a sync) ---------- */

#define EXTEND_HEADER 36u /* id, size, mtime, lifetime, first, count */

size_t zfs_extend_encoded_size(uint32_t n_extents) { return EXTEND_HEADER + (size_t)n_extents * 16; }

int64_t zfs_extend_encode(const zfs_file_extend *x, uint8_t *out, size_t cap) {
  size_t need = zfs_extend_encoded_size(x->n_extents);
  if (need > cap) return ZFS_CORRUPT;
  uint8_t *p = out;
  put64(p, x->id), p += 8;
  put64(p, x->size), p += 8;
  put64(p, x->mtime), p += 8;
  put32(p, x->lifetime), p += 4;
  put32(p, x->first), p += 4;
  put32(p, x->n_extents), p += 4;
  put_extents(p, x->extents, x->n_extents);
  return (int64_t)need;
}

int zfs_extend_decode(const uint8_t *in, size_t len, zfs_file_extend *x, char *err, size_t errlen) {
  memset(x, 0, sizeof *x);
  if (len < EXTEND_HEADER) return fail(ZFS_CORRUPT, err, errlen, "extend record of %zu bytes", len);
  x->id = get64(in);
  x->size = get64(in + 8);
  x->mtime = get64(in + 16);
  x->lifetime = get32(in + 24);
  x->first = get32(in + 28);
  uint32_t n = get32(in + 32);
  if ((uint64_t)n * 16 != len - EXTEND_HEADER)
    return fail(ZFS_CORRUPT, err, errlen, "extend record of %zu bytes holds %u extents", len, n);
  if (n && !(x->extents = calloc(n, sizeof *x->extents))) return fail(ZFS_CORRUPT, err, errlen, "out of memory");
  for (uint32_t i = 0; i < n; i++) {
    x->extents[i].start = get64(in + EXTEND_HEADER + 16 * (size_t)i);
    x->extents[i].len = get64(in + EXTEND_HEADER + 16 * (size_t)i + 8);
    if (x->extents[i].len == 0 || x->extents[i].start + x->extents[i].len < x->extents[i].start) {
      free(x->extents);
      x->extents = NULL;
      return fail(ZFS_CORRUPT, err, errlen, "extend record extent %u is empty or wraps", i);
    }
  }
  x->n_extents = n;
  return 0;
}

/* ---------- file active (a sparse file takes a zone; since version 3) ---------- */

size_t zfs_active_encoded_size(uint32_t n_extents) { return 8 + zfs_extend_encoded_size(n_extents); }

int64_t zfs_active_encode(uint64_t active_extent_start, const zfs_file_extend *x, uint8_t *out, size_t cap) {
  if (cap < zfs_active_encoded_size(x->n_extents)) return ZFS_CORRUPT;
  put64(out, active_extent_start);
  int64_t n = zfs_extend_encode(x, out + 8, cap - 8);
  return n < 0 ? n : n + 8;
}

int zfs_active_decode(const uint8_t *in, size_t len, uint64_t *active_extent_start, zfs_file_extend *x, char *err,
                      size_t errlen) {
  memset(x, 0, sizeof *x);
  if (len < 8) return fail(ZFS_CORRUPT, err, errlen, "active record of %zu bytes", len);
  *active_extent_start = get64(in);
  return zfs_extend_decode(in + 8, len - 8, x, err, errlen);
}

/* ---------- sparse file chunks (data zones; since version 3) ---------- */

#define CHUNK_MAGIC 0x43564B5Au /* "ZKVC" little-endian */

uint32_t zfs_chunk_data_crc(const void *data, size_t len) { return zkv_crc32c(0, data, len); }

void zfs_chunk_encode(const zfs_chunk *c, uint8_t out[ZFS_CHUNK_HEADER]) {
  put32(out, CHUNK_MAGIC);
  put32(out + 4, c->len);
  put64(out + 8, c->file_id);
  put64(out + 16, c->offset);
  put32(out + 24, c->data_crc);
  put32(out + 28, zkv_crc32c(0, out, 28));
}

int zfs_chunk_decode(const uint8_t *in, size_t avail, zfs_chunk *c) {
  if (avail < ZFS_CHUNK_HEADER || get32(in) != CHUNK_MAGIC || get32(in + 28) != zkv_crc32c(0, in, 28))
    return ZFS_CORRUPT;
  c->len = get32(in + 4);
  c->file_id = get64(in + 8);
  c->offset = get64(in + 16);
  c->data_crc = get32(in + 24);
  return c->len == 0 || c->offset + c->len < c->offset ? ZFS_CORRUPT : 0;
}
