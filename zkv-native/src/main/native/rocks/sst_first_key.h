/* The first user key of a RocksDB block-based SST from the file's first bytes, when its first data
 * block is stored uncompressed (compression none; a compressed block cannot be read from its start).
 * A data block's first entry shares nothing with a previous key: varint32 shared (0), varint32
 * non_shared, varint32 value length, then the internal key (user key and 8 bytes of sequence and
 * type). Anything else (a compressed block, a short buffer, a different table format) is refused;
 * the caller also checks the key against what it knows of the file (its compaction's inputs'
 * range), as the bytes might parse by chance. C and C++; no allocation. */
#ifndef ZKV_SST_FIRST_KEY_H
#define ZKV_SST_FIRST_KEY_H
#include <stddef.h>
#include <stdint.h>

#define ZKV_SST_INTERNAL_KEY_FOOTER 8u

/* Reads a varint32 at *pos of p[0, n); returns 0 (and the value, *pos after it) or -1. */
static inline int zkv_sst_varint32(const uint8_t *p, size_t n, size_t *pos, uint32_t *out) {
  uint32_t v = 0;
  for (unsigned shift = 0; shift <= 28 && *pos < n; shift += 7) {
    uint8_t b = p[(*pos)++];
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (shift == 28 && b > 0x0f) return -1; /* more than 32 bits */
      *out = v;
      return 0;
    }
  }
  return -1;
}

/* 0 with the first user key at p + *key_off, *key_len bytes; -1 if the bytes do not start with an
 * uncompressed data block's first entry. */
static inline int zkv_sst_first_user_key(const uint8_t *p, size_t n, size_t *key_off, size_t *key_len) {
  size_t pos = 0;
  uint32_t shared = 0, non_shared = 0, value_len = 0;
  if (zkv_sst_varint32(p, n, &pos, &shared) || zkv_sst_varint32(p, n, &pos, &non_shared) ||
      zkv_sst_varint32(p, n, &pos, &value_len))
    return -1;
  if (shared != 0 || non_shared < ZKV_SST_INTERNAL_KEY_FOOTER || non_shared > n - pos) return -1;
  *key_off = pos;
  *key_len = non_shared - ZKV_SST_INTERNAL_KEY_FOOTER;
  return 0;
}

#endif
