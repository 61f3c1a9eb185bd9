/* rocks/sst_first_key.h: an uncompressed data block's first key is read; anything else (a shared
 * prefix, a key shorter than its 8-byte footer, a short buffer, an overlong varint, random bytes)
 * is refused without reading past the buffer. */
#include <stdint.h>
#include <string.h>

#include "sst_first_key.h"
#include "test_util.h"

/* Appends a varint32; returns the new length. */
static size_t put_varint(uint8_t *p, size_t n, uint32_t v) {
  while (v >= 0x80) {
    p[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (uint8_t)v;
  return n;
}

/* A data block's first entry: shared, non_shared, value length, internal key, value. */
static size_t entry(uint8_t *p, uint32_t shared, const char *user_key, uint32_t value_len) {
  size_t k = strlen(user_key), n = 0;
  n = put_varint(p, n, shared);
  n = put_varint(p, n, (uint32_t)k + ZKV_SST_INTERNAL_KEY_FOOTER);
  n = put_varint(p, n, value_len);
  memcpy(p + n, user_key, k);
  n += k;
  memset(p + n, 0x01, ZKV_SST_INTERNAL_KEY_FOOTER); /* sequence and type */
  n += ZKV_SST_INTERNAL_KEY_FOOTER;
  memset(p + n, 'v', value_len);
  return n + value_len;
}

int main(void) {
  uint8_t b[4096];
  size_t off = 0, len = 0;
  size_t n = entry(b, 0, "key000123", 100);
  CHECK_EQ(zkv_sst_first_user_key(b, n, &off, &len), 0);
  CHECK_EQ(len, 9);
  CHECK(memcmp(b + off, "key000123", 9) == 0);
  CHECK_EQ(zkv_sst_first_user_key(b, off + 9 + ZKV_SST_INTERNAL_KEY_FOOTER, &off, &len), 0); /* key whole */

  /* a key spanning past the buffer, a shared prefix, a key shorter than its footer */
  CHECK_EQ(zkv_sst_first_user_key(b, off + 9 + ZKV_SST_INTERNAL_KEY_FOOTER - 1, &off, &len), -1);
  n = entry(b, 3, "key000123", 10);
  CHECK_EQ(zkv_sst_first_user_key(b, n, &off, &len), -1);
  uint8_t shortkey[] = {0, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  CHECK_EQ(zkv_sst_first_user_key(shortkey, sizeof shortkey, &off, &len), -1);
  uint8_t empty_user_key[] = {0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_EQ(zkv_sst_first_user_key(empty_user_key, sizeof empty_user_key, &off, &len), 0);
  CHECK_EQ(len, 0);
  /* varints: unterminated, longer than 32 bits, cut short */
  uint8_t unterminated[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
  CHECK_EQ(zkv_sst_first_user_key(unterminated, sizeof unterminated, &off, &len), -1);
  uint8_t too_wide[] = {0, 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
  CHECK_EQ(zkv_sst_first_user_key(too_wide, sizeof too_wide, &off, &len), -1);
  for (size_t cut = 0; cut < 3; cut++) CHECK_EQ(zkv_sst_first_user_key(b, cut, &off, &len), -1);

  /* random bytes (a compressed block looks like this): refused, or a key inside the buffer */
  uint64_t x = 0x9e3779b97f4a7c15ull;
  int parsed = 0;
  for (int round = 0; round < 200000; round++) {
    size_t size = 1 + (size_t)(x % 64);
    for (size_t i = 0; i < size; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b[i] = (uint8_t)(i < 3 && (x & 1) ? x & 0x7f : x >> 24); /* small varints now and then */
    }
    if (zkv_sst_first_user_key(b, size, &off, &len) == 0) {
      CHECK(off + len + ZKV_SST_INTERNAL_KEY_FOOTER <= size);
      parsed++;
    }
  }
  CHECK(parsed > 0); /* the generator does reach the accepting path */
  TEST_DONE("test_sst_first_key");
  return 0;
}
