/* CRC-32C (Castagnoli). Every metadata record and every chunk of a sparse file (a WAL sync) is
 * checksummed, so this is on the sync path: the CPU's CRC32C instruction where there is one
 * (x86 SSE4.2, ARMv8 CRC), chosen once at run time, else a table-driven loop eight bytes at a time.
 * The byte-at-a-time loop took about 10 us for a 4 KiB chunk, more than the emulated write. */
#include "crc32c.h"

#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#elif defined(__aarch64__)
#include <arm_acle.h>
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif

static uint32_t table[8][256];

static void init_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    table[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++) table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
}

/* Slicing-by-8: the portable fallback. */
static uint32_t crc_table(uint32_t crc, const uint8_t *p, size_t len) {
  while (len >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    v ^= crc;
    crc = table[7][v & 0xFF] ^ table[6][(v >> 8) & 0xFF] ^ table[5][(v >> 16) & 0xFF] ^ table[4][(v >> 24) & 0xFF] ^
          table[3][(v >> 32) & 0xFF] ^ table[2][(v >> 40) & 0xFF] ^ table[1][(v >> 48) & 0xFF] ^ table[0][v >> 56];
    p += 8, len -= 8;
  }
  while (len--) crc = table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len) {
  uint64_t c = crc;
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
  }
  uint32_t c32 = (uint32_t)c;
  while (len--) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}
static int have_hw(void) { return __builtin_cpu_supports("sse4.2"); }
#elif defined(__aarch64__)
__attribute__((target("+crc"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len) {
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    crc = __crc32cd(crc, v);
  }
  while (len--) crc = __crc32cb(crc, *p++);
  return crc;
}
static int have_hw(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0; }
#else
static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t len) { return crc_table(crc, p, len); }
static int have_hw(void) { return 0; }
#endif

/* 0 not chosen yet, 1 table, 2 instruction; racing first callers choose alike. */
static int impl;

uint32_t zkv_crc32c(uint32_t crc, const void *buf, size_t len) {
  int which = __atomic_load_n(&impl, __ATOMIC_ACQUIRE);
  if (!which) {
    init_table();
    which = have_hw() ? 2 : 1;
    __atomic_store_n(&impl, which, __ATOMIC_RELEASE);
  }
  crc = ~crc;
  crc = which == 2 ? crc_hw(crc, buf, len) : crc_table(crc, buf, len);
  return ~crc;
}

uint32_t zkv_crc32c_portable(uint32_t crc, const void *buf, size_t len) {
  if (!__atomic_load_n(&impl, __ATOMIC_ACQUIRE)) zkv_crc32c(0, "", 0); /* builds the table */
  return ~crc_table(~crc, buf, len);
}
