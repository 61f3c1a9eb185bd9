/* The emulated device's faults and durability: injected errors and power cuts (fault rules), the
 * writes not durable yet (nd records: lost, torn or kept at a power cut) and the cut itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "emu_internal.h"

/* How many armed rules can hit a read (unlocked reads are taken only while none can). */
static void count_read_fault_rules(emu_dev *dev) {
  uint32_t n = 0;
  for (int i = 0; i < EMU_MAX_FAULTS; i++) n += dev->faults[i].count && (dev->faults[i].op_mask & ZKV_FAULT_READ);
  atomic_store_explicit(&dev->read_fault_rules, n, memory_order_release);
}

int emu_fault_check(emu_dev *dev, int op, int64_t zone, uint32_t *cut_keep) {
  if (dev->dead) return -ENODEV;
  for (int i = 0; i < EMU_MAX_FAULTS; i++) {
    fault_rule *r = &dev->faults[i];
    if (!r->count || !(r->op_mask & op) || (r->zone >= 0 && r->zone != zone)) continue;
    if (r->skip) {
      r->skip--;
      continue;
    }
    if (!--r->count) count_read_fault_rules(dev);
    if (r->cut_keep) {
      *cut_keep = r->cut_keep;
      return EMU_CUT_DURING;
    }
    return r->error;
  }
  return 0;
}

int zkv_emu_cut_power_during(zkv_dev *d, int op_mask, int64_t zone, uint32_t skip, uint32_t keep_blocks) {
  if (d->be != &zkv_emu_backend) return -EOPNOTSUPP;
  if (!op_mask || (op_mask & ~(ZKV_FAULT_WRITE | ZKV_FAULT_APPEND)) || keep_blocks == UINT32_MAX) return -EINVAL;
  emu_dev *dev = (emu_dev *)d;
  pthread_mutex_lock(&dev->mu);
  int rc = -ENOSPC;
  for (int i = 0; i < EMU_MAX_FAULTS; i++) {
    fault_rule *r = &dev->faults[i];
    if (!r->count) {
      *r = (fault_rule){.op_mask = op_mask, .zone = zone, .skip = skip, .count = 1, .cut_keep = keep_blocks + 1};
      rc = 0;
      break;
    }
  }
  pthread_mutex_unlock(&dev->mu);
  return rc;
}

int zkv_emu_inject_error(zkv_dev *d, int op_mask, int64_t zone, uint32_t skip, uint32_t count, int error) {
  if (d->be != &zkv_emu_backend) return -EOPNOTSUPP;
  emu_dev *dev = (emu_dev *)d;
  if (error >= 0 && count) return -EINVAL;
  pthread_mutex_lock(&dev->mu);
  int rc = -ENOSPC;
  for (int i = 0; i < EMU_MAX_FAULTS; i++) {
    fault_rule *r = &dev->faults[i];
    if (count == 0) { /* clear matching rules */
      if (r->op_mask == op_mask && r->zone == zone) memset(r, 0, sizeof *r);
      rc = 0;
    } else if (!r->count) {
      *r = (fault_rule){.op_mask = op_mask, .zone = zone, .skip = skip, .count = count, .error = error};
      rc = 0;
      break;
    }
  }
  count_read_fault_rules(dev);
  pthread_mutex_unlock(&dev->mu);
  return rc;
}

int zkv_emu_set_zone_condition(zkv_dev *d, uint32_t zone, int cond) {
  if (d->be != &zkv_emu_backend) return -EOPNOTSUPP;
  emu_dev *dev = (emu_dev *)d;
  if (zone >= dev->base.geo.nr_zones || (cond != ZKV_ZONE_READ_ONLY && cond != ZKV_ZONE_OFFLINE)) return -EINVAL;
  pthread_mutex_lock(&dev->mu);
  zs_set(&dev->zs, zone, (uint32_t)cond, dev->zs.zones[zone].written);
  pthread_mutex_unlock(&dev->mu);
  return 0;
}

int emu_nd_add(emu_dev *dev, uint32_t zone, uint64_t rel, uint64_t len, uint64_t *id) {
  if (dev->nd_len == dev->nd_cap) {
    size_t cap = dev->nd_cap ? dev->nd_cap * 2 : 64;
    nd_rec *n = realloc(dev->nd, cap * sizeof *n);
    if (!n) return -ENOMEM;
    dev->nd = n, dev->nd_cap = cap;
  }
  *id = ++dev->nd_next_id;
  dev->nd[dev->nd_len++] = (nd_rec){.id = *id, .zone = zone, .inflight = 1, .rel = rel, .len = len};
  return 0;
}

void emu_punch(emu_dev *dev, uint32_t zone, uint64_t rel, uint64_t len) {
  if (!len) return;
  uint64_t off = dev->data_off + (uint64_t)zone * dev->base.geo.zone_size + rel;
  if (fallocate(dev->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) < 0) {
    static const uint8_t zeros[4096];
    for (uint64_t done = 0; done < len; done += sizeof zeros) /* file systems without hole punching */
      emu_write_full(dev->fd, zeros, len - done < sizeof zeros ? len - done : sizeof zeros, off + done);
  }
}

int emu_nd_complete(emu_dev *dev, uint64_t id, int fua) {
  for (size_t i = dev->nd_len; i-- > 0;) {
    nd_rec *r = &dev->nd[i];
    if (r->id != id) continue;
    int rc = 0;
    if (r->cut) { /* the data landed after the cut: undo what the cut lost */
      emu_punch(dev, r->zone, r->rel + r->keep, r->len - r->keep);
      rc = -ENODEV;
    } else if (dev->wcache && !fua) {
      r->inflight = 0;
      return 0;
    }
    dev->nd[i] = dev->nd[--dev->nd_len];
    return rc;
  }
  return 0;
}

void emu_nd_move(emu_dev *dev, uint64_t id, int64_t delta) {
  for (size_t i = dev->nd_len; i-- > 0;)
    if (dev->nd[i].id == id) {
      dev->nd[i].rel = (uint64_t)((int64_t)dev->nd[i].rel + delta);
      return;
    }
}

void emu_nd_flush(emu_dev *dev) {
  size_t j = 0;
  for (size_t i = 0; i < dev->nd_len; i++)
    if (dev->nd[i].inflight) dev->nd[j++] = dev->nd[i];
  dev->nd_len = j;
}

static int by_zone_then_offset_desc(const void *a, const void *b) {
  const nd_rec *x = a, *y = b;
  if (x->zone != y->zone) return x->zone < y->zone ? -1 : 1;
  return x->rel > y->rel ? -1 : x->rel < y->rel;
}

/* The power cut with mu held and the device alive; the non-durable write `keep_id`, if any, keeps
 * its first `keep_id_blocks` blocks whatever the mode. */
static int64_t power_cut_locked(emu_dev *dev, int mode, uint64_t seed, uint64_t keep_id, uint64_t keep_id_blocks);

int64_t zkv_emu_power_cut(zkv_dev *d, int mode, uint64_t seed) {
  d = dev_made_of(d); /* a plmarray: device loses power with the device it is made of */
  if (d->be != &zkv_emu_backend) return -EOPNOTSUPP;
  emu_dev *dev = (emu_dev *)d;
  if (mode != ZKV_CUT_DROP_ALL && mode != ZKV_CUT_RANDOM) return -EINVAL;
  pthread_mutex_lock(&dev->mu);
  int64_t affected = dev->dead ? -ENODEV : power_cut_locked(dev, mode, seed, 0, 0);
  pthread_mutex_unlock(&dev->mu);
  return affected;
}

void emu_cut_during(emu_dev *dev, const emu_io *io) {
  pthread_mutex_lock(&dev->mu);
  if (!dev->dead) power_cut_locked(dev, ZKV_CUT_DROP_ALL, 0, io->nd_id, io->cut_keep - 1);
  pthread_mutex_unlock(&dev->mu);
}

static int64_t power_cut_locked(emu_dev *dev, int mode, uint64_t seed, uint64_t keep_id, uint64_t keep_id_blocks) {
  uint64_t rng = seed;
  uint32_t lba = dev->base.geo.lba_size;
  int64_t affected = (int64_t)dev->nd_len;
  for (size_t i = 0; i < dev->nd_len; i++) {
    nd_rec *r = &dev->nd[i];
    uint64_t blocks = r->len / lba, keep_blocks = 0;
    if (keep_id && r->id == keep_id) {
      keep_blocks = keep_id_blocks < blocks ? keep_id_blocks : blocks;
    } else if (mode == ZKV_CUT_RANDOM) {
      switch (zkv_rng_next(&rng) % 3) {
        case 0: keep_blocks = blocks; break;                                           /* applied */
        case 1: keep_blocks = 0; break;                                                /* lost */
        default: keep_blocks = blocks > 1 ? 1 + zkv_rng_next(&rng) % (blocks - 1) : 0; /* torn */
      }
    }
    r->keep = keep_blocks * lba;
    r->cut = 1;
    emu_punch(dev, r->zone, r->rel + r->keep, r->len - r->keep);
  }
  /* The write pointer falls back over lost data at the end of each zone; lost data below kept
   * data stays as a hole of zeros (the media persisted later blocks first). */
  qsort(dev->nd, dev->nd_len, sizeof *dev->nd, by_zone_then_offset_desc);
  for (size_t i = 0; i < dev->nd_len;) {
    uint32_t zone = dev->nd[i].zone;
    zs_entry *z = &dev->zs.zones[zone];
    uint64_t wp = z->written;
    for (; i < dev->nd_len && dev->nd[i].zone == zone; i++) {
      nd_rec *r = &dev->nd[i];
      if (r->rel + r->len == wp && r->keep < r->len) wp = r->rel + r->keep;
    }
    /* A zone that reached Full keeps that condition (zone state is device metadata, persisted
     * with the transition); its lost blocks read as zeros. */
    if (z->cond != ZKV_ZONE_FULL && z->cond != ZKV_ZONE_READ_ONLY && z->cond != ZKV_ZONE_OFFLINE)
      zs_set(&dev->zs, zone, wp ? ZKV_ZONE_CLOSED : ZKV_ZONE_EMPTY, wp);
  }
  size_t j = 0; /* in-flight ones stay so their late data is cut again when it lands */
  for (size_t i = 0; i < dev->nd_len; i++)
    if (dev->nd[i].inflight) dev->nd[j++] = dev->nd[i];
  dev->nd_len = j;
  __atomic_store_n(&dev->dead, 1, __ATOMIC_RELEASE);
  msync(dev->map, dev->map_len, MS_SYNC);
  return affected;
}
