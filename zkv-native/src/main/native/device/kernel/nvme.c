/* The nvme: backend: an NVMe zoned namespace driven through its generic character device
 * (/dev/ngXnY) with passthrough commands. Data moves on io_uring (kdev_queue.c); Identify gives
 * the geometry, Zone Management Send/Receive (0x79/0x7A) run as synchronous ioctls, and admin
 * commands (Identify, PLM) go through NVME_IOCTL_ADMIN64_CMD on the same ng device, which the
 * kernel forwards to the controller (so /dev/nvmeX need not be found). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kdev.h"

static int nvme_report(zkv_dev *dev, uint32_t first, zkv_zone *out, uint32_t n) {
  return kdev_nvme_report((kdev *)dev, first, out, n);
}

static int nvme_zone_mgmt(zkv_dev *dev, uint32_t zone, int action) {
  kdev *d = (kdev *)dev;
  if (zone >= dev->geo.nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
  if (action != ZKV_ZONE_CLOSE && action != ZKV_ZONE_FINISH && action != ZKV_ZONE_OPEN && action != ZKV_ZONE_RESET)
    return -EINVAL;
  int rc = action == ZKV_ZONE_FINISH ? kdev_finish_check(d, zone) : 0;
  if (rc) return rc;
  uint64_t slba = ((uint64_t)zone * dev->geo.zone_size) >> d->lba_shift;
  kdev_cmd c = {.opcode = NVME_CMD_ZONE_MGMT_SEND,
                .nsid = d->nsid,
                .cdw10 = (uint32_t)slba,
                .cdw11 = (uint32_t)(slba >> 32),
                .cdw13 = (uint32_t)action};
  if ((rc = kdev_io_cmd(d->ng_fd, &c))) return rc;
  if (action == ZKV_ZONE_RESET) atomic_fetch_add(&d->st[ST_RESET], 1);
  if (action == ZKV_ZONE_FINISH) atomic_fetch_add(&d->st[ST_FINISH], 1);
  return action == ZKV_ZONE_CLOSE ? kdev_close_fixup(d, zone) : 0;
}

static int nvme_admin(zkv_dev *dev, zkv_admin_cmd *cmd);
static const zkv_backend nvme_backend = KDEV_BACKEND("nvme", nvme_report, nvme_zone_mgmt, nvme_admin);

int nvme_refuse_pieces(zkv_dev *dev, uint32_t n) {
  if (dev->be != &nvme_backend) return -ENOTSUP;
  atomic_store(&((kdev *)dev)->refuse_pieces, n);
  return 0;
}

/* The kernel does not split passthrough commands: one above the block queue's max_hw_sectors_kb
 * (which an IOMMU may set below MDTS) fails with EINVAL. Clamps the largest command to it when the
 * namespace's block device (ngXnY -> nvmeXnY) shows it. */
static void clamp_to_kernel_limit(kdev *d, const char *path) {
  const char *base = strrchr(path, '/');
  unsigned ctrl, ns;
  char extra, blk[64];
  if (sscanf(base ? base + 1 : path, "ng%un%u%c", &ctrl, &ns, &extra) != 2) return;
  snprintf(blk, sizeof blk, "nvme%un%u", ctrl, ns);
  long long kb = kdev_sysfs_queue_num(blk, "max_hw_sectors_kb");
  if (kb <= 0 || (unsigned long long)kb * 1024 >= d->max_xfer) return;
  uint32_t max = (uint32_t)(kb * 1024) >> d->lba_shift << d->lba_shift;
  if (!max) return;
  d->max_xfer = max;
  if (d->base.geo.zasl > max) d->base.geo.zasl = max;
}

/* Opens `path` as the NVMe generic device of a zoned namespace: nsid, exclusivity among zkv
 * openers (flock), geometry from Identify and the capacity of zone 0. */
static int open_ng(kdev *d, const char *path) {
  d->ng_fd = open(path, O_RDWR | O_CLOEXEC);
  if (d->ng_fd < 0) {
    int e = errno;
    zkv_set_error("cannot open NVMe generic device %s: %s", path, strerror(e));
    return -e;
  }
  struct stat st;
  if (fstat(d->ng_fd, &st) < 0 || !S_ISCHR(st.st_mode)) {
    zkv_set_error("%s is not an NVMe generic character device (/dev/ngXnY)", path);
    return -EINVAL;
  }
  if (flock(d->ng_fd, LOCK_EX | LOCK_NB) < 0) {
    int e = errno;
    zkv_set_error(e == EWOULDBLOCK ? "%s is in use by another zkv opener" : "cannot lock %s", path);
    return e == EWOULDBLOCK ? -EBUSY : -e;
  }
  int nsid = ioctl(d->ng_fd, NVME_IOCTL_ID);
  if (nsid <= 0) {
    int e = nsid < 0 ? errno : EINVAL;
    zkv_set_error("%s: cannot get the namespace id (NVME_IOCTL_ID): %s", path, strerror(e));
    return -e;
  }
  d->nsid = (uint32_t)nsid;
  int rc = kdev_identify_geometry(d, d->ng_fd);
  if (!rc) clamp_to_kernel_limit(d, path);
  return rc;
}

zkv_dev *nvme_dev_open(const char *path, int *err) {
  kdev *d = kdev_alloc(path, KDEV_NVME, &nvme_backend);
  if (!d) {
    *err = -ENOMEM;
    return NULL;
  }
  int rc = open_ng(d, path);
  if (!rc) rc = kdev_read_zone_cap(d);
  if (rc) {
    *err = rc;
    kdev_free(d);
    return NULL;
  }
  return &d->base;
}

static int nvme_admin(zkv_dev *dev, zkv_admin_cmd *cmd) {
  kdev *d = (kdev *)dev;
  kdev_cmd c = {.opcode = cmd->opcode,
                .nsid = cmd->nsid,
                .cdw10 = cmd->cdw10,
                .cdw11 = cmd->cdw11,
                .cdw12 = cmd->cdw12,
                .cdw13 = cmd->cdw13,
                .cdw14 = cmd->cdw14,
                .cdw15 = cmd->cdw15,
                .buf = cmd->buf,
                .len = cmd->len};
  int rc = kdev_admin(d->ng_fd, &c);
  cmd->result = (uint32_t)c.result;
  cmd->status = c.status;
  return rc;
}
