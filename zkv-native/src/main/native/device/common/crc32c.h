#ifndef ZKV_CRC32C_H
#define ZKV_CRC32C_H
#include <stddef.h>
#include <stdint.h>
/* CRC-32C (Castagnoli), the checksum of every zkv on-disk format. */
uint32_t zkv_crc32c(uint32_t crc, const void *buf, size_t len);
/* The same without the CPU's instruction (tests compare the two). */
uint32_t zkv_crc32c_portable(uint32_t crc, const void *buf, size_t len);
#endif
