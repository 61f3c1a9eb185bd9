/* Per-thread stripes: counters and reader marks that many threads update on every read, spread
 * over cache lines so that two threads do not bounce one line (about 100 ns per access between two
 * cores). A thread takes the next stripe on its first use; a sum over the stripes is the total. */
#ifndef ZKV_STRIPES_H
#define ZKV_STRIPES_H
#include <stdatomic.h>
#include <stdint.h>

#define ZKV_STRIPES 16

typedef struct zkv_stripe {
  _Alignas(64) _Atomic uint64_t a;
  _Atomic uint64_t b;
} zkv_stripe;

/* The calling thread's stripe index, the same for all its life. */
static inline uint32_t zkv_stripe_index(void) {
  static _Atomic uint32_t next;
  static __thread uint32_t mine = UINT32_MAX;
  if (mine == UINT32_MAX) mine = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) % ZKV_STRIPES;
  return mine;
}

#endif
