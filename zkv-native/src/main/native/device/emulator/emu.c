/* The emulated zoned device: a sparse backing file holding a header, a persistent zone table
 * (memory-mapped, so state survives the process) and the zones' data. NVMe ZNS semantics come
 * from zone_state.c, service times from timing.c. Format: docs/formats/emulated-device.md.
 * Here: opening and closing it, the PLM admin commands and its backend table. The parts, each
 * calling only those before it: emu_layout.c (the backing file), emu_power.c (faults, durability,
 * power cuts), emu_io.c (requests), emu_queue.c (asynchronous queues). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu_internal.h"

zkv_dev *emu_open(const char *path, const zkv_profile *prof, const emu_options *o, int *err) {
  emu_dev *dev = aligned_alloc(_Alignof(emu_dev), sizeof *dev); /* its read counters' stripes */
  if (!dev) {
    *err = -ENOMEM;
    return NULL;
  }
  memset(dev, 0, sizeof *dev);
  dev->base.be = &zkv_emu_backend;
  dev->base.profile = prof->name;
  dev->fd = open(path, O_RDWR | O_CLOEXEC);
  int rc;
  if (dev->fd < 0) {
    rc = -errno;
    emu_set_error("cannot open emulated device %s: %s", path, strerror(errno));
    goto fail;
  }
  if ((rc = emu_take_ownership(dev->fd, path)) || (rc = emu_load(dev, path))) goto fail;
  dev->path = strdup(path);
  dev->prof = prof;
  dev->wcache = o->wcache;
  dev->discard = o->discard;
  dev->rng = o->seed ? o->seed : 0x5EED;
  dev->reorder = o->reorder;
  dev->virtual_clock = o->virtual_clock;
  dev->reorder_seed = dev->rng ^ 0x4E0DE2ull;
  dev->zone_pipes = calloc(dev->base.geo.nr_zones, sizeof *dev->zone_pipes);
  dev->writes_under_way = calloc(dev->base.geo.nr_zones, sizeof *dev->writes_under_way);
  _Atomic uint64_t *readable = calloc(dev->base.geo.nr_zones, sizeof *readable);
  if (!dev->path || !dev->zone_pipes || !dev->writes_under_way || !readable) {
    free(readable);
    rc = -ENOMEM;
    goto fail;
  }
  for (uint32_t z = 0; z < dev->base.geo.nr_zones; z++) readable[z] = dev->zs.zones[z].written;
  dev->readable = readable;
  if (prof->nvm_sets) {
    if (o->sets > dev->base.geo.nr_zones) {
      emu_set_error("%s has %u zones, fewer than the %u NVM Sets asked for (sets=)", path, dev->base.geo.nr_zones,
                    o->sets);
      rc = -EINVAL;
      goto fail;
    }
    dev->plm = plm_create(dev->base.geo.nr_zones, o->sets, o->timescale, o->manual_clock, dev->rng);
    dev->set_pipes = calloc(o->sets, sizeof *dev->set_pipes);
    if (!dev->plm || !dev->set_pipes) {
      rc = -ENOMEM;
      goto fail;
    }
  }
  dev->unlocked_reads = zkv_profile_is_instant(prof) && !dev->plm;
  pthread_mutex_init(&dev->mu, NULL);
  return &dev->base;
fail:
  *err = rc;
  if (dev->map) munmap(dev->map, dev->map_len);
  if (dev->fd >= 0) close(dev->fd);
  free(dev->zs.zones);
  free(dev->path);
  free(dev->zone_pipes);
  free(dev->writes_under_way);
  free((void *)dev->readable);
  plm_destroy(dev->plm);
  free(dev->set_pipes);
  free(dev);
  return NULL;
}

static void emu_close(zkv_dev *d) {
  emu_dev *dev = (emu_dev *)d;
  if (!dev) return;
  msync(dev->map, dev->map_len, MS_SYNC);
  munmap(dev->map, dev->map_len);
  close(dev->fd); /* releases the ownership lock */
  pthread_mutex_destroy(&dev->mu);
  free(dev->zs.zones);
  free(dev->nd);
  free(dev->busy);
  free(dev->zone_pipes);
  free(dev->writes_under_way);
  free((void *)dev->readable);
  free(dev->path);
  plm_destroy(dev->plm);
  free(dev->set_pipes);
  free(dev);
}

/* ---------- PLM (profile plm) ---------- */

static int emu_admin(zkv_dev *d, zkv_admin_cmd *cmd) {
  emu_dev *dev = (emu_dev *)d;
  if (!dev->plm) {
    zkv_set_error("the emulator answers NVMe admin commands only with profile=plm (this device: %s)", dev->prof->name);
    return -EOPNOTSUPP;
  }
  uint64_t wait_until = 0;
  pthread_mutex_lock(&dev->mu);
  int rc = dev->dead ? -ENODEV : plm_admin(dev->plm, cmd, &wait_until);
  pthread_mutex_unlock(&dev->mu);
  zkv_wait_until(wait_until);
  cmd->status = rc < 0 && (-rc & ZKV_ZNS_BASE) ? ((-rc & 0x7FF) | 0x4000) : 0; /* as the kernel gives it: with DNR */
  return rc;
}

/* On a plmarray: device, the NVM Sets are those of the device it is made of. */
static emu_dev *plm_dev(zkv_dev *d) {
  d = dev_made_of(d);
  return d->be == &zkv_emu_backend && ((emu_dev *)d)->plm ? (emu_dev *)d : NULL;
}

int zkv_emu_plm_stats_get(zkv_dev *d, uint32_t nvm_set, zkv_emu_plm_stats *out) {
  emu_dev *dev = plm_dev(d);
  if (!dev) return -EOPNOTSUPP;
  pthread_mutex_lock(&dev->mu);
  int rc = plm_stats(dev->plm, nvm_set, out);
  pthread_mutex_unlock(&dev->mu);
  return rc;
}

int zkv_emu_plm_advance(zkv_dev *d, uint64_t ns) {
  emu_dev *dev = plm_dev(d);
  if (!dev) return -EOPNOTSUPP;
  pthread_mutex_lock(&dev->mu);
  int rc = plm_advance(dev->plm, ns);
  pthread_mutex_unlock(&dev->mu);
  return rc;
}

const zkv_backend zkv_emu_backend = {
    .scheme = "emu",
    .close = emu_close,
    .report = emu_report,
    .zone_mgmt = emu_zone_mgmt,
    .write = emu_write,
    .append = emu_append,
    .read = emu_read,
    .read_part = emu_read_part,
    .flush = emu_flush,
    .queue_create = emu_queue_create,
    .queue_destroy = emu_queue_destroy,
    .queue_submit = emu_queue_submit,
    .queue_reap = emu_queue_reap,
    .queue_inflight = emu_queue_inflight,
    .stats = emu_stats,
    .admin = emu_admin,
    .read_parallel = emu_read_parallel,
};
