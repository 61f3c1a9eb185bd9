/* The emulated zoned device: a sparse backing file holding a header, a persistent zone table
 * (memory-mapped, so state survives the process) and the zones' data. NVMe ZNS semantics come
 * from zone_state.c, service times from timing.c. Format: docs/formats/emulated-device.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "crc32c.h"
#include "emu_internal.h"
#include "le_bytes.h"

/* ---------- on-disk layout ---------- */

static uint64_t table_bytes(uint32_t nr_zones) { return (uint64_t)nr_zones * sizeof(zs_entry); }
static uint64_t data_offset(uint32_t nr_zones) {
  uint64_t end = EMU_HEADER_SIZE + table_bytes(nr_zones);
  return (end + EMU_DATA_ALIGN - 1) / EMU_DATA_ALIGN * EMU_DATA_ALIGN;
}

static uint32_t entry_crc(uint32_t index, const zs_entry *e) {
  uint8_t b[16];
  put32(b, index);
  put64(b + 4, e->written);
  put32(b + 12, e->cond);
  return zkv_crc32c(0, b, sizeof b);
}

/* The file's table entry takes the new state in one 16-byte store instruction: a process is
 * stopped only between instructions, so a SIGKILL leaves either the old or the new entry, never a
 * mix that fails its checksum (the entry is 16-byte aligned, inside one page). The zone state
 * machine works on a private copy and never writes the mapped table itself. The instruction is
 * written out in assembly: with the intrinsic, GCC 12 at -O2 turned the copy into two 8-byte
 * stores, and a SIGKILL between them left an entry that failed its checksum, so the device no
 * longer opened ("zone table entry 11 is corrupt", WaltzSmallDeviceTest in CI; test_emu's
 * killed_writer_leaves_a_valid_table). */
static void store_entry(void *dst, const zs_entry *e) {
  uint8_t b[16];
  put64(b, e->written);
  put32(b + 8, e->cond);
  put32(b + 12, e->crc);
#if defined(__x86_64__)
  __m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);
  __asm__ volatile("movdqa %1, %0" : "=m"(*(__m128i *)dst) : "x"(v) : "memory");
#elif defined(__aarch64__)
  uint64_t lo = get64(b), hi = get64(b + 8);
  __asm__ volatile("stp %1, %2, [%0]" : : "r"(dst), "r"(lo), "r"(hi) : "memory");
#else
#error "store_entry needs a single 16-byte store instruction for this architecture"
#endif
}

_Static_assert(sizeof(zs_entry) == 16 && EMU_HEADER_SIZE % 16 == 0, "table entries are 16-byte aligned");

static zs_entry *mapped_entry(emu_dev *dev, uint32_t zone) {
  return (zs_entry *)((uint8_t *)dev->map + EMU_HEADER_SIZE) + zone;
}

/* Where reads of the zone stop (emu_dev.readable): the write pointer when no write is under way,
 * else the start of the lowest write under way (appends may end out of order). With mu held. */
static void publish_readable(emu_dev *dev, uint32_t zone) {
  if (!dev->readable) return; /* still loading */
  uint64_t r = dev->zs.zones[zone].written;
  if (dev->writes_under_way[zone])
    for (size_t i = 0; i < dev->nd_len; i++)
      if (dev->nd[i].inflight && dev->nd[i].zone == zone && dev->nd[i].rel < r) r = dev->nd[i].rel;
  atomic_store_explicit(&dev->readable[zone], r, memory_order_release);
}

/* Bytes of [rel, rel + len) of the zone a read sees, with mu held: up to the written end, stopping
 * at the first write under way that overlaps the range. A completed append above one still under
 * way (appends end out of order) is readable, as on a device: `readable` alone, the start of the
 * lowest write under way, hid it, and a ZWAL reader of a landed chunk got zeros. */
static uint64_t readable_prefix(emu_dev *dev, uint32_t zone, uint64_t rel, uint64_t len) {
  uint64_t end = dev->zs.zones[zone].written;
  if (rel >= end) return 0;
  uint64_t stop = rel + len < end ? rel + len : end;
  if (dev->writes_under_way[zone])
    for (size_t i = 0; i < dev->nd_len; i++) {
      const nd_rec *e = &dev->nd[i];
      if (e->inflight && e->zone == zone && e->rel < stop && e->rel + e->len > rel) stop = e->rel > rel ? e->rel : rel;
    }
  return stop - rel;
}

static void on_zone_change(zs_table *t, uint32_t zone) {
  t->zones[zone].crc = entry_crc(zone, &t->zones[zone]);
  store_entry(mapped_entry(t->owner, zone), &t->zones[zone]);
  emu_dev *dev = t->owner;
  /* A write's own move of the write pointer waits for its end; resets, finishes and power cuts
   * apply at once (publish_readable never goes above the write pointer). */
  if (dev->readable) {
    uint64_t now = atomic_load_explicit(&dev->readable[zone], memory_order_relaxed);
    if (!dev->writes_under_way[zone] || t->zones[zone].written < now) publish_readable(dev, zone);
  }
}

static void encode_header(uint8_t *h, const zkv_geometry *g) {
  memset(h, 0, EMU_HEADER_SIZE);
  memcpy(h, EMU_MAGIC, 8);
  put32(h + 8, EMU_VERSION);
  put32(h + 12, EMU_HEADER_SIZE);
  put32(h + 16, g->lba_size);
  put32(h + 20, g->nr_zones);
  put64(h + 24, g->zone_size);
  put64(h + 32, g->zone_cap);
  put32(h + 40, g->max_open);
  put32(h + 44, g->max_active);
  put32(h + 48, g->zasl);
  put64(h + 56, EMU_HEADER_SIZE);
  put64(h + 64, data_offset(g->nr_zones));
  put32(h + EMU_HEADER_CRC_OFF, zkv_crc32c(0, h, EMU_HEADER_CRC_OFF));
}

#define MAX_DEVICE_BYTES (1ull << 44) /* 16 TiB of sparse file: far beyond any test geometry */

static int validate_geometry(const zkv_geometry *g) {
  if (g->lba_size != 512 && g->lba_size != 4096) {
    emu_set_error("lba_size must be 512 or 4096, not %u", g->lba_size);
    return -EINVAL;
  }
  if (g->nr_zones == 0 || g->nr_zones > (1u << 20)) {
    emu_set_error("nr_zones must be 1..%u, not %u", 1u << 20, g->nr_zones);
    return -EINVAL;
  }
  if (g->zone_size == 0 || g->zone_size % g->lba_size) {
    emu_set_error("zone_size %llu is not a positive multiple of the LBA size %u", (unsigned long long)g->zone_size,
                  g->lba_size);
    return -EINVAL;
  }
  if (g->zone_cap == 0 || g->zone_cap > g->zone_size || g->zone_cap % g->lba_size) {
    emu_set_error("zone_cap %llu must be a positive multiple of %u and at most zone_size %llu",
                  (unsigned long long)g->zone_cap, g->lba_size, (unsigned long long)g->zone_size);
    return -EINVAL;
  }
  if (g->max_active > g->nr_zones || g->max_open > g->nr_zones) {
    emu_set_error("max_open %u / max_active %u exceed nr_zones %u", g->max_open, g->max_active, g->nr_zones);
    return -EINVAL;
  }
  if (g->max_active && g->max_open > g->max_active) {
    emu_set_error("max_open %u exceeds max_active %u (the spec requires MOR <= MAR)", g->max_open, g->max_active);
    return -EINVAL;
  }
  if (g->zasl < g->lba_size || g->zasl % g->lba_size || g->zasl > g->zone_cap) {
    emu_set_error("zasl %u must be a multiple of %u between one block and zone_cap", g->zasl, g->lba_size);
    return -EINVAL;
  }
  if (g->zone_size > MAX_DEVICE_BYTES / g->nr_zones) { /* nr_zones >= 1; no overflow */
    emu_set_error("device of %u zones x %llu bytes exceeds 16 TiB", g->nr_zones, (unsigned long long)g->zone_size);
    return -EINVAL;
  }
  return 0;
}

static int write_full(int fd, const void *buf, size_t len, uint64_t off) {
  const uint8_t *p = buf;
  while (len) {
    ssize_t n = pwrite(fd, p, len, (off_t)off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    p += n, len -= (size_t)n, off += (uint64_t)n;
  }
  return 0;
}

static int read_full(int fd, void *buf, size_t len, uint64_t off) {
  uint8_t *p = buf;
  while (len) {
    ssize_t n = pread(fd, p, len, (off_t)off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) {
      memset(p, 0, len);
      return 0;
    } /* beyond EOF of a sparse file: zeros */
    p += n, len -= (size_t)n, off += (uint64_t)n;
  }
  return 0;
}

int zkv_emu_format(const char *path, const zkv_geometry *geo) {
  zkv_set_error("%s", ""); /* so a failure below without a message of its own does not show a stale one */
  int rc = validate_geometry(geo);
  if (rc) return rc;
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    rc = -errno;
    emu_set_error("cannot create emulated device %s: %s", path, strerror(errno));
    return rc;
  }
  uint8_t *h = calloc(1, EMU_HEADER_SIZE);
  size_t tb = table_bytes(geo->nr_zones);
  zs_entry *t = calloc(1, tb);
  if (!h || !t) {
    rc = -ENOMEM;
    goto out;
  }
  encode_header(h, geo);
  for (uint32_t i = 0; i < geo->nr_zones; i++) {
    t[i].cond = ZKV_ZONE_EMPTY;
    t[i].crc = entry_crc(i, &t[i]);
  }
  if ((rc = write_full(fd, h, EMU_HEADER_SIZE, 0)) || (rc = write_full(fd, t, tb, EMU_HEADER_SIZE))) goto out;
  if (ftruncate(fd, (off_t)(data_offset(geo->nr_zones) + (uint64_t)geo->nr_zones * geo->zone_size)) < 0) {
    rc = -errno;
    goto out;
  }
  if (fsync(fd) < 0) rc = -errno;
out:
  if (rc && !zkv_dev_last_error()[0]) emu_set_error("cannot format %s: %s", path, strerror(-rc));
  free(h);
  free(t);
  close(fd);
  if (rc) unlink(path);
  return rc;
}

/* Exclusive ownership: an open-file-description lock, so even a second open in the same
 * process conflicts; the owner's pid is kept in the header for the error message. */
static int take_ownership(int fd, const char *path) {
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  if (fcntl(fd, F_OFD_SETLK, &fl) == 0) return 0;
  int e = errno;
  if (e == EAGAIN || e == EACCES) {
    uint8_t b[4] = {0};
    (void)!pread(fd, b, 4, EMU_OWNER_PID_OFF);
    emu_set_error("emulated device %s is in use by another opener (process %u)", path, get32(b));
    return -EBUSY;
  }
  emu_set_error("cannot lock %s: %s", path, strerror(e));
  return -e;
}

static int load(emu_dev *dev, const char *path) {
  uint8_t h[EMU_HEADER_SIZE];
  struct stat st;
  int rc = read_full(dev->fd, h, sizeof h, 0);
  if (rc) {
    emu_set_error("cannot read %s: %s", path, strerror(-rc));
    return rc;
  }
  if (fstat(dev->fd, &st) < 0) return -errno;
  if (memcmp(h, EMU_MAGIC, 8) != 0) {
    emu_set_error("%s is not a zkv emulated device (bad magic)", path);
    return -EINVAL;
  }
  if (get32(h + 8) != EMU_VERSION) {
    emu_set_error("%s has emulated-device format version %u; this zkv reads version %u", path, get32(h + 8),
                  EMU_VERSION);
    return -EINVAL;
  }
  if (zkv_crc32c(0, h, EMU_HEADER_CRC_OFF) != get32(h + EMU_HEADER_CRC_OFF)) {
    emu_set_error("%s: emulated-device header checksum mismatch (corrupt header)", path);
    return -EINVAL;
  }
  zkv_geometry *g = &dev->base.geo;
  memset(g, 0, sizeof *g);
  g->lba_size = get32(h + 16);
  g->nr_zones = get32(h + 20);
  g->zone_size = get64(h + 24);
  g->zone_cap = get64(h + 32);
  g->max_open = get32(h + 40);
  g->max_active = get32(h + 44);
  g->zasl = get32(h + 48);
  if ((rc = validate_geometry(g))) return rc;
  dev->data_off = get64(h + 64);
  if (get64(h + 56) != EMU_HEADER_SIZE || dev->data_off != data_offset(g->nr_zones)) {
    emu_set_error("%s: header offsets are inconsistent (corrupt header)", path);
    return -EINVAL;
  }
  uint64_t need = dev->data_off + (uint64_t)g->nr_zones * g->zone_size;
  if ((uint64_t)st.st_size < need) {
    emu_set_error("%s is truncated: %llu bytes, the geometry needs %llu", path, (unsigned long long)st.st_size,
                  (unsigned long long)need);
    return -EINVAL;
  }
  dev->map_len = EMU_HEADER_SIZE + table_bytes(g->nr_zones);
  dev->map = mmap(NULL, dev->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, 0);
  if (dev->map == MAP_FAILED) {
    dev->map = NULL;
    emu_set_error("cannot map %s: %s", path, strerror(errno));
    return -ENOMEM;
  }
  dev->zs.geo = *g;
  if (!(dev->zs.zones = calloc(g->nr_zones, sizeof *dev->zs.zones))) return -ENOMEM;
  dev->zs.on_change = on_zone_change;
  dev->zs.owner = dev;
  for (uint32_t i = 0; i < g->nr_zones; i++) {
    const uint8_t *m = (const uint8_t *)mapped_entry(dev, i);
    zs_entry *z = &dev->zs.zones[i];
    *z = (zs_entry){.written = get64(m), .cond = get32(m + 8), .crc = get32(m + 12)};
    if (z->crc != entry_crc(i, z) || !zs_cond_valid(z->cond) || z->written > g->zone_cap) {
      emu_set_error("%s: zone table entry %u is corrupt", path, i);
      return -EINVAL;
    }
  }
  zs_recount(&dev->zs);
  /* Opening is a power cycle for the device: open zones become closed (or empty if unwritten). */
  for (uint32_t i = 0; i < g->nr_zones; i++) {
    uint32_t c = dev->zs.zones[i].cond;
    if (c == ZKV_ZONE_IMP_OPEN || c == ZKV_ZONE_EXP_OPEN)
      zs_set(&dev->zs, i, dev->zs.zones[i].written ? ZKV_ZONE_CLOSED : ZKV_ZONE_EMPTY, dev->zs.zones[i].written);
  }
  put32((uint8_t *)dev->map + EMU_OWNER_PID_OFF, (uint32_t)getpid());
  return 0;
}

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
  if ((rc = take_ownership(dev->fd, path)) || (rc = load(dev, path))) goto fail;
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

/* ---------- faults and durability ---------- */

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

static void punch(emu_dev *dev, uint32_t zone, uint64_t rel, uint64_t len) {
  if (!len) return;
  uint64_t off = dev->data_off + (uint64_t)zone * dev->base.geo.zone_size + rel;
  if (fallocate(dev->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) < 0) {
    static const uint8_t zeros[4096];
    for (uint64_t done = 0; done < len; done += sizeof zeros) /* file systems without hole punching */
      write_full(dev->fd, zeros, len - done < sizeof zeros ? len - done : sizeof zeros, off + done);
  }
}

int emu_nd_complete(emu_dev *dev, uint64_t id, int fua) {
  for (size_t i = dev->nd_len; i-- > 0;) {
    nd_rec *r = &dev->nd[i];
    if (r->id != id) continue;
    int rc = 0;
    if (r->cut) { /* the data landed after the cut: undo what the cut lost */
      punch(dev, r->zone, r->rel + r->keep, r->len - r->keep);
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
    punch(dev, r->zone, r->rel + r->keep, r->len - r->keep);
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

/* ---------- clock ---------- */

uint64_t emu_now(emu_dev *dev) { return dev->virtual_clock ? atomic_load(&dev->vclock) : zkv_now_ns(); }

void emu_wait_until(emu_dev *dev, uint64_t deadline) {
  if (!dev->virtual_clock) {
    zkv_wait_until(deadline);
    return;
  }
  uint64_t t = atomic_load(&dev->vclock);
  while (deadline > t && !atomic_compare_exchange_weak(&dev->vclock, &t, deadline)) {}
}

uint64_t zkv_emu_clock_ns(zkv_dev *d) {
  d = dev_made_of(d); /* a plmarray: device runs on the clock of the device it is made of */
  return d->be == &zkv_emu_backend ? emu_now((emu_dev *)d) : 0;
}

/* ---------- requests ---------- */

static const int FAULT_OF_OP[] = {ZKV_FAULT_READ, ZKV_FAULT_WRITE, ZKV_FAULT_APPEND, ZKV_FAULT_FLUSH};

/* The throughput pipe a zone's requests go through: the device's, or its NVM Set's (plm). */
static zkv_pipe *device_pipe(emu_dev *dev, uint32_t zone) {
  return dev->plm ? &dev->set_pipes[plm_set_index(dev->plm, zone)] : &dev->pipe;
}

/* The requests the device is still working on at `now`, the queue depth a new request meets in the
 * timing model: begun, and their deadline not yet passed. A request whose deadline has passed is
 * done as far as the device is concerned whether or not its completion has been reaped: ZWAL reaps
 * its appends only when its window needs room, and counting the finished ones kept every request
 * beside them at up to 32 more in flight (zn540's latency grows 5.9x from QD 1 to QD 64). */
static uint32_t busy_at(emu_dev *dev, uint64_t now) {
  uint32_t j = 0;
  for (uint32_t i = 0; i < dev->n_busy; i++)
    if (dev->busy[i] > now) dev->busy[j++] = dev->busy[i];
  return dev->n_busy = j;
}

/* A begun request's deadline joins the busy ones (no room to grow: it is left out, a lower queue
 * depth for the model, never an error). */
static void busy_add(emu_dev *dev, uint64_t deadline) {
  if (dev->n_busy == dev->cap_busy) {
    uint32_t cap = dev->cap_busy ? dev->cap_busy * 2 : 64;
    uint64_t *b = realloc(dev->busy, cap * sizeof *b);
    if (!b) return;
    dev->busy = b, dev->cap_busy = cap;
  }
  dev->busy[dev->n_busy++] = deadline;
}

/* An ended request leaves the busy ones (one entry of its deadline, if it is still there). */
static void busy_remove(emu_dev *dev, uint64_t deadline) {
  for (uint32_t i = 0; i < dev->n_busy; i++)
    if (dev->busy[i] == deadline) {
      dev->busy[i] = dev->busy[--dev->n_busy];
      return;
    }
}

int emu_io_begin(emu_dev *dev, emu_io *io) {
  const zkv_geometry *g = &dev->base.geo;
  const zkv_profile *p = dev->prof;
  uint64_t now = emu_now(dev);
  zkv_timing t;
  uint64_t *rng = io->rng ? io->rng : &dev->rng;
  int64_t zone = io->op == ZKV_OP_APPEND ? (int64_t)io->zone : (int64_t)(io->offset / g->zone_size);
  uint32_t cut_keep = 0;
  int rc = emu_fault_check(dev, FAULT_OF_OP[io->op], zone, &cut_keep);
  if (rc && rc != EMU_CUT_DURING) return rc;
  io->cut_keep = cut_keep; /* a write that gets under way, the power lost during it (emu_cut_during) */
  io->nd_id = 0;
  io->result = 0;
  io->submitted = now;
  uint32_t busy = busy_at(dev, now);
  switch (io->op) {
    case ZKV_OP_READ:
      if ((rc = zs_check_read(&dev->zs, io->offset, io->len))) return rc;
      io->file_off = dev->data_off + io->offset;
      {
        uint64_t rel = io->offset % g->zone_size, w = atomic_load_explicit(&dev->readable[zone], memory_order_acquire);
        io->valid = rel + io->len <= w ? io->len : (size_t)readable_prefix(dev, (uint32_t)zone, rel, io->len);
      }
      t = zkv_timing_deadline(p, &p->read_lat, &p->read_gap, device_pipe(dev, (uint32_t)zone), NULL, io->len, busy, now,
                              rng);
      io->deadline = t.deadline;
      if (dev->plm) io->deadline += plm_on_read(dev->plm, (uint32_t)zone, io->len, io->deadline - now);
      break;
    case ZKV_OP_WRITE:
    case ZKV_OP_APPEND: {
      int append = io->op == ZKV_OP_APPEND;
      uint64_t rel = append ? 0 : io->offset % g->zone_size, assigned;
      if (!append && io->offset / g->zone_size >= g->nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
      if (zone >= g->nr_zones) return ZKV_ERR(ZKV_NVME_LBA_OUT_OF_RANGE);
      dev->writes_under_way[zone]++; /* before the write pointer moves: readable stays (on_zone_change) */
      if ((rc = zs_write(&dev->zs, (uint32_t)zone, rel, io->len, append, &assigned)) ||
          (rc = emu_nd_add(dev, (uint32_t)zone, assigned, io->len, &io->nd_id))) {
        dev->writes_under_way[zone]--;
        publish_readable(dev, (uint32_t)zone);
        return rc;
      }
      io->file_off = dev->data_off + (uint64_t)zone * g->zone_size + assigned;
      io->result = append ? (int64_t)((uint64_t)zone * g->zone_size + assigned) : 0;
      zkv_pipe *pipe = p->per_zone_serial ? &dev->zone_pipes[zone] : device_pipe(dev, (uint32_t)zone);
      t = zkv_timing_deadline(p, append ? &p->append_lat : &p->write_lat, append ? &p->append_gap : &p->write_gap, pipe,
                              p->per_zone_serial ? &dev->ceiling : NULL, io->len, busy, now, rng);
      io->deadline = t.deadline;
      if (dev->plm) io->deadline += plm_on_write(dev->plm, (uint32_t)zone, io->len);
      if (append)
        dev->stats.appends++, dev->stats.bytes_appended += io->len;
      else
        dev->stats.writes++, dev->stats.bytes_written += io->len;
      break;
    }
    case ZKV_OP_FLUSH: {
      /* assumption: a flush covers what completed before it was submitted, and writes the cache's
       * dirty bytes out at the device's write bandwidth */
      uint64_t dirty = 0;
      for (size_t i = 0; i < dev->nd_len; i++)
        if (!dev->nd[i].inflight) dirty += dev->nd[i].len;
      emu_nd_flush(dev);
      t = (zkv_timing){0};
      io->deadline = zkv_profile_is_instant(p)
                         ? 0
                         : now + p->flush_ns + (uint64_t)((double)dirty * zkv_profile_write_ns_per_byte(p));
      dev->stats.flushes++;
      break;
    }
    default: return -EINVAL;
  }
  io->spacing_ns = t.spacing_ns;
  io->model_latency_ns = t.model_latency_ns;
  if (io->deadline > now) busy_add(dev, io->deadline);
  return 0;
}

int64_t emu_io_end(emu_dev *dev, emu_io *io, int64_t io_res) { return emu_io_end_seen(dev, io, io_res, 0); }

int64_t emu_io_end_seen(emu_dev *dev, emu_io *io, int64_t io_res, uint64_t seen) {
  busy_remove(dev, io->deadline);
  if (!dev->virtual_clock) zkv_timing_observe(io->submitted, io->deadline, seen ? seen : zkv_now_ns());
  int rc = 0;
  if (io->nd_id) rc = emu_nd_complete(dev, io->nd_id, io->flags & ZKV_IO_FUA);
  if (io->nd_id) { /* a write or append ends: its bytes are in the file, reads may see them */
    uint32_t zone = io->op == ZKV_OP_APPEND ? io->zone : (uint32_t)(io->offset / dev->base.geo.zone_size);
    dev->writes_under_way[zone]--;
    publish_readable(dev, zone);
  }
  if (io->op == ZKV_OP_READ && io_res >= 0) dev->stats.reads++, dev->stats.bytes_read += io->len;
  if (io_res < 0) return io_res;
  if (rc) return rc;
  if (dev->dead) return -ENODEV;
  return io->result;
}

int emu_write_data(emu_dev *dev, const void *buf, size_t len, uint64_t file_off) {
  return write_full(dev->fd, buf, len, file_off);
}

int emu_read_data(emu_dev *dev, const emu_io *io, size_t skip, void *buf, size_t n) {
  size_t from_file = io->valid <= skip ? 0 : (io->valid - skip < n ? io->valid - skip : n);
  memset((uint8_t *)buf + from_file, 0, n - from_file); /* above the write pointer */
  return from_file ? read_full(dev->fd, buf, from_file, io->file_off + skip) : 0;
}

static __thread uint64_t *thread_model_time; /* zkv_emu_thread_model_time */

void zkv_emu_thread_model_time(uint64_t *sink) { thread_model_time = sink; }

/* The calling thread waited for a request modelled from `submitted` to `deadline`
 * (ThreadModelTime): its sink, if it registered one, counts the time and the request. */
static void count_model_time(uint64_t submitted, uint64_t deadline) {
  if (!thread_model_time) return;
  thread_model_time[0] += deadline > submitted ? deadline - submitted : 0;
  thread_model_time[1]++;
}

/* A synchronous request; reads deliver bytes [skip, skip + n) of it to buf. */
static int64_t sync_io_part(emu_dev *dev, emu_io *io, size_t skip, void *buf, size_t n) {
  pthread_mutex_lock(&dev->mu);
  int rc = emu_io_begin(dev, io);
  pthread_mutex_unlock(&dev->mu);
  if (rc) return rc;
  int64_t res = 0;
  if (io->op == ZKV_OP_READ)
    res = emu_read_data(dev, io, skip, buf, n);
  else if (io->op != ZKV_OP_FLUSH)
    res = write_full(dev->fd, buf, io->len, io->file_off);
  if (io->cut_keep) emu_cut_during(dev, io);
  emu_wait_until(dev, io->deadline);
  count_model_time(io->submitted, io->deadline);
  pthread_mutex_lock(&dev->mu);
  res = emu_io_end(dev, io, res);
  pthread_mutex_unlock(&dev->mu);
  return res;
}

static int64_t sync_io(emu_dev *dev, emu_io *io, void *buf) { return sync_io_part(dev, io, 0, buf, io->len); }

/* A read on a device whose reads take no modelled time needs no timing state, so it skips the
 * lock (two lock round trips and the clock reads were most of the zone file system's per-read
 * cost with two readers, docs/zone-fs-performance.md). The zone's condition and write pointer are
 * read atomically; a concurrent write may or may not be seen, as on a real device. -EAGAIN: take
 * the locked path (a fault rule may hit reads, or the device lost power). */
static int read_unlocked(emu_dev *dev, emu_io *io, size_t skip, void *buf, size_t n) {
  if (atomic_load_explicit(&dev->read_fault_rules, memory_order_acquire) ||
      __atomic_load_n(&dev->dead, __ATOMIC_ACQUIRE))
    return -EAGAIN;
  const zkv_geometry *g = &dev->base.geo;
  int rc = zs_check_read(&dev->zs, io->offset, io->len);
  if (rc) return rc;
  uint64_t rel = io->offset % g->zone_size,
           w = atomic_load_explicit(&dev->readable[io->offset / g->zone_size], memory_order_acquire);
  if (rel + io->len > w) return -EAGAIN; /* past the lowest write under way: readable_prefix decides */
  io->valid = io->len;
  io->file_off = dev->data_off + io->offset;
  if ((rc = emu_read_data(dev, io, skip, buf, n))) return rc;
  zkv_stripe *mine = &dev->unlocked_read_counts[zkv_stripe_index()];
  atomic_fetch_add_explicit(&mine->a, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&mine->b, io->len, memory_order_relaxed);
  return 0;
}

/* Reads submitted together (dev_read_parallel), in parallel on the device: each is timed from now
 * as a request of its own, and all complete when the last one's deadline has passed. */
static int emu_read_parallel(zkv_dev *d, int n, const uint64_t *offset, uint8_t *const *buf, const size_t *len) {
  emu_dev *dev = (emu_dev *)d;
  emu_io io[DEV_READ_PARALLEL_MAX];
  int begun = 0, rc = 0;
  uint64_t last = 0;
  pthread_mutex_lock(&dev->mu);
  for (; begun < n && !rc; begun++) {
    io[begun] = (emu_io){.op = ZKV_OP_READ, .offset = offset[begun], .len = len[begun]};
    if ((rc = emu_io_begin(dev, &io[begun]))) break;
    if (io[begun].deadline > last) last = io[begun].deadline;
  }
  pthread_mutex_unlock(&dev->mu);
  int64_t res[DEV_READ_PARALLEL_MAX] = {0};
  for (int i = 0; i < begun; i++) res[i] = emu_read_data(dev, &io[i], 0, buf[i], len[i]);
  emu_wait_until(dev, last);
  if (begun) count_model_time(io[0].submitted, last);
  pthread_mutex_lock(&dev->mu);
  for (int i = 0; i < begun; i++) {
    int64_t r = emu_io_end(dev, &io[i], res[i]);
    if (!rc && r < 0) rc = (int)r;
  }
  pthread_mutex_unlock(&dev->mu);
  return rc;
}

static int emu_write(zkv_dev *dev, uint64_t offset, const void *buf, size_t len, int flags) {
  emu_io io = {.op = ZKV_OP_WRITE, .flags = flags, .offset = offset, .len = len};
  return (int)sync_io((emu_dev *)dev, &io, (void *)buf);
}

static int64_t emu_append(zkv_dev *dev, uint32_t zone, const void *buf, size_t len, int flags) {
  emu_io io = {.op = ZKV_OP_APPEND, .flags = flags, .zone = zone, .len = len};
  return sync_io((emu_dev *)dev, &io, (void *)buf);
}

static int emu_read(zkv_dev *d, uint64_t offset, void *buf, size_t len) {
  emu_dev *dev = (emu_dev *)d;
  emu_io io = {.op = ZKV_OP_READ, .offset = offset, .len = len};
  int rc = dev->unlocked_reads ? read_unlocked(dev, &io, 0, buf, len) : -EAGAIN;
  return rc != -EAGAIN ? rc : (int)sync_io(dev, &io, buf);
}

/* The model times and checks the whole aligned read; only the wanted bytes leave the file. */
static int emu_read_part(zkv_dev *d, uint64_t offset, size_t len, size_t skip, void *out, size_t n) {
  emu_dev *dev = (emu_dev *)d;
  emu_io io = {.op = ZKV_OP_READ, .offset = offset, .len = len};
  int rc = dev->unlocked_reads ? read_unlocked(dev, &io, skip, out, n) : -EAGAIN;
  return rc != -EAGAIN ? rc : (int)sync_io_part(dev, &io, skip, out, n);
}

static int emu_flush(zkv_dev *dev) {
  emu_io io = {.op = ZKV_OP_FLUSH};
  return (int)sync_io((emu_dev *)dev, &io, NULL);
}

static int emu_report(zkv_dev *d, uint32_t first, zkv_zone *out, uint32_t n) {
  emu_dev *dev = (emu_dev *)d;
  pthread_mutex_lock(&dev->mu);
  int rc = dev->dead ? -ENODEV : 0;
  uint32_t count = 0;
  for (uint32_t i = first; !rc && i < dev->base.geo.nr_zones && count < n; i++, count++) {
    zs_entry *z = &dev->zs.zones[i];
    uint64_t start = (uint64_t)i * dev->base.geo.zone_size;
    out[count] = (zkv_zone){
        .start = start, .cap = dev->base.geo.zone_cap, .wp = start + z->written, .cond = z->cond, .index = i};
  }
  dev->stats.reports++;
  /* a report costs a fixed part and a part per zone descriptor returned */
  uint64_t deadline =
      zkv_profile_is_instant(dev->prof) ? 0 : emu_now(dev) + dev->prof->report_ns + count * dev->prof->report_zone_ns;
  pthread_mutex_unlock(&dev->mu);
  emu_wait_until(dev, deadline);
  return rc ? rc : (int)count;
}

static int emu_zone_mgmt(zkv_dev *d, uint32_t zone, int action) {
  emu_dev *dev = (emu_dev *)d;
  pthread_mutex_lock(&dev->mu);
  uint32_t cut_keep = 0; /* rules that cut the power match writes only */
  int rc = emu_fault_check(dev, ZKV_FAULT_MGMT, zone, &cut_keep);
  uint64_t before = zone < dev->base.geo.nr_zones ? dev->zs.zones[zone].written : 0;
  if (!rc) rc = zs_mgmt(&dev->zs, zone, action);
  if (!rc && action == ZKV_ZONE_RESET) {
    /* Reads above the write pointer return zeros without touching the file, so the old data could
     * stay; discard=1 (the default) gives its space back to the host file system, so the backing
     * file takes about as much disk as the data it holds (a 100,000-record YCSB load took 433 MB
     * without, against 198 MB for RocksDB's default Env). */
    if (dev->discard) punch(dev, zone, 0, before);
    if (dev->plm && before) plm_on_reset(dev->plm, zone);
    size_t j = 0; /* what was not durable in the zone is gone with the reset */
    for (size_t i = 0; i < dev->nd_len; i++)
      if (dev->nd[i].inflight || dev->nd[i].zone != zone) dev->nd[j++] = dev->nd[i];
    dev->nd_len = j;
    dev->stats.resets++;
  }
  uint64_t busy = dev->prof->mgmt_ns;
  if (!rc && action == ZKV_ZONE_FINISH) {
    /* assumption: the device pads the unwritten capacity at its write bandwidth (docs/timing-model.md) */
    if (dev->prof->finish_pads && before < dev->base.geo.zone_cap)
      busy += (uint64_t)((double)(dev->base.geo.zone_cap - before) * zkv_profile_write_ns_per_byte(dev->prof));
    /* The blocks a finish skips were not written since the zone's last reset, so they read as
     * zeros; a reset without discard left the old data in the file, and the write pointer of a
     * full zone no longer hides it. */
    if (before < dev->base.geo.zone_cap) punch(dev, zone, before, dev->base.geo.zone_cap - before);
    dev->stats.finishes++;
  }
  uint64_t deadline = zkv_profile_is_instant(dev->prof) ? 0 : emu_now(dev) + busy;
  pthread_mutex_unlock(&dev->mu);
  emu_wait_until(dev, deadline);
  return rc;
}

static int emu_stats(zkv_dev *d, zkv_dev_stats *out) {
  emu_dev *dev = (emu_dev *)d;
  pthread_mutex_lock(&dev->mu);
  *out = dev->stats;
  pthread_mutex_unlock(&dev->mu);
  for (int i = 0; i < ZKV_STRIPES; i++) {
    out->reads += atomic_load_explicit(&dev->unlocked_read_counts[i].a, memory_order_relaxed);
    out->bytes_read += atomic_load_explicit(&dev->unlocked_read_counts[i].b, memory_order_relaxed);
  }
  return 0;
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
