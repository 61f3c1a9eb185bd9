/* The emulated device's backing file (docs/formats/emulated-device.md): its header, the persistent
 * zone table (memory-mapped, so state survives the process; each entry stored in one instruction),
 * formatting and loading it, and the whole-buffer file I/O the other parts use. Also what reads of
 * each zone see (emu_dev.readable), published as the table or a write under way changes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "common/crc32c.h"
#include "common/le_bytes.h"
#include "emu_internal.h"

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
void emu_publish_readable(emu_dev *dev, uint32_t zone) {
  if (!dev->readable) return; /* still loading */
  uint64_t r = dev->zs.zones[zone].written;
  if (dev->writes_under_way[zone])
    for (size_t i = 0; i < dev->nd_len; i++)
      if (dev->nd[i].inflight && dev->nd[i].zone == zone && dev->nd[i].rel < r) r = dev->nd[i].rel;
  atomic_store_explicit(&dev->readable[zone], r, memory_order_release);
}

static void on_zone_change(zs_table *t, uint32_t zone) {
  t->zones[zone].crc = entry_crc(zone, &t->zones[zone]);
  store_entry(mapped_entry(t->owner, zone), &t->zones[zone]);
  emu_dev *dev = t->owner;
  /* A write's own move of the write pointer waits for its end; resets, finishes and power cuts
   * apply at once (emu_publish_readable never goes above the write pointer). */
  if (dev->readable) {
    uint64_t now = atomic_load_explicit(&dev->readable[zone], memory_order_relaxed);
    if (!dev->writes_under_way[zone] || t->zones[zone].written < now) emu_publish_readable(dev, zone);
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

int emu_write_full(int fd, const void *buf, size_t len, uint64_t off) {
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

int emu_read_full(int fd, void *buf, size_t len, uint64_t off) {
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
  if ((rc = emu_write_full(fd, h, EMU_HEADER_SIZE, 0)) || (rc = emu_write_full(fd, t, tb, EMU_HEADER_SIZE))) goto out;
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
int emu_take_ownership(int fd, const char *path) {
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

int emu_load(emu_dev *dev, const char *path) {
  uint8_t h[EMU_HEADER_SIZE];
  struct stat st;
  int rc = emu_read_full(dev->fd, h, sizeof h, 0);
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
