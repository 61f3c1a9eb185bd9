/* The PLM array's internals, shared by its parts (plm_array.h is the interface):
 *   set_concat.c         a drive's namespaces concatenated as its NVM Sets (set_concat.h)
 *   plm_array_journal.c  the journal (docs/formats/plm-array.md): records written, rotation
 *   plm_array_held.c     writes held for a set in its DTWIN, drained in its NDWIN; the inner zones'
 *                        writes and management
 *   plm_array_io.c       reads (rebuilt from the other sets outside a DTWIN) and striped writes
 *   plm_array_admin.c    admin commands: the PLM windows the array observes and enforces
 *   plm_array_recover.c  recovery at open: the journal replayed, stripes made whole
 *   plm_array.c          opening (URI options, the sets), closing, zone management, report, stats
 * Each part calls only those above it in this list; the array calls the device it is made of,
 * never the reverse (the emulator's calls given a plmarray: reach the device it is made of
 * through the backend table's made_of).
 *
 * Locks: `wmu` serialises everything that changes the device (writes, zone management, flushes,
 * admin commands, drains); `mu` guards the state readers consult (bindings, held writes, bytes on
 * each inner zone, windows). A read plans under `mu` (copying held data out of the buffer) and
 * reads the inner device without it, so reads never wait behind a write's device time. */
#ifndef ZKV_PLM_ARRAY_INTERNAL_H
#define ZKV_PLM_ARRAY_INTERNAL_H
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/le_bytes.h"
#include "common/sync_queue.h"
#include "common/zone_state.h"
#include "plm_array.h"
#include "set_concat.h"

#define DEFAULT_CHUNK (64u * 1024)
#define DEFAULT_HOLD (64ull << 20)
#define MIN_SETS 4 /* the meta set and three kv-sets: two data chunks and a parity chunk */

typedef struct held_write {
  struct held_write *next;
  uint32_t zone; /* inner zone */
  int journaled;
  uint64_t rel; /* inner zone-relative offset */
  uint64_t len;
  uint8_t data[];
} held_write;

/* A set's window as the array sees it: the NVMe window codes (Feature 14h, log page 0Ah), PLM off,
 * and the time an NDWIN ends with a DTWIN request the device has not completed yet (the rest of
 * the NDWIN minimum, then the lockdown). */
enum pa_window { WIN_PLM_OFF = 0, WIN_DTWIN = 1, WIN_NDWIN = 2, WIN_ENTERING_DTWIN = 3 };

typedef struct pa_set {
  uint32_t id, first_zone, nr_zones;
  int win;            /* enum pa_window */
  int host_nd;        /* the NDWIN is one the host asked for (not one a write or the device started) */
  uint32_t reads_out; /* device reads planned for this set and not yet completed */
  held_write *head, *tail;
  zkv_plm_array_stats st;
} pa_set;

typedef struct lzone {
  int kind; /* enum pa_kind */
  int finish_pending;
  uint32_t group;
  uint8_t *stripe; /* PA_STRIPE: the data of the stripe being written, for its parity */
} lzone;

typedef struct pa_dev {
  zkv_dev base;
  zkv_dev *inner;
  zkv_geometry ig;
  uint32_t n, ndata; /* kv-sets, data chunks per stripe (n - 1) */
  pa_set *sets;      /* [0] the meta set, [1..n] the kv-sets */
  uint64_t chunk, slots;
  uint32_t meta_groups, stripe_groups;
  uint32_t *meta_owner, *stripe_owner; /* the logical zone bound to each group, UINT32_MAX: free */
  lzone *lz;
  zs_table zs;
  uint64_t *on_dev; /* per inner zone: bytes on the device (held ones are past them) */
  uint64_t hold_cap, held_total;
  /* The mechanisms of the ablation ladder (docs/plm.md), each on by default: WAL and metadata on
   * the meta set; writes for a set in DTWIN held until its NDWIN; reads of a set outside DTWIN
   * rebuilt from the others. */
  int isolate, defer, rebuild;
  uint32_t jzone[2];
  int jcur;
  uint64_t jwp, gen, seq;
  pthread_mutex_t mu, wmu;
  pthread_cond_t reads_done; /* a set's reads_out fell to 0 */
  zkv_dev_stats stats;
  int dead;
} pa_dev;

static inline pa_dev *PA(zkv_dev *d) { return (pa_dev *)d; }
static inline void lock(pa_dev *a) { pthread_mutex_lock(&a->mu); }
static inline void unlock(pa_dev *a) { pthread_mutex_unlock(&a->mu); }
/* ---------- layout ---------- */

/* Stripe s: data position p (0..ndata-1) lives on kv-set data_set(s, p); parity on s % n. */
static inline uint32_t parity_set(const pa_dev *a, uint64_t s) { return (uint32_t)(s % a->n); }
static inline uint32_t data_set(const pa_dev *a, uint64_t s, uint32_t p) {
  uint32_t ps = parity_set(a, s);
  return p < ps ? p : p + 1;
}
/* kv-set index k (0-based) -> its inner zone of stripe group g. */
static inline uint32_t kv_zone(const pa_dev *a, uint32_t k, uint32_t g) { return a->sets[1 + k].first_zone + g; }
/* Meta group g, member m -> inner zone (the meta set's first two zones hold the journal). */
static inline uint32_t meta_zone(const pa_dev *a, uint32_t g, uint32_t m) {
  return a->sets[0].first_zone + 2 + g * a->ndata + m;
}
static inline uint64_t izone_start(const pa_dev *a, uint32_t z) { return (uint64_t)z * a->ig.zone_size; }
static inline pa_set *set_of_izone(pa_dev *a, uint32_t z) {
  for (uint32_t i = 0; i <= a->n; i++)
    if (z >= a->sets[i].first_zone && z < a->sets[i].first_zone + a->sets[i].nr_zones) return &a->sets[i];
  return &a->sets[0];
}
static inline uint64_t stripe_bytes(const pa_dev *a) { return a->ndata * a->chunk; }

/* plm_array_held.c */
/* Zone management `action` on every inner zone of logical zone l. */
int pa_inner_mgmt_all(pa_dev *a, const lzone *l, int action);
int pa_inner_write(pa_dev *a, uint32_t z, uint64_t rel, const void *buf, uint64_t len, int flags);
void pa_finish_inner_if_done(pa_dev *a, uint32_t z);
int pa_drain(pa_dev *a, pa_set *s);
int pa_holds_zone(const pa_set *s, uint32_t z);
int pa_put_piece(pa_dev *a, uint32_t k, uint32_t z, uint64_t rel, const void *buf, uint64_t len, int flags);
uint64_t pa_plan_piece(pa_dev *a, uint32_t z, uint64_t rel, uint64_t len, uint8_t *out, int *buffered);
void pa_drop_held(pa_dev *a, uint32_t z);
int pa_sync_all(pa_dev *a);

/* plm_array_journal.c */
int pa_jappend(pa_dev *a, int type, uint32_t x, uint32_t y, uint64_t c, const void *payload, uint64_t len, int flags);
/* Starts a new generation in the other journal zone: the bindings, pending finishes and every
 * held write, durable before the old zone is reset. */
int pa_jrotate(pa_dev *a);

/* plm_array_io.c */
int pa_read(zkv_dev *d, uint64_t offset, void *buf, size_t len);
int pa_bind_zone(pa_dev *a, uint32_t l, int cls);
int pa_zone_class(zkv_dev *d, uint32_t zone);
void pa_unbind(pa_dev *a, uint32_t l);
uint8_t *pa_stripe_parity(const pa_dev *a, const lzone *z);
int pa_write(zkv_dev *d, uint64_t offset, const void *buf, size_t len, int flags);
int64_t pa_append(zkv_dev *d, uint32_t zone, const void *buf, size_t len, int flags);
int pa_flush(zkv_dev *d);

/* plm_array_admin.c */
int pa_window_in_log(const void *page);
int pa_admin(zkv_dev *d, zkv_admin_cmd *cmd);

/* plm_array_recover.c */
int pa_recover(pa_dev *a);
#endif
