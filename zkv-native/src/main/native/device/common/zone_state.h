/* The NVMe ZNS zone state machine, free of I/O so it can be tested alone.
 * Conditions, resource limits (open/active, implicit opens counted) and every status code. */
#ifndef ZKV_ZONE_STATE_H
#define ZKV_ZONE_STATE_H
#include "zkv/device.h"

/* `written` and `cond` change only in zs_set, with atomic stores, so that a device may read them
 * without its lock (zs_check_read: the emulator's unlocked reads); everything else runs under the
 * owner's lock. Reads must not use `written` to know which bytes hold data: a write moves it when
 * it begins, before the data lands (the emulator keeps its own readable mark). */
typedef struct zs_entry {
  uint64_t written; /* bytes written from the zone start */
  uint32_t cond;
  uint32_t crc; /* used by the persistent table; maintained by the owner through on_change */
} zs_entry;

typedef struct zs_table {
  zkv_geometry geo;
  zs_entry *zones;
  uint32_t n_open, n_imp_open, n_active;
  uint32_t close_cursor; /* round robin over implicitly open zones when one must be closed */
  void (*on_change)(struct zs_table *t, uint32_t zone);
  void *owner;
} zs_table;

/* Recounts open/active zones from the conditions (after loading or a power cycle). */
void zs_recount(zs_table *t);
/* Checks a write (append = 0, rel = offset within the zone) or an append (append = 1), opens the
 * zone implicitly when needed and advances the write pointer. *assigned = the zone-relative
 * offset of the data. Returns 0 or a negative ZKV_ERR code. */
int zs_write(zs_table *t, uint32_t zone, uint64_t rel, uint64_t len, int append, uint64_t *assigned);
int zs_check_read(const zs_table *t, uint64_t offset, uint64_t len);
int zs_mgmt(zs_table *t, uint32_t zone, int action);
/* Sets a condition directly (faults, power cycles), keeping the counters right. */
void zs_set(zs_table *t, uint32_t zone, uint32_t cond, uint64_t written);
int zs_cond_valid(uint32_t cond);
const char *zs_status_name(int code);
#endif
