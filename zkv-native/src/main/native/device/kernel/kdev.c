/* Shared parts of the kernel-device backends (nvme:, zbd:): NVMe status mapping, synchronous
 * passthrough commands, request checks, error diagnosis, opening helpers, Identify geometry, the
 * zone report of the ng device and the I/O counters. Below the io_uring queues (kdev_queue.c); the
 * synchronous calls over them are kdev_sync.c. */
#define _GNU_SOURCE
#include "kdev.h"

#include <errno.h>
#include <limits.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "common/le_bytes.h"

#define ZE(s) ZKV_ERR(ZKV_NVME_##s)

int kdev_nvme_code(int res) {
  if (res <= 0) return res;
  int sc = res & 0x7FF; /* drop CRD, More and DNR */
  return sc ? ZKV_ERR(sc) : -EIO;
}

static int passthru(int fd, unsigned long req, kdev_cmd *c) {
  struct nvme_passthru_cmd64 p;
  memset(&p, 0, sizeof p);
  p.opcode = c->opcode;
  p.nsid = c->nsid;
  p.addr = (uint64_t)(uintptr_t)c->buf;
  p.data_len = c->len;
  p.cdw10 = c->cdw10, p.cdw11 = c->cdw11, p.cdw12 = c->cdw12;
  p.cdw13 = c->cdw13, p.cdw14 = c->cdw14, p.cdw15 = c->cdw15;
  int rc = ioctl(fd, req, &p);
  c->status = rc < 0 ? -errno : rc;
  c->result = p.result;
  return kdev_nvme_code(c->status);
}

int kdev_admin(int fd, kdev_cmd *c) { return passthru(fd, NVME_IOCTL_ADMIN64_CMD, c); }
int kdev_io_cmd(int fd, kdev_cmd *c) { return passthru(fd, NVME_IOCTL_IO64_CMD, c); }

int kdev_check(const kdev *d, const zkv_request *r) {
  const zkv_geometry *g = &d->base.geo;
  uint64_t lba = g->lba_size, bytes = (uint64_t)g->nr_zones * g->zone_size;
  switch (r->op) {
    case ZKV_OP_FLUSH: return 0;
    case ZKV_OP_APPEND:
      if (r->zone >= g->nr_zones) return ZE(LBA_OUT_OF_RANGE);
      if (!r->len || r->len % lba || r->len > g->zasl) return ZE(INVALID_FIELD);
      return 0;
    case ZKV_OP_READ:
    case ZKV_OP_WRITE:
      if (!r->len || r->len % lba || r->offset % lba) return ZE(INVALID_FIELD);
      if (r->offset >= bytes || r->len > bytes - r->offset) return ZE(LBA_OUT_OF_RANGE);
      /* Reads across zones are refused as on a device without Read Across Zone Boundaries (the
       * block layer would split them silently). */
      if (r->offset % g->zone_size + r->len > g->zone_size) return ZE(ZONE_BOUNDARY_ERROR);
      return 0;
    default: return -EINVAL;
  }
}

int kdev_diagnose(kdev *d, const zkv_request *r, int err) {
  const zkv_geometry *g = &d->base.geo;
  uint32_t zone = r->op == ZKV_OP_APPEND ? r->zone : (uint32_t)(r->offset / g->zone_size);
  zkv_zone z;
  if (r->op == ZKV_OP_FLUSH || zone >= g->nr_zones || kdev_report_one(d, zone, &z) < 0) return err;
  if (z.cond == ZKV_ZONE_OFFLINE) return ZE(ZONE_IS_OFFLINE);
  if (r->op == ZKV_OP_READ) return err;
  if (z.cond == ZKV_ZONE_READ_ONLY) return ZE(ZONE_IS_READ_ONLY);
  if (z.cond == ZKV_ZONE_FULL) return ZE(ZONE_IS_FULL);
  if (r->op == ZKV_OP_WRITE && r->offset != z.wp) return ZE(ZONE_INVALID_WRITE);
  uint64_t at = r->op == ZKV_OP_WRITE ? r->offset : z.wp;
  if (at + r->len > z.start + z.cap) return ZE(ZONE_BOUNDARY_ERROR);
  /* Refused although it would fit now: another request moved the write pointer to it since. */
  return r->op == ZKV_OP_WRITE ? ZE(ZONE_INVALID_WRITE) : err;
}

int64_t kdev_block_status(kdev *d, const zkv_request *r, int64_t res) {
  if (res == -EOVERFLOW) return ZE(TOO_MANY_ACTIVE_ZONES);
  if (res == -ETOOMANYREFS) return ZE(TOO_MANY_OPEN_ZONES);
  if (res == -EIO || res == -EREMOTEIO) return kdev_diagnose(d, r, (int)res);
  return res;
}

int kdev_close_fixup(kdev *d, uint32_t zone) {
  zkv_zone z;
  int rc = kdev_report_one(d, zone, &z);
  if (rc < 0) return rc;
  if (z.cond != ZKV_ZONE_CLOSED || z.wp != z.start) return 0;
  return d->base.be->zone_mgmt(&d->base, zone, ZKV_ZONE_RESET);
}

int kdev_finish_check(kdev *d, uint32_t zone) {
  const zkv_geometry *g = &d->base.geo;
  zkv_zone z;
  int rc;
  if (!g->max_active || (rc = kdev_report_one(d, zone, &z)) < 0 || z.cond != ZKV_ZONE_EMPTY) return 0;
  zkv_zone *all = calloc(g->nr_zones, sizeof *all);
  if (!all) return -ENOMEM;
  int n = d->base.be->report(&d->base, 0, all, g->nr_zones);
  uint32_t active = 0;
  for (int i = 0; i < n; i++)
    active += all[i].cond == ZKV_ZONE_IMP_OPEN || all[i].cond == ZKV_ZONE_EXP_OPEN || all[i].cond == ZKV_ZONE_CLOSED;
  free(all);
  if (n < 0) return n;
  return active >= g->max_active ? ZKV_ERR(ZKV_NVME_TOO_MANY_ACTIVE_ZONES) : 0;
}

int kdev_report_one(kdev *d, uint32_t zone, zkv_zone *out) {
  int rc = d->base.be->report(&d->base, zone, out, 1);
  return rc < 0 ? rc : rc == 1 ? 0 : -EIO;
}

kdev *kdev_alloc(const char *path, int kind, const zkv_backend *be) {
  kdev *d = calloc(1, sizeof *d);
  if (!d || !(d->path = strdup(path))) {
    free(d);
    return NULL;
  }
  d->kind = kind;
  d->base.be = be;
  d->base.profile = "device";
  d->ng_fd = d->blk_fd = -1;
  pthread_mutex_init(&d->pool_mu, NULL);
  return d;
}

/* The capacity of zone 0 stands for every zone's (the API has one zone_cap; reports give each
 * zone's own). */
int kdev_read_zone_cap(kdev *d) {
  /* zkv's geometry has one capacity for all zones (the request checks use it): zone 0's, and a
   * namespace whose zones differ is refused at open rather than mis-checked later. */
  enum { CHUNK = 256 };
  zkv_zone *all = malloc(CHUNK * sizeof *all);
  if (!all) return -ENOMEM;
  uint64_t cap = 0;
  int rc = 0;
  for (uint32_t first = 0; !rc && first < d->base.geo.nr_zones; first += CHUNK) {
    int n = d->base.be->report(&d->base, first, all, CHUNK);
    if (n <= 0) {
      rc = n < 0 ? n : -EIO;
      zkv_set_error("%s: cannot report zones from %u (%d)", d->path, first, rc);
      break;
    }
    if (first == 0) cap = all[0].cap;
    for (int i = 0; !rc && i < n; i++)
      if (all[i].cap != cap) {
        zkv_set_error("%s: zone %u has capacity %llu, zone 0 %llu; zkv needs one zone capacity", d->path, all[i].index,
                      (unsigned long long)all[i].cap, (unsigned long long)cap);
        rc = -EOPNOTSUPP;
      }
  }
  free(all);
  if (rc) return rc;
  if (!cap || cap > d->base.geo.zone_size) {
    zkv_set_error("%s: zone 0 has capacity %llu for a zone size of %llu", d->path, (unsigned long long)cap,
                  (unsigned long long)d->base.geo.zone_size);
    return -EINVAL;
  }
  d->base.geo.zone_cap = cap;
  if (d->base.geo.zasl > cap) d->base.geo.zasl = (uint32_t)cap;
  return 0;
}

long long kdev_sysfs_queue_num(const char *name, const char *attr) {
  char p[PATH_MAX], v[64];
  snprintf(p, sizeof p, "/sys/block/%s/queue/%s", name, attr);
  FILE *f = fopen(p, "r");
  if (!f) return -1;
  long long x = -1;
  if (fgets(v, sizeof v, f)) x = strtoll(v, NULL, 10);
  fclose(f);
  return x;
}

static int identify_ns_ids(int fd, uint32_t nsid, uint8_t ids[32]) {
  uint8_t *id = NULL;
  if (posix_memalign((void **)&id, 4096, 4096)) return -ENOMEM;
  kdev_cmd c = {.opcode = NVME_ADMIN_IDENTIFY, .nsid = nsid, .cdw10 = 0, .buf = id, .len = 4096};
  int rc = kdev_admin(fd, &c);
  if (!rc) {
    memcpy(ids, id, 8);            /* NSZE */
    memcpy(ids + 8, id + 104, 24); /* NGUID, EUI64 */
  }
  free(id);
  return rc;
}

int kdev_same_namespace(int blk_fd, int ng_fd, uint32_t ng_nsid) {
  int blk_nsid = ioctl(blk_fd, NVME_IOCTL_ID);
  if (blk_nsid <= 0 || (uint32_t)blk_nsid != ng_nsid) return 0;
  uint8_t a[32], b[32];
  if (identify_ns_ids(blk_fd, ng_nsid, a) || identify_ns_ids(ng_fd, ng_nsid, b)) return 0;
  return memcmp(a, b, sizeof a) == 0;
}

/* ---------- Identify ---------- */

/* Page size the controller's MDTS and ZASL are counted in: CAP.MPSMIN, which only the kernel
 * reads; assumed 4 KiB (MPSMIN = 0), as on QEMU and the x86 NVMe drives we know of. */
#define NVME_MIN_PAGE 4096u
/* Largest transfer zkv puts in one command: keeps a request within the kernel's segment limits
 * (127 segments of 4 KiB on nvme-pci) whatever the buffer's alignment. */
#define KDEV_MAX_XFER (256u * 1024u)

static int identify(kdev *d, int fd, uint32_t nsid, uint32_t cns, uint32_t csi, void *buf, const char *what) {
  kdev_cmd c = {.opcode = NVME_ADMIN_IDENTIFY, .nsid = nsid, .cdw10 = cns, .cdw11 = csi << 24, .buf = buf, .len = 4096};
  int rc = kdev_admin(fd, &c);
  if (rc)
    zkv_set_error("%s: Identify %s failed (%s %d)", d->path, what, c.status < 0 ? "errno" : "NVMe status",
                  c.status < 0 ? -c.status : c.status);
  return rc;
}

int kdev_identify_geometry(kdev *d, int fd) {
  uint8_t *id = NULL;
  if (posix_memalign((void **)&id, 4096, 4096)) return -ENOMEM;
  zkv_geometry *g = &d->base.geo;
  int rc = identify(d, fd, d->nsid, 0x00, 0, id, "Namespace");
  if (rc) goto out;
  uint64_t nsze = get64(id);
  uint8_t flbas = id[26];
  uint32_t fmt = (flbas & 0xFu) | (((flbas >> 5) & 0x3u) << 4);
  uint32_t lbaf = get32(id + 128 + 4 * fmt), lbads = (lbaf >> 16) & 0xFF, ms = lbaf & 0xFFFF;
  /* Metadata (extended LBAs or a separate buffer, protection information) would need a metadata
   * pointer or larger transfers than the data: refused rather than risking DMA past a buffer. */
  if (ms) {
    zkv_set_error(
        "%s: LBA format %u carries %u bytes of metadata per block%s; zkv supports formats without metadata "
        "(reformat the namespace, e.g. nvme format --lbaf=N)",
        d->path, fmt, ms, (flbas & 0x10) ? " (extended LBA)" : "");
    rc = -EOPNOTSUPP;
    goto out;
  }
  if (lbads < 9 || lbads > 16) {
    zkv_set_error("%s: LBA format %u has an unusable data size 2^%u", d->path, fmt, lbads);
    rc = -EINVAL;
    goto out;
  }
  d->lba_shift = lbads;
  if ((rc = identify(d, fd, d->nsid, 0x05, NVME_CSI_ZNS, id, "ZNS Namespace"))) {
    char why[256];
    snprintf(why, sizeof why, "%s", zkv_dev_last_error()); /* the message is rewritten below */
    zkv_set_error("%s is not a zoned namespace (Identify ZNS Namespace failed: %s)", d->path, why);
    goto out;
  }
  uint32_t mar = get32(id + 4), mor = get32(id + 8);
  uint64_t zsze = get64(id + 2816 + 16 * fmt);
  if ((rc = identify(d, fd, 0, 0x01, 0, id, "Controller"))) goto out;
  uint32_t mdts = id[77];
  if ((rc = identify(d, fd, 0, 0x06, NVME_CSI_ZNS, id, "ZNS Controller"))) goto out;
  uint32_t zasl = id[0];
  uint64_t mdts_bytes = mdts && mdts < 32 ? (uint64_t)NVME_MIN_PAGE << mdts : UINT64_MAX;
  d->max_xfer = (uint32_t)(mdts_bytes < KDEV_MAX_XFER ? mdts_bytes : KDEV_MAX_XFER);
  uint64_t zasl_bytes = zasl && zasl < 32 ? (uint64_t)NVME_MIN_PAGE << zasl : mdts_bytes;
  if (zsze == 0 || nsze < zsze) {
    zkv_set_error("%s: zone size %llu blocks does not fit the namespace of %llu", d->path, (unsigned long long)zsze,
                  (unsigned long long)nsze);
    rc = -EINVAL;
    goto out;
  }
  g->lba_size = 1u << lbads;
  g->zone_size = zsze << lbads;
  g->nr_zones = (uint32_t)(nsze / zsze);
  g->max_active = mar == UINT32_MAX ? 0 : mar + 1;
  g->max_open = mor == UINT32_MAX ? 0 : mor + 1;
  g->zasl = (uint32_t)(zasl_bytes < d->max_xfer ? zasl_bytes : d->max_xfer);
out:
  free(id);
  return rc;
}

/* ---------- zone report of the ng device ---------- */

static uint32_t zone_cond_of(uint8_t zs) { return (uint32_t)(zs >> 4); }

int kdev_nvme_report(kdev *d, uint32_t first, zkv_zone *out, uint32_t n) {
  const zkv_geometry *g = &d->base.geo;
  if (first >= g->nr_zones) return 0;
  if (n > g->nr_zones - first) n = g->nr_zones - first;
  uint32_t per = (d->max_xfer - ZNS_REPORT_HEADER) / ZNS_DESCRIPTOR;
  size_t bytes = ZNS_REPORT_HEADER + (size_t)per * ZNS_DESCRIPTOR;
  uint8_t *buf = NULL;
  if (posix_memalign((void **)&buf, 4096, bytes)) return -ENOMEM;
  uint32_t got = 0;
  int rc = 0;
  while (got < n) {
    uint32_t want = n - got < per ? n - got : per;
    uint32_t len = ZNS_REPORT_HEADER + want * ZNS_DESCRIPTOR;
    uint64_t slba = ((uint64_t)(first + got) * g->zone_size) >> d->lba_shift;
    kdev_cmd c = {.opcode = NVME_CMD_ZONE_MGMT_RECV,
                  .nsid = d->nsid,
                  .cdw10 = (uint32_t)slba,
                  .cdw11 = (uint32_t)(slba >> 32),
                  .cdw12 = len / 4 - 1,
                  .cdw13 = 1u << 16, /* Report Zones, all states, partial report */
                  .buf = buf,
                  .len = len};
    if ((rc = kdev_io_cmd(d->ng_fd, &c))) break;
    uint64_t nr = get64(buf);
    if (nr == 0) break;
    if (nr > want) nr = want;
    for (uint32_t i = 0; i < nr; i++) {
      const uint8_t *z = buf + ZNS_REPORT_HEADER + (size_t)i * ZNS_DESCRIPTOR;
      zkv_zone *o = &out[got + i];
      o->index = first + got + i;
      o->start = get64(z + 16) << d->lba_shift;
      o->cap = get64(z + 8) << d->lba_shift;
      o->cond = zone_cond_of(z[1]);
      uint64_t wp = get64(z + 24);
      /* The write pointer is not valid in Full, Read Only and Offline zones (all ones on QEMU):
       * full zones report start + capacity as the emulator does, the others their start. */
      if (o->cond == ZKV_ZONE_FULL)
        o->wp = o->start + o->cap;
      else if (o->cond == ZKV_ZONE_READ_ONLY || o->cond == ZKV_ZONE_OFFLINE || wp == UINT64_MAX)
        o->wp = o->start;
      else
        o->wp = wp << d->lba_shift;
    }
    got += (uint32_t)nr;
  }
  free(buf);
  atomic_fetch_add(&d->st[ST_REPORT], 1);
  return rc ? rc : (int)got;
}

void kdev_count(kdev *d, const zkv_request *r, int64_t res) {
  if (res < 0) return;
  switch (r->op) {
    case ZKV_OP_READ: atomic_fetch_add(&d->st[ST_R], 1), atomic_fetch_add(&d->st[ST_BR], r->len); break;
    case ZKV_OP_WRITE: atomic_fetch_add(&d->st[ST_W], 1), atomic_fetch_add(&d->st[ST_BW], r->len); break;
    case ZKV_OP_APPEND: atomic_fetch_add(&d->st[ST_A], 1), atomic_fetch_add(&d->st[ST_BA], r->len); break;
    case ZKV_OP_FLUSH: atomic_fetch_add(&d->st[ST_FLUSH], 1); break;
    default: break;
  }
}

int kdev_stats(zkv_dev *dev, zkv_dev_stats *out) {
  kdev *d = (kdev *)dev;
  uint64_t v[10];
  for (int i = 0; i < 10; i++) v[i] = atomic_load(&d->st[i]);
  *out = (zkv_dev_stats){.bytes_written = v[ST_BW],
                         .bytes_appended = v[ST_BA],
                         .bytes_read = v[ST_BR],
                         .writes = v[ST_W],
                         .appends = v[ST_A],
                         .reads = v[ST_R],
                         .resets = v[ST_RESET],
                         .finishes = v[ST_FINISH],
                         .flushes = v[ST_FLUSH],
                         .reports = v[ST_REPORT]};
  return 0;
}
