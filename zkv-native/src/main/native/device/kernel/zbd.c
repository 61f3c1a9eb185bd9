/* The zbd: backend: a zoned block device (/dev/nvmeXnY) through the kernel's block layer. Zone
 * reports and management use the BLK*ZONE ioctls, data moves with O_DIRECT on io_uring, limits
 * come from sysfs (/sys/block/NAME/queue). The block layer has no zone append for user space, so
 * appends go as NVMe Zone Append commands through the matching generic device /dev/ngXnY. A device
 * without one (not NVMe, or no ng node) gets emulated appends: under a lock per zone, the zone's
 * write pointer is read and the data written there (append_emulated).
 *
 * The block layer reports most ZNS statuses as EIO (Too Many Active/Open have errnos of their
 * own); a failed command's status is then derived from a zone report (kdev_diagnose). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kdev.h"

#define SECTOR_SHIFT 9
#define REPORT_CHUNK 128u

static int zbd_report(zkv_dev *dev, uint32_t first, zkv_zone *out, uint32_t n) {
  kdev *d = (kdev *)dev;
  const zkv_geometry *g = &dev->geo;
  if (first >= g->nr_zones) return 0;
  if (n > g->nr_zones - first) n = g->nr_zones - first;
  struct blk_zone_report *r = malloc(sizeof *r + REPORT_CHUNK * sizeof(struct blk_zone));
  if (!r) return -ENOMEM;
  uint32_t got = 0;
  int rc = 0;
  while (got < n) {
    memset(r, 0, sizeof *r);
    r->sector = ((uint64_t)(first + got) * g->zone_size) >> SECTOR_SHIFT;
    r->nr_zones = n - got < REPORT_CHUNK ? n - got : REPORT_CHUNK;
    if (ioctl(d->blk_fd, BLKREPORTZONE, r) < 0) {
      rc = -errno;
      break;
    }
    if (r->nr_zones == 0) break;
    for (uint32_t i = 0; i < r->nr_zones && got < n; i++, got++) {
      const struct blk_zone *z = &r->zones[i];
      zkv_zone *o = &out[got];
      o->index = first + got;
      o->start = z->start << SECTOR_SHIFT;
      o->cap = ((r->flags & BLK_ZONE_REP_CAPACITY) ? z->capacity : z->len) << SECTOR_SHIFT;
      o->cond = z->cond; /* the block layer numbers conditions as the ZNS Zone State field */
      /* Linux reports a full zone's write pointer at start + size; zkv says start + capacity. */
      /* Read-only and offline zones have no valid write pointer: they report their start, as on nvme:. */
      o->wp = z->cond == BLK_ZONE_COND_FULL                                           ? o->start + o->cap
              : z->cond == BLK_ZONE_COND_READONLY || z->cond == BLK_ZONE_COND_OFFLINE ? o->start
                                                                                      : z->wp << SECTOR_SHIFT;
    }
  }
  free(r);
  atomic_fetch_add(&d->st[ST_REPORT], 1);
  return rc ? rc : (int)got;
}

/* The status of a refused zone management command, from the zone's condition. */
static int diagnose_mgmt(kdev *d, uint32_t zone, int action, int err) {
  if (err == -EOVERFLOW) return ZKV_ERR(ZKV_NVME_TOO_MANY_ACTIVE_ZONES);
  if (err == -ETOOMANYREFS) return ZKV_ERR(ZKV_NVME_TOO_MANY_OPEN_ZONES);
  zkv_zone z;
  if (err != -EIO || kdev_report_one(d, zone, &z) < 0) return err;
  int ro_off = z.cond == ZKV_ZONE_READ_ONLY || z.cond == ZKV_ZONE_OFFLINE;
  int refused = ro_off || (action == ZKV_ZONE_OPEN && z.cond == ZKV_ZONE_FULL) ||
                (action == ZKV_ZONE_CLOSE && (z.cond == ZKV_ZONE_EMPTY || z.cond == ZKV_ZONE_FULL));
  return refused ? ZKV_ERR(ZKV_NVME_INVALID_ZONE_STATE_TRANSITION) : err;
}

/* Appends of this process to one zone are serialized; another writer of the zone (a write at the
 * write pointer, another process) can still make one fail with Zone Invalid Write, as it would
 * make a real append's neighbour write fail. Costs a zone report per append. */
static int64_t append_emulated(kdev *d, const zkv_request *r) {
  pthread_mutex_t *mu = &d->append_locks[r->zone % KDEV_APPEND_LOCKS];
  pthread_mutex_lock(mu);
  zkv_zone z;
  int64_t res = kdev_report_one(d, r->zone, &z);
  if (res == 0) {
    if (z.cond == ZKV_ZONE_OFFLINE)
      res = ZKV_ERR(ZKV_NVME_ZONE_IS_OFFLINE);
    else if (z.cond == ZKV_ZONE_READ_ONLY)
      res = ZKV_ERR(ZKV_NVME_ZONE_IS_READ_ONLY);
    else if (z.cond == ZKV_ZONE_FULL)
      res = ZKV_ERR(ZKV_NVME_ZONE_IS_FULL);
    else if (z.wp + r->len > z.start + z.cap)
      res = ZKV_ERR(ZKV_NVME_ZONE_BOUNDARY_ERROR);
  }
  if (res == 0) {
    void *bounce = NULL;
    const void *buf = r->buf;
    if ((uintptr_t)buf % d->base.geo.lba_size) {
      if (posix_memalign(&bounce, 4096, r->len)) bounce = NULL;
      if (bounce) memcpy(bounce, buf, r->len);
      buf = bounce;
    }
    struct iovec iov = {.iov_base = (void *)buf, .iov_len = r->len};
    ssize_t n = !buf ? -1 : pwritev2(d->blk_fd, &iov, 1, (off_t)z.wp, (r->flags & ZKV_IO_FUA) ? RWF_DSYNC : 0);
    int e = !buf ? ENOMEM : errno;
    free(bounce);
    zkv_request w = {.op = ZKV_OP_WRITE, .offset = z.wp, .len = r->len};
    res = n == (ssize_t)r->len ? (int64_t)z.wp : kdev_block_status(d, &w, n < 0 ? -e : -EIO);
  }
  pthread_mutex_unlock(mu);
  return res;
}

static int zbd_zone_mgmt(zkv_dev *dev, uint32_t zone, int action) {
  kdev *d = (kdev *)dev;
  if (zone >= dev->geo.nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  unsigned long req;
  switch (action) {
    case ZKV_ZONE_OPEN: req = BLKOPENZONE; break;
    case ZKV_ZONE_CLOSE: req = BLKCLOSEZONE; break;
    case ZKV_ZONE_FINISH: req = BLKFINISHZONE; break;
    case ZKV_ZONE_RESET: req = BLKRESETZONE; break;
    default: return -EINVAL;
  }
  int rc = action == ZKV_ZONE_FINISH ? kdev_finish_check(d, zone) : 0;
  if (rc) return rc;
  struct blk_zone_range range = {.sector = ((uint64_t)zone * dev->geo.zone_size) >> SECTOR_SHIFT,
                                 .nr_sectors = dev->geo.zone_size >> SECTOR_SHIFT};
  if (ioctl(d->blk_fd, req, &range) < 0) return diagnose_mgmt(d, zone, action, -errno);
  if (action == ZKV_ZONE_RESET) atomic_fetch_add(&d->st[ST_RESET], 1);
  if (action == ZKV_ZONE_FINISH) atomic_fetch_add(&d->st[ST_FINISH], 1);
  return action == ZKV_ZONE_CLOSE ? kdev_close_fixup(d, zone) : 0;
}

static const zkv_backend zbd_backend = KDEV_BACKEND("zbd", zbd_report, zbd_zone_mgmt, NULL);

static int sysfs_str(const char *name, const char *attr, char *out, size_t len) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "/sys/block/%s/queue/%s", name, attr);
  FILE *f = fopen(p, "r");
  if (!f) return -1;
  int ok = fgets(out, (int)len, f) != NULL;
  fclose(f);
  if (!ok) return -1;
  out[strcspn(out, "\n")] = 0;
  return 0;
}

static int open_block(kdev *d, const char *path) {
  d->blk_fd = open(path, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
  if (d->blk_fd < 0) {
    int e = errno;
    zkv_set_error(e == EBUSY ? "zoned block device %s is in use (opened exclusively elsewhere or mounted)"
                             : "cannot open zoned block device %s: %s",
                  path, strerror(e));
    return -e;
  }
  char real[PATH_MAX], zoned[32];
  if (!realpath(path, real)) return -errno;
  const char *name = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
  if (sysfs_str(name, "zoned", zoned, sizeof zoned) || strcmp(zoned, "host-managed") != 0) {
    zkv_set_error("%s is not a host-managed zoned block device (queue/zoned: %s)", path,
                  sysfs_str(name, "zoned", zoned, sizeof zoned) ? "unreadable" : zoned);
    return -EINVAL;
  }
  unsigned int lbs = 0, zone_sectors = 0, nr = 0;
  if (ioctl(d->blk_fd, BLKSSZGET, &lbs) < 0 || ioctl(d->blk_fd, BLKGETZONESZ, &zone_sectors) < 0 ||
      ioctl(d->blk_fd, BLKGETNRZONES, &nr) < 0 || !lbs || !zone_sectors || !nr) {
    zkv_set_error("%s: cannot read the block size and zone geometry", path);
    return -EINVAL;
  }
  zkv_geometry *g = &d->base.geo;
  g->lba_size = lbs;
  d->lba_shift = (uint32_t)__builtin_ctz(lbs);
  g->zone_size = (uint64_t)zone_sectors << SECTOR_SHIFT;
  g->nr_zones = nr;
  long long mo = kdev_sysfs_queue_num(name, "max_open_zones"), ma = kdev_sysfs_queue_num(name, "max_active_zones");
  long long zam = kdev_sysfs_queue_num(name, "zone_append_max_bytes"),
            hw = kdev_sysfs_queue_num(name, "max_hw_sectors_kb");
  g->max_open = mo > 0 ? (uint32_t)mo : 0;
  g->max_active = ma > 0 ? (uint32_t)ma : 0;
  d->max_xfer = 256u * 1024u;
  if (hw > 0 && (uint64_t)hw * 1024 < d->max_xfer) d->max_xfer = (uint32_t)(hw * 1024);
  g->zasl = zam > 0 && (uint64_t)zam < d->max_xfer ? (uint32_t)zam : d->max_xfer;
  /* The generic device of the same namespace: nvmeXnY -> ngXnY. */
  unsigned ctrl, ns;
  char extra;
  if (sscanf(name, "nvme%un%u%c", &ctrl, &ns, &extra) == 2) {
    char ng[64];
    snprintf(ng, sizeof ng, "/dev/ng%un%u", ctrl, ns);
    int fd = open(ng, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
      int nsid = ioctl(fd, NVME_IOCTL_ID);
      /* By name alone ngXnY may be another drive's namespace (native multipath names the block
       * device by subsystem, the ng device by controller): appends go through it only when it
       * is provably the same namespace; otherwise they are emulated. */
      if (nsid > 0 && !kdev_same_namespace(d->blk_fd, fd, (uint32_t)nsid)) nsid = 0;
      if (nsid > 0) {
        d->ng_fd = fd;
        d->nsid = (uint32_t)nsid;
      } else {
        close(fd);
      }
    }
  }
  if (d->ng_fd < 0) {
    if (!(d->append_locks = calloc(KDEV_APPEND_LOCKS, sizeof *d->append_locks))) return -ENOMEM;
    for (unsigned i = 0; i < KDEV_APPEND_LOCKS; i++) pthread_mutex_init(&d->append_locks[i], NULL);
    d->append_emulated = append_emulated;
  }
  return 0;
}

zkv_dev *zbd_dev_open(const char *path, int *err) {
  kdev *d = kdev_alloc(path, KDEV_ZBD, &zbd_backend);
  if (!d) {
    *err = -ENOMEM;
    return NULL;
  }
  int rc = open_block(d, path);
  if (!rc) rc = kdev_read_zone_cap(d);
  if (rc) {
    *err = rc;
    kdev_free(d);
    return NULL;
  }
  return &d->base;
}
