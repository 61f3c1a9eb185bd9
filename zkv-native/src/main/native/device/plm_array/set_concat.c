/* Namespaces concatenated as NVM Sets (set_concat.h). */
#define _GNU_SOURCE
#include "set_concat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/le_bytes.h"
#include "common/sync_queue.h"
#include "kernel/kdev.h"

#define MAX_MEMBERS 64
#define CTRATT_NVM_SETS (1u << 2)
#define CTRATT_PLM (1u << 5)
#define ID_CTRL_SERIAL 4 /* Identify Controller: Serial Number, bytes 23:04 */
#define ID_CTRL_SERIAL_LEN 20
#define ID_CTRL_CTRATT 96
#define ID_NS_NVMSETID 100 /* Identify Namespace: NVM Set Identifier, bytes 101:100 */

typedef struct member {
  zkv_dev *dev;
  uint32_t first_zone;
} member;

typedef struct sc_dev {
  zkv_dev base;
  uint32_t n;
  member m[MAX_MEMBERS];
  uint16_t nvm_set[MAX_MEMBERS]; /* each namespace's NVM Set Identifier; 0: the drive has none */
  uint32_t ctratt;
} sc_dev;

static sc_dev *SC(zkv_dev *d) { return (sc_dev *)d; }

/* The member holding `zone`, and the zone's number there. */
static member *member_of(sc_dev *c, uint32_t zone, uint32_t *local) {
  uint32_t i = c->n - 1;
  while (i && c->m[i].first_zone > zone) i--;
  *local = zone - c->m[i].first_zone;
  return &c->m[i];
}

static uint64_t zone_bytes(const sc_dev *c, uint32_t zones) { return (uint64_t)zones * c->base.geo.zone_size; }

static int sc_report(zkv_dev *d, uint32_t first, zkv_zone *out, uint32_t n) {
  sc_dev *c = SC(d);
  uint32_t done = 0;
  while (done < n && first + done < d->geo.nr_zones) {
    uint32_t local, z = first + done;
    member *m = member_of(c, z, &local);
    uint32_t want = m->dev->geo.nr_zones - local < n - done ? m->dev->geo.nr_zones - local : n - done;
    int got = zkv_dev_report(m->dev, local, out + done, want);
    if (got < 0) return got;
    uint64_t base = zone_bytes(c, m->first_zone);
    for (int k = 0; k < got; k++) {
      zkv_zone *x = &out[done + (uint32_t)k];
      x->start += base, x->wp += base, x->index += m->first_zone;
    }
    done += (uint32_t)got;
    if ((uint32_t)got < want) break;
  }
  return (int)done;
}

static int sc_zone_mgmt(zkv_dev *d, uint32_t zone, int action) {
  if (zone >= d->geo.nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  uint32_t local;
  member *m = member_of(SC(d), zone, &local);
  return zkv_dev_zone_mgmt(m->dev, local, action);
}

/* The member an I/O at `offset` goes to, and the offset there. */
static member *member_at(sc_dev *c, uint64_t offset, uint64_t *local) {
  uint64_t zone = offset / c->base.geo.zone_size;
  uint32_t lz;
  member *m = member_of(c, zone < c->base.geo.nr_zones ? (uint32_t)zone : c->base.geo.nr_zones - 1, &lz);
  *local = offset - zone_bytes(c, m->first_zone);
  return m;
}

static int sc_write(zkv_dev *d, uint64_t offset, const void *buf, size_t len, int flags) {
  uint64_t local;
  member *m = member_at(SC(d), offset, &local);
  return zkv_dev_write(m->dev, local, buf, len, flags);
}

static int64_t sc_append(zkv_dev *d, uint32_t zone, const void *buf, size_t len, int flags) {
  if (zone >= d->geo.nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  sc_dev *c = SC(d);
  uint32_t local;
  member *m = member_of(c, zone, &local);
  int64_t r = zkv_dev_append(m->dev, local, buf, len, flags);
  return r < 0 ? r : r + (int64_t)zone_bytes(c, m->first_zone);
}

/* A read may span members: each part goes to its own. */
static int sc_read(zkv_dev *d, uint64_t offset, void *buf, size_t len) {
  sc_dev *c = SC(d);
  while (len) {
    uint64_t local;
    member *m = member_at(c, offset, &local);
    uint64_t end = zone_bytes(c, m->dev->geo.nr_zones), room = end > local ? end - local : len;
    size_t n = room < len ? (size_t)room : len;
    int rc = zkv_dev_read(m->dev, local, buf, n);
    if (rc) return rc;
    offset += n, buf = (uint8_t *)buf + n, len -= n;
  }
  return 0;
}

/* Reads on the namespaces at once (dev_read_parallel): each submitted on a pooled ring of its
 * member, then each waited for; emulated stand-ins are read one after the other. */
static int sc_read_parallel(zkv_dev *d, int n, const uint64_t *offset, uint8_t *const *buf, const size_t *len) {
  sc_dev *c = SC(d);
  zkv_queue *ring[DEV_READ_PARALLEL_MAX] = {0};
  kdev *on[DEV_READ_PARALLEL_MAX] = {0};
  int code[DEV_READ_PARALLEL_MAX] = {0}, rc = 0;
  for (int i = 0; !rc && i < n; i++) {
    uint64_t local;
    member *m = member_at(c, offset[i], &local);
    if (!kdev_is(m->dev)) { /* an emulated stand-in: one after the other */
      rc = zkv_dev_read(m->dev, local, buf[i], len[i]);
      continue;
    }
    zkv_request r = {.op = ZKV_OP_READ, .offset = local, .buf = buf[i], .len = len[i]};
    on[i] = (kdev *)m->dev;
    code[i] = kdev_sync_submit(on[i], &r, &ring[i]);
    if (!ring[i]) rc = code[i], on[i] = NULL;
  }
  for (int i = 0; i < n; i++) /* every submitted read completes before the buffers go back */
    if (on[i]) {
      int64_t r = kdev_sync_wait(on[i], ring[i], code[i]);
      if (!rc && r < 0) rc = (int)r;
    }
  return rc;
}

static int sc_flush(zkv_dev *d) {
  sc_dev *c = SC(d);
  int rc = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    int r = zkv_dev_flush(c->m[i].dev);
    if (!rc) rc = r;
  }
  return rc;
}

_Static_assert(sizeof(zkv_dev_stats) % sizeof(uint64_t) == 0 && sizeof(zkv_dev_stats) == 11 * sizeof(uint64_t),
               "sc_stats adds zkv_dev_stats up as uint64_t fields");

static int sc_stats(zkv_dev *d, zkv_dev_stats *out) {
  sc_dev *c = SC(d);
  *out = (zkv_dev_stats){0};
  for (uint32_t i = 0; i < c->n; i++) {
    zkv_dev_stats s;
    int rc = zkv_dev_stats_get(c->m[i].dev, &s);
    if (rc) return rc;
    uint64_t *to = (uint64_t *)out;
    const uint64_t *from = (const uint64_t *)&s;
    for (size_t k = 0; k < sizeof s / sizeof(uint64_t); k++) to[k] += from[k];
  }
  return 0;
}

/* The array's NVM Set `id` (1-based member order) as the drive numbers it. */
static uint32_t drive_set(const uint16_t *nvm_set, uint32_t n, uint32_t id) {
  return id >= 1 && id <= n && nvm_set[id - 1] ? nvm_set[id - 1] : id;
}

static int is_plm_feature(const zkv_admin_cmd *cmd) {
  return (cmd->opcode == NVME_ADMIN_SET_FEATURES || cmd->opcode == NVME_ADMIN_GET_FEATURES) &&
         (admin_id(cmd) == 0x13 || admin_id(cmd) == 0x14);
}

void set_concat_to_drive(const uint16_t *nvm_set, uint32_t n, zkv_admin_cmd *cmd) {
  uint32_t cdw11 = cmd->cdw11;
  if (is_plm_feature(cmd)) cmd->cdw11 = (cdw11 & ~0xFFFFu) | (drive_set(nvm_set, n, cdw11 & 0xFFFF) & 0xFFFF);
  if (admin_is_log(cmd, 0x0A)) cmd->cdw11 = (cdw11 & 0xFFFFu) | (drive_set(nvm_set, n, cdw11 >> 16) << 16);
}

void set_concat_from_drive(const uint16_t *nvm_set, uint32_t n, zkv_admin_cmd *cmd) {
  if (!admin_is_log(cmd, 0x0B) || !cmd->buf || cmd->len < 8) return;
  /* Predictable Latency Event Aggregate: an entry count (bytes 7:0), then 2-byte NVM Set IDs */
  uint8_t *b = cmd->buf;
  uint64_t entries = get64(b);
  for (uint64_t e = 0; e < entries && 8 + 2 * e + 2 <= cmd->len; e++) {
    uint16_t id = get16(b + 8 + 2 * e);
    for (uint32_t i = 0; id && i < n; i++)
      if (nvm_set[i] == id) {
        put16(b + 8 + 2 * e, (uint16_t)(i + 1));
        break;
      }
  }
}

/* The PLM commands name NVM Sets in the array's numbering; the drive's own go to the controller
 * and come back translated (the command's CDW11 is restored). */
static int sc_admin(zkv_dev *d, zkv_admin_cmd *cmd) {
  sc_dev *c = SC(d);
  uint32_t cdw11 = cmd->cdw11;
  set_concat_to_drive(c->nvm_set, c->n, cmd);
  int rc = zkv_dev_nvme_admin(c->m[0].dev, cmd);
  cmd->cdw11 = cdw11;
  if (!rc) set_concat_from_drive(c->nvm_set, c->n, cmd);
  return rc;
}

static void close_members(sc_dev *c) {
  for (uint32_t i = 0; i < c->n; i++) zkv_dev_close(c->m[i].dev);
  free(c);
}

static void sc_close(zkv_dev *d) { close_members(SC(d)); }

const zkv_backend zkv_set_concat_backend = {
    .scheme = "sets",
    .close = sc_close,
    .report = sc_report,
    .zone_mgmt = sc_zone_mgmt,
    .write = sc_write,
    .append = sc_append,
    .read = sc_read,
    .flush = sc_flush,
    .queue_create = sync_queue_create,
    .synchronous_queues = 1,
    .queue_destroy = sync_queue_destroy,
    .queue_submit = sync_queue_submit,
    .queue_reap = sync_queue_reap,
    .queue_inflight = sync_queue_inflight,
    .stats = sc_stats,
    .admin = sc_admin,
    .read_parallel = sc_read_parallel,
};

int set_concat_is(const zkv_dev *d) { return d && d->be == &zkv_set_concat_backend; }
uint32_t set_concat_members(const zkv_dev *d) { return set_concat_is(d) ? ((const sc_dev *)d)->n : 0; }
int set_concat_plm(const zkv_dev *d) { return set_concat_is(d) && (((const sc_dev *)d)->ctratt & CTRATT_PLM); }

int set_concat_member(const zkv_dev *d, uint32_t i, uint32_t *first_zone, uint32_t *nr_zones) {
  if (!set_concat_is(d) || i >= ((const sc_dev *)d)->n) return -EINVAL;
  const member *m = &((const sc_dev *)d)->m[i];
  *first_zone = m->first_zone, *nr_zones = m->dev->geo.nr_zones;
  return 0;
}

/* Identify (CNS `cns`) of a member into `page` (4096 bytes); -EOPNOTSUPP without admin commands. */
static int identify(zkv_dev *dev, uint32_t cns, uint32_t nsid, uint8_t *page) {
  zkv_admin_cmd cmd = {.opcode = NVME_ADMIN_IDENTIFY, .nsid = nsid, .cdw10 = cns, .buf = page, .len = 4096};
  return zkv_dev_nvme_admin(dev, &cmd);
}

/* The controller's attributes (member 0), one controller for all (the same serial number), and
 * each namespace's NVM Set: distinct when the controller has NVM Sets. Members that answer no
 * admin commands (zbd:, emulated stand-ins) make a composition without PLM; an emulated PLM
 * device is refused (its sets are zones: plmarray:emu:...?profile=plm composes it). */
/* Member i's Identify Controller into page: 0, -EOPNOTSUPP (it answers no admin commands), or a
 * refusal: an emulated PLM device, or a member unlike the first (whose answer is `first`). */
static int identify_member(sc_dev *c, uint32_t i, const char *list, int first, uint8_t *page) {
  int r = identify(c->m[i].dev, 1, 0, page);
  if (r != -EOPNOTSUPP && !kdev_is(c->m[i].dev)) {
    zkv_set_error(
        "plmarray: member %u of %s is an emulated PLM device, whose NVM Sets are zones: compose it "
        "alone (plmarray:emu:...?profile=plm)",
        i + 1, list);
    return -EINVAL;
  }
  if (i && (first == -EOPNOTSUPP) != (r == -EOPNOTSUPP)) {
    zkv_set_error("plmarray: member %u of %s %s admin commands and member 1 %s: list the namespaces of one drive",
                  i + 1, list, r == -EOPNOTSUPP ? "answers no" : "answers", r == -EOPNOTSUPP ? "does" : "does not");
    return -EINVAL;
  }
  return r;
}

static int read_sets(sc_dev *c, const char *list) {
  uint8_t *page = aligned_alloc(4096, 4096), serial[ID_CTRL_SERIAL_LEN];
  if (!page) return -ENOMEM;
  int first = identify_member(c, 0, list, 0, page), rc = first == -EOPNOTSUPP ? 0 : first;
  if (!rc && !first) c->ctratt = get32(page + ID_CTRL_CTRATT), memcpy(serial, page + ID_CTRL_SERIAL, sizeof serial);
  for (uint32_t i = 1; !rc && i < c->n; i++) {
    int r = identify_member(c, i, list, first, page);
    if (r == -EOPNOTSUPP) continue;
    if (!(rc = r) && memcmp(serial, page + ID_CTRL_SERIAL, sizeof serial)) {
      zkv_set_error(
          "plmarray: the namespaces of %s are not all on one controller (serial numbers differ at "
          "member %u): the NVM Sets of one drive are composed",
          list, i + 1);
      rc = -EINVAL;
    }
  }
  for (uint32_t i = 0; !rc && (c->ctratt & CTRATT_NVM_SETS) && i < c->n; i++) {
    if ((rc = identify(c->m[i].dev, 0, kdev_nsid(c->m[i].dev), page))) break;
    c->nvm_set[i] = get16(page + ID_NS_NVMSETID);
    for (uint32_t j = 0; !rc && j < i; j++)
      if (c->nvm_set[j] == c->nvm_set[i]) {
        zkv_set_error("plmarray: members %u and %u of %s are both in NVM Set %u: each set is one namespace", j + 1,
                      i + 1, list, c->nvm_set[i]);
        rc = -EINVAL;
      }
  }
  free(page);
  return rc;
}

/* Equal zones everywhere (the array stripes zone g of every kv-set); limits: the smallest. */
static int check_geometry(sc_dev *c, const char *list) {
  zkv_geometry *g = &c->base.geo, *f = &c->m[0].dev->geo;
  *g = (zkv_geometry){.lba_size = f->lba_size, .zone_size = f->zone_size, .zone_cap = f->zone_cap, .zasl = f->zasl};
  for (uint32_t i = 0; i < c->n; i++) {
    const zkv_geometry *m = &c->m[i].dev->geo;
    if (m->lba_size != g->lba_size || m->zone_size != g->zone_size || m->zone_cap != g->zone_cap || m->flags) {
      zkv_set_error(
          "plmarray: member %u of %s has %u-byte blocks and zones of %llu bytes (capacity %llu); member 1 "
          "has %u, %llu (%llu): the sets must have the same zones",
          i + 1, list, m->lba_size, (unsigned long long)m->zone_size, (unsigned long long)m->zone_cap, g->lba_size,
          (unsigned long long)g->zone_size, (unsigned long long)g->zone_cap);
      return -EINVAL;
    }
    c->m[i].first_zone = g->nr_zones;
    g->nr_zones += m->nr_zones;
    if (m->zasl < g->zasl) g->zasl = m->zasl;
    /* Limits are per namespace; the array divides a device-wide one among the sets, so the
     * smallest member's is a safe bound (assumption: no controller-wide limit below it). */
    if (m->max_open && (!g->max_open || m->max_open < g->max_open)) g->max_open = m->max_open;
    if (m->max_active && (!g->max_active || m->max_active < g->max_active)) g->max_active = m->max_active;
  }
  return 0;
}

zkv_dev *set_concat_open(const char *list, int *err) {
  sc_dev *c = calloc(1, sizeof *c);
  char *copy = strdup(list), *save = NULL;
  if (!c || !copy) {
    free(copy);
    free(c);
    *err = -ENOMEM;
    return NULL;
  }
  int rc = 0;
  for (char *uri = strtok_r(copy, ",", &save); !rc && uri; uri = strtok_r(NULL, ",", &save)) {
    if (c->n == MAX_MEMBERS || strncmp(uri, "plmarray:", 9) == 0) {
      zkv_set_error(c->n == MAX_MEMBERS ? "plmarray: %s lists more than %d namespaces"
                                        : "plmarray: %s: a member cannot be a plmarray: itself",
                    list, MAX_MEMBERS);
      rc = -EINVAL;
    } else if ((c->m[c->n].dev = zkv_dev_open(uri, &rc))) {
      c->n++, rc = 0; /* zkv_dev_open leaves its code set on success */
    }
  }
  free(copy);
  if (!rc && !c->n) {
    zkv_set_error("plmarray: '%s' lists no device", list);
    rc = -EINVAL;
  }
  if (!rc) rc = check_geometry(c, list);
  if (!rc) rc = read_sets(c, list);
  if (rc) {
    *err = rc;
    close_members(c);
    return NULL;
  }
  *err = 0;
  zkv_set_error("%s", ""); /* the members' refused admin commands leave their messages */
  c->base.be = &zkv_set_concat_backend;
  c->base.profile = c->m[0].dev->profile;
  return &c->base;
}
