/* Little-endian field access for the on-disk formats (x86-64 is little-endian; memcpy keeps
 * unaligned access defined), and the error-message helper the format decoders share. */
#ifndef ZKV_LE_BYTES_H
#define ZKV_LE_BYTES_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint16_t get16(const uint8_t *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}
static inline uint32_t get32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static inline uint64_t get64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* Formats a message into err (when given) and returns code: `return fail(-EINVAL, err, n, ...)`. */
static inline int fail(int code, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static inline int fail(int code, char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}
#endif
