#include "crc32c.h"

static uint32_t table[256];
static void init_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    table[i] = c;
  }
}

uint32_t zkv_crc32c(uint32_t crc, const void *buf, size_t len) {
  static int ready;
  if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) { /* idempotent: racing initializers agree */
    init_table();
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
  }
  const uint8_t *p = buf;
  crc = ~crc;
  while (len--) crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return ~crc;
}
