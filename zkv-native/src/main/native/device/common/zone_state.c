#include "zone_state.h"

#include <errno.h>

static int is_open(uint32_t c) { return c == ZKV_ZONE_IMP_OPEN || c == ZKV_ZONE_EXP_OPEN; }
static int is_active(uint32_t c) { return is_open(c) || c == ZKV_ZONE_CLOSED; }

int zs_cond_valid(uint32_t c) {
  switch (c) {
    case ZKV_ZONE_EMPTY:
    case ZKV_ZONE_IMP_OPEN:
    case ZKV_ZONE_EXP_OPEN:
    case ZKV_ZONE_CLOSED:
    case ZKV_ZONE_READ_ONLY:
    case ZKV_ZONE_FULL:
    case ZKV_ZONE_OFFLINE: return 1;
    default: return 0;
  }
}

void zs_set(zs_table *t, uint32_t zone, uint32_t cond, uint64_t written) {
  zs_entry *z = &t->zones[zone];
  uint32_t old = z->cond;
  t->n_open -= is_open(old);
  t->n_imp_open -= old == ZKV_ZONE_IMP_OPEN;
  t->n_active -= is_active(old);
  __atomic_store_n(&z->cond, cond, __ATOMIC_RELEASE);
  __atomic_store_n(&z->written, written, __ATOMIC_RELEASE);
  t->n_open += is_open(cond);
  t->n_imp_open += cond == ZKV_ZONE_IMP_OPEN;
  t->n_active += is_active(cond);
  if (t->on_change) t->on_change(t, zone);
}

void zs_recount(zs_table *t) {
  t->n_open = t->n_imp_open = t->n_active = 0;
  for (uint32_t i = 0; i < t->geo.nr_zones; i++) {
    uint32_t c = t->zones[i].cond;
    t->n_open += is_open(c);
    t->n_imp_open += c == ZKV_ZONE_IMP_OPEN;
    t->n_active += is_active(c);
  }
}

/* A zone left open with nothing written goes back to Empty when closed (as Linux expects). */
static void close_zone(zs_table *t, uint32_t zone) {
  zs_entry *z = &t->zones[zone];
  zs_set(t, zone, z->written == 0 ? ZKV_ZONE_EMPTY : ZKV_ZONE_CLOSED, z->written);
}

/* Like the spec allows (and null_blk does): when the open limit is reached, an implicitly opened
 * zone is closed to make room; only explicitly opened zones make an open fail. */
static int reserve_open(zs_table *t, uint32_t except) {
  if (t->geo.max_open == 0 || t->n_open < t->geo.max_open) return 0;
  if (t->n_imp_open == 0) return ZKV_ERR(ZKV_NVME_TOO_MANY_OPEN_ZONES);
  for (uint32_t k = 0; k < t->geo.nr_zones; k++) {
    uint32_t i = (t->close_cursor + k) % t->geo.nr_zones;
    if (i != except && t->zones[i].cond == ZKV_ZONE_IMP_OPEN) {
      close_zone(t, i);
      t->close_cursor = i + 1;
      return 0;
    }
  }
  return ZKV_ERR(ZKV_NVME_TOO_MANY_OPEN_ZONES);
}

static int reserve_active(const zs_table *t) {
  if (t->geo.max_active && t->n_active >= t->geo.max_active) return ZKV_ERR(ZKV_NVME_TOO_MANY_ACTIVE_ZONES);
  return 0;
}

/* Resources for leaving Empty or Closed into an open condition. */
static int reserve_for_open(zs_table *t, uint32_t zone) {
  uint32_t c = t->zones[zone].cond;
  if (c == ZKV_ZONE_EMPTY) {
    int rc = reserve_active(t);
    if (rc) return rc;
  }
  if (c == ZKV_ZONE_EMPTY || c == ZKV_ZONE_CLOSED) return reserve_open(t, zone);
  return 0;
}

static int unusable(uint32_t c) {
  if (c == ZKV_ZONE_OFFLINE) return ZKV_ERR(ZKV_NVME_ZONE_IS_OFFLINE);
  if (c == ZKV_ZONE_READ_ONLY) return ZKV_ERR(ZKV_NVME_ZONE_IS_READ_ONLY);
  return 0;
}

int zs_write(zs_table *t, uint32_t zone, uint64_t rel, uint64_t len, int append, uint64_t *assigned) {
  const zkv_geometry *g = &t->geo;
  if (zone >= g->nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE); /* LBA Out of Range */
  if (len == 0 || len % g->lba_size || rel % g->lba_size) return ZKV_ERR(ZKV_NVME_INVALID_FIELD);
  if (append && len > g->zasl) return ZKV_ERR(ZKV_NVME_INVALID_FIELD);
  zs_entry *z = &t->zones[zone];
  int rc = unusable(z->cond);
  if (rc) return rc;
  if (z->cond == ZKV_ZONE_FULL) return ZKV_ERR(ZKV_NVME_ZONE_IS_FULL);
  if (!append && rel != z->written) return ZKV_ERR(ZKV_NVME_ZONE_INVALID_WRITE);
  if (len > g->zone_cap - z->written) return ZKV_ERR(ZKV_NVME_ZONE_BOUNDARY_ERROR); /* no overflow */
  rc = reserve_for_open(t, zone);
  if (rc) return rc;
  *assigned = z->written;
  uint64_t w = z->written + len;
  uint32_t cond = z->cond == ZKV_ZONE_EXP_OPEN ? ZKV_ZONE_EXP_OPEN : ZKV_ZONE_IMP_OPEN;
  zs_set(t, zone, w == g->zone_cap ? ZKV_ZONE_FULL : cond, w);
  return 0;
}

int zs_check_read(const zs_table *t, uint64_t offset, uint64_t len) {
  const zkv_geometry *g = &t->geo;
  if (len == 0 || len % g->lba_size || offset % g->lba_size) return ZKV_ERR(ZKV_NVME_INVALID_FIELD);
  uint64_t zone = offset / g->zone_size;
  if (zone >= g->nr_zones || len > (uint64_t)g->nr_zones * g->zone_size - offset)
    return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  /* Read Across Zone Boundaries is not supported, as on most ZNS drives. */
  if ((offset + len - 1) / g->zone_size != zone) return ZKV_ERR(ZKV_NVME_ZONE_BOUNDARY_ERROR);
  if (__atomic_load_n(&t->zones[zone].cond, __ATOMIC_ACQUIRE) == ZKV_ZONE_OFFLINE)
    return ZKV_ERR(ZKV_NVME_ZONE_IS_OFFLINE);
  return 0;
}

int zs_mgmt(zs_table *t, uint32_t zone, int action) {
  if (zone >= t->geo.nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  zs_entry *z = &t->zones[zone];
  uint32_t c = z->cond;
  const int bad = ZKV_ERR(ZKV_NVME_INVALID_ZONE_STATE_TRANSITION);
  if (action != ZKV_ZONE_OPEN && action != ZKV_ZONE_CLOSE && action != ZKV_ZONE_FINISH && action != ZKV_ZONE_RESET)
    return ZKV_ERR(ZKV_NVME_INVALID_FIELD); /* a field error, whatever the zone's condition */
  if (c == ZKV_ZONE_OFFLINE || c == ZKV_ZONE_READ_ONLY) return bad;
  int rc;
  switch (action) {
    case ZKV_ZONE_OPEN:
      if (c == ZKV_ZONE_FULL) return bad;
      if (c == ZKV_ZONE_EXP_OPEN) return 0;
      if ((rc = reserve_for_open(t, zone))) return rc;
      zs_set(t, zone, ZKV_ZONE_EXP_OPEN, z->written);
      return 0;
    case ZKV_ZONE_CLOSE:
      if (c == ZKV_ZONE_CLOSED) return 0;
      if (!is_open(c)) return bad;
      close_zone(t, zone);
      return 0;
    case ZKV_ZONE_FINISH:
      if (c == ZKV_ZONE_FULL) return 0;
      if (c == ZKV_ZONE_EMPTY && (rc = reserve_active(t))) return rc;
      zs_set(t, zone, ZKV_ZONE_FULL, t->geo.zone_cap);
      return 0;
    case ZKV_ZONE_RESET:
      if (c != ZKV_ZONE_EMPTY || z->written) zs_set(t, zone, ZKV_ZONE_EMPTY, 0);
      return 0;
    default: return ZKV_ERR(ZKV_NVME_INVALID_FIELD);
  }
}

const char *zs_status_name(int code) {
  if (code >= 0) return "success";
  int v = -code;
  if (!(v & ZKV_ZNS_BASE)) return "host error";
  switch (v & 0xFFFF) {
    case ZKV_NVME_INVALID_FIELD: return "Invalid Field in Command";
    case ZKV_NVME_LBA_OUT_OF_RANGE: return "LBA Out of Range";
    case ZKV_NVME_ZONE_BOUNDARY_ERROR: return "Zone Boundary Error";
    case ZKV_NVME_ZONE_IS_FULL: return "Zone Is Full";
    case ZKV_NVME_ZONE_IS_READ_ONLY: return "Zone Is Read Only";
    case ZKV_NVME_ZONE_IS_OFFLINE: return "Zone Is Offline";
    case ZKV_NVME_ZONE_INVALID_WRITE: return "Zone Invalid Write";
    case ZKV_NVME_TOO_MANY_ACTIVE_ZONES: return "Too Many Active Zones";
    case ZKV_NVME_TOO_MANY_OPEN_ZONES: return "Too Many Open Zones";
    case ZKV_NVME_INVALID_ZONE_STATE_TRANSITION: return "Invalid Zone State Transition";
    default: return "NVMe error";
  }
}
