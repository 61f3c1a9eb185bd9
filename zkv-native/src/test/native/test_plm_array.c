/* Tests of the plmarray: device (docs/plm.md): refusals at open, binding by I/O class,
 * reconstruction returning the bytes a direct read returns with every kv-set in turn outside its
 * DTWIN, held writes readable before and after they drain (and never reaching a set in DTWIN), the
 * full buffer writing through, and power cuts with held writes losing no acknowledged write.
 * Windows run on the emulator's virtual clock (clock=manual); data comes from seeds that a failure
 * prints. `test_plm_array --format PATH` formats the device the conformance run (test_kernel_dev
 * on a plmarray: URI, CMakeLists.txt) uses; `--format P1 P2 P3 P4`, the namespaces of the run on a
 * composition of devices, one per set; `--parallel-reads URI,URI,...`, the parallel reads over a
 * drive's namespaces (the QEMU guest's). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/le_bytes.h"
#include "plm_array/set_concat.h"
#include "test_util.h"
#include "zkv/device.h"

#define KiB 1024ull
#define MiB (1024ull * 1024ull)
#define CHUNK (64 * KiB)
#define LZ (8 * MiB) /* the array's zone size */
#define WAL ZKV_IO_CLASS(ZKV_CLASS_WAL)
#define SST ZKV_IO_CLASS(ZKV_CLASS_INTERNAL)

static char tmpdir[] = "/tmp/zkv-test-plm-array-XXXXXX";
static char path[512];

static void cleanup(void) {
  DIR *d = opendir(tmpdir);
  if (!d) return;
  struct dirent *e;
  char p[700];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name), unlink(p);
  closedir(d);
  rmdir(tmpdir);
}

/* 32 zones of 4 MiB: 4 NVM Sets of 8 zones; the array: 3 meta zones and 8 striped ones of 8 MiB. */
static const zkv_geometry G = {
    .lba_size = 4096, .nr_zones = 32, .zone_size = 4 * MiB, .zone_cap = 4 * MiB, .zasl = 256 * KiB};

static void format(const zkv_geometry *g) {
  unlink(path);
  CHECK_EQ(zkv_emu_format(path, g), 0);
}

static zkv_dev *open_array(const char *array_opts, const char *emu_opts) {
  char uri[1024];
  snprintf(uri, sizeof uri, "plmarray:%s%semu:%s?profile=plm&clock=manual%s", array_opts, *array_opts ? "@" : "", path,
           emu_opts);
  int err = 0;
  zkv_dev *d = zkv_dev_open(uri, &err);
  if (!d) fprintf(stderr, "open %s: %d %s\n", uri, err, zkv_dev_last_error());
  CHECK(d != NULL);
  return d;
}

static void fill(uint8_t *b, size_t len, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < len; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    b[i] = (uint8_t)s;
  }
}

static int admin(zkv_dev *d, uint32_t cdw10, uint32_t cdw11, uint32_t cdw12, void *buf, uint32_t len) {
  zkv_admin_cmd c = {.opcode = 0x09, .cdw10 = cdw10, .cdw11 = cdw11, .cdw12 = cdw12, .buf = buf, .len = len};
  return zkv_dev_nvme_admin(d, &c);
}
static int configure(zkv_dev *d, uint32_t set, int on) {
  uint8_t cfg[512] = {0};
  return admin(d, 0x13, set, (uint32_t)on, cfg, sizeof cfg);
}
static void window(zkv_dev *d, uint32_t set, uint32_t w) { CHECK_EQ(admin(d, 0x14, set, w, NULL, 0), 0); }

/* PLM on for the kv-sets (2..4), all in DTWIN except `nd` (0: none). */
static void windows(zkv_dev *d, uint32_t nd) {
  for (uint32_t s = 2; s <= 4; s++) {
    zkv_plm_array_stats st;
    CHECK_EQ(zkv_plm_array_stats_get(d, s, &st), 0);
    if (st.window == 0) CHECK_EQ(configure(d, s, 1), 0);
  }
  for (uint32_t s = 2; s <= 4; s++)
    if (s != nd) window(d, s, 1);
  if (nd) window(d, nd, 2);
}

static zkv_plm_array_stats astats(zkv_dev *d, uint32_t set) {
  zkv_plm_array_stats st;
  CHECK_EQ(zkv_plm_array_stats_get(d, set, &st), 0);
  return st;
}

static uint64_t writes_in_dtwin(zkv_dev *d) {
  uint64_t n = 0;
  for (uint32_t s = 2; s <= 4; s++) {
    zkv_emu_plm_stats st;
    CHECK_EQ(zkv_emu_plm_stats_get(d, s, &st), 0);
    n += st.writes_in_dtwin;
  }
  return n;
}

static void check_bytes(zkv_dev *d, uint64_t off, const uint8_t *want, size_t len, size_t piece) {
  uint8_t *got = malloc(len);
  CHECK(got != NULL);
  for (size_t at = 0; at < len; at += piece) {
    size_t n = len - at < piece ? len - at : piece;
    CHECK_EQ(zkv_dev_read(d, off + at, got + at, n), 0);
  }
  if (memcmp(got, want, len) != 0) {
    size_t i = 0;
    while (got[i] == want[i]) i++;
    fprintf(stderr, "first difference at byte %zu of [%llu, +%zu)\n", i, (unsigned long long)off, len);
  }
  CHECK(memcmp(got, want, len) == 0);
  free(got);
}

static void test_refusals(void) {
  char uri[1024];
  int err = 0;
  format(&G);
  snprintf(uri, sizeof uri, "plmarray:emu:%s?profile=plm&sets=3", path);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "at least 4 NVM Sets") != NULL);
  snprintf(uri, sizeof uri, "plmarray:emu:%s?profile=instant", path);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "needs a device with NVM Sets") != NULL);
  snprintf(uri, sizeof uri, "plmarray:chunk=12k@emu:%s?profile=plm", path);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "dividing the zone capacity") != NULL);
  snprintf(uri, sizeof uri, "plmarray:color=red@emu:%s?profile=plm", path);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK_EQ(err, -EINVAL);
  CHECK(zkv_dev_open("plmarray:nvme:/dev/ng0n1", &err) == NULL); /* one namespace: one set */
  CHECK(strstr(zkv_dev_last_error(), "one per NVM Set, listed with commas") != NULL);
  zkv_dev *d = open_array("", "");
  zkv_geometry g;
  CHECK_EQ(zkv_dev_geometry(d, &g), 0);
  CHECK_EQ(g.nr_zones, 3 + 8); /* (8 - 2 journal zones) / 2 meta zones, 8 stripe groups */
  CHECK_EQ(g.zone_cap, LZ);
  uint8_t cfg[512] = {0};
  CHECK_EQ(admin(d, 0x13, 1, 1, cfg, sizeof cfg), -EINVAL); /* the meta set keeps PLM off */
  CHECK(strstr(zkv_dev_last_error(), "meta set") != NULL);
  zkv_dev_close(d);
}

/* The WAL and metadata bind to the meta set, other data to the kv-sets. When its kind runs out,
 * the WAL binds to a stripe group, but SST data is refused the meta set (the file system keeps
 * within the geometry's meta_class_zones); a class-less write takes whatever is free. */
static void test_binding(void) {
  format(&G);
  zkv_dev *d = open_array("", "");
  zkv_geometry g;
  CHECK_EQ(zkv_dev_geometry(d, &g), 0);
  CHECK(g.flags & ZKV_GEO_CLASS_BOUND_ZONES);
  CHECK_EQ(g.meta_class_zones, 3);
  uint8_t *b = malloc(64 * KiB);
  CHECK(b != NULL);
  fill(b, 64 * KiB, 1);
  for (uint32_t z = 0; z < 4; z++) CHECK_EQ(zkv_dev_write(d, z * LZ, b, 64 * KiB, WAL), 0);
  CHECK_EQ(astats(d, 1).writes_direct, 3); /* three meta zones; the fourth WAL zone is striped */
  CHECK_EQ(astats(d, 2).writes_direct + astats(d, 3).writes_direct + astats(d, 4).writes_direct, 1);
  CHECK_EQ(zkv_dev_write(d, 5 * LZ, b, 64 * KiB, SST), 0);
  CHECK_EQ(astats(d, 1).writes_direct, 3);
  for (uint32_t z = 0; z < 6; z++)
    if (z != 4) check_bytes(d, z * LZ, b, 64 * KiB, 4 * KiB);
  zkv_dev_close(d);
  d = open_array("", ""); /* the bindings come back from the journal */
  for (uint32_t z = 0; z < 6; z++)
    if (z != 4) check_bytes(d, z * LZ, b, 64 * KiB, 64 * KiB);
  zkv_zone rep[11];
  CHECK_EQ(zkv_dev_report(d, 0, rep, 11), 11);
  CHECK_EQ(rep[4].cond, ZKV_ZONE_EMPTY);
  CHECK_EQ(rep[5].wp - rep[5].start, 64 * KiB);
  /* Every stripe group bound (zones 3..10), one meta group freed: SST data is refused it, a
   * class-less write takes it. */
  for (uint32_t z = 4; z < 11; z++)
    if (z != 5) CHECK_EQ(zkv_dev_write(d, z * LZ, b, 64 * KiB, SST), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_RESET), 0);
  CHECK_EQ(zkv_dev_write(d, 0, b, 64 * KiB, SST), -ENOSPC);
  CHECK(strstr(zkv_dev_last_error(), "all 8 stripe groups are bound") != NULL);
  CHECK_EQ(zkv_dev_write(d, 0, b, 64 * KiB, 0), 0);
  CHECK_EQ(astats(d, 1).writes_direct, 1); /* the counters start at the reopen */
  check_bytes(d, 0, b, 64 * KiB, 64 * KiB);
  zkv_dev_close(d);
  free(b);
}

/* Data written with PLM off (straight to the sets), then read with each kv-set in turn in NDWIN
 * and the others in DTWIN: chunks on that set are rebuilt from the others, and every read returns
 * the bytes written, which are the bytes a direct read returned before. */
static void test_reconstruction(uint64_t seed) {
  format(&G);
  zkv_dev *d = open_array("", "");
  size_t len = 2 * MiB - 192 * KiB; /* whole stripes and a partial one */
  uint8_t *data = malloc(len), *direct = malloc(len);
  fill(data, len, seed);
  CHECK_EQ(zkv_dev_write(d, LZ, data, len, SST), 0); /* zone 1 */
  CHECK_EQ(zkv_dev_read(d, LZ, direct, len), 0);
  CHECK(memcmp(direct, data, len) == 0);
  for (uint32_t nd = 2; nd <= 4; nd++) {
    windows(d, nd);
    uint64_t before[5];
    for (uint32_t s = 2; s <= 4; s++) before[s] = astats(d, s).reads_reconstructed;
    size_t pieces[] = {4 * KiB, 12 * KiB, CHUNK, 3 * CHUNK + 8 * KiB};
    check_bytes(d, LZ, direct, len, pieces[(seed + nd) % 4]);
    CHECK(astats(d, nd).reads_reconstructed > before[nd]);
    for (uint32_t s = 2; s <= 4; s++)
      if (s != nd) CHECK_EQ(astats(d, s).reads_reconstructed, before[s]);
    window(d, nd, 1); /* waits out the NDWIN minimum on the virtual clock */
  }
  zkv_dev_close(d);
  free(data);
  free(direct);
}

/* Log page 0Ah of NVM Set `set`, read through the array. */
static void log_page(zkv_dev *d, uint32_t set, uint8_t page[512]) {
  zkv_admin_cmd c = {.opcode = 0x02, .cdw10 = 0x0A | (127u << 16), .cdw11 = set << 16, .buf = page, .len = 512};
  CHECK_EQ(zkv_dev_nvme_admin(d, &c), 0);
}

/* A DTWIN the device ends on its own (here its maximum, on the virtual clock) becomes the array's
 * view when the host reads that set's log page, as the window driver does at its decisions: its
 * reads are rebuilt from then on, not served by a set that may be doing internal work. */
static void test_device_ended_dtwin_seen_in_its_log_page(void) {
  format(&G);
  zkv_dev *d = open_array("", "");
  size_t len = 1 * MiB;
  uint8_t *data = malloc(len), page[512];
  fill(data, len, 7);
  CHECK_EQ(zkv_dev_write(d, LZ, data, len, SST), 0); /* PLM off: straight to the sets */
  windows(d, 0);
  for (uint32_t s = 2; s <= 4; s += 2) { /* sets 2 and 4 start a new DTWIN, a minimum NDWIN later */
    window(d, s, 2);
    window(d, s, 1);
  }
  log_page(d, 3, page);
  uint64_t remaining_ms = get64(page + 144); /* DTWIN Time Estimate */
  CHECK(remaining_ms > 0);
  CHECK_EQ(zkv_emu_plm_advance(d, (remaining_ms + 1) * 1000000ull), 0); /* set 3's maximum passes */
  zkv_emu_plm_stats st;
  for (uint32_t s = 2; s <= 4; s++) {
    CHECK_EQ(zkv_emu_plm_stats_get(d, s, &st), 0);
    CHECK_EQ(st.window, s == 3 ? 2u : 1u);
  }
  CHECK_EQ(astats(d, 3).window, 1); /* the array has not seen it yet */
  log_page(d, 3, page);
  CHECK_EQ(page[0] & 7, 2);
  CHECK_EQ(astats(d, 3).window, 2);
  uint64_t rebuilt = astats(d, 3).reads_reconstructed, direct = astats(d, 3).reads_direct;
  check_bytes(d, LZ, data, len, CHUNK);
  CHECK(astats(d, 3).reads_reconstructed > rebuilt);
  CHECK_EQ(astats(d, 3).reads_direct, direct);
  zkv_dev_close(d);
  free(data);
}

/* With every kv-set in DTWIN, writes are held (no write reaches a set in DTWIN) and read from the
 * buffer; each set's NDWIN drains its part, and the data reads the same before and after. */
static void test_held_writes(uint64_t seed) {
  format(&G);
  zkv_dev *d = open_array("", "");
  windows(d, 0);
  size_t len = 5 * CHUNK + 20 * KiB;
  uint8_t *data = malloc(len);
  fill(data, len, seed);
  CHECK_EQ(zkv_dev_write(d, 0, data, len / 2 / 4096 * 4096, SST), 0);
  CHECK_EQ(zkv_dev_write(d, len / 2 / 4096 * 4096, data + len / 2 / 4096 * 4096, len - len / 2 / 4096 * 4096, SST), 0);
  uint64_t held = 0;
  for (uint32_t s = 2; s <= 4; s++) held += astats(d, s).held_bytes;
  CHECK_EQ(held, len + 2 * CHUNK); /* the data and two complete stripes' parity */
  check_bytes(d, 0, data, len, 4 * KiB);
  CHECK(astats(d, 2).reads_from_buffer > 0);
  CHECK_EQ(writes_in_dtwin(d), 0);
  for (uint32_t nd = 2; nd <= 4; nd++) {
    window(d, nd, 2);
    CHECK_EQ(astats(d, nd).held_bytes, 0);
    CHECK(astats(d, nd).bytes_drained > 0);
    check_bytes(d, 0, data, len, 8 * KiB);
    window(d, nd, 1);
  }
  CHECK_EQ(writes_in_dtwin(d), 0);
  /* Held again, then the zone is reset: its held writes go with it, nothing lands later. */
  CHECK_EQ(zkv_dev_write(d, LZ, data, len, SST), 0);
  CHECK(astats(d, 2).held_bytes > 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_RESET), 0);
  for (uint32_t s = 2; s <= 4; s++) CHECK_EQ(astats(d, s).held_bytes, 0);
  uint8_t *zero = calloc(1, len);
  check_bytes(d, LZ, zero, len, 64 * KiB);
  check_bytes(d, 0, data, len, 64 * KiB);
  free(zero);
  zkv_dev_close(d);
  free(data);
}

/* A buffer too small for the writes: the oldest held writes of the set and the new one go through,
 * ending that set's DTWIN (counted on both sides), and the data stays right. */
static void test_buffer_full(void) {
  format(&G);
  zkv_dev *d = open_array("hold=128k", "");
  windows(d, 0);
  size_t len = 8 * CHUNK;
  uint8_t *data = malloc(len);
  fill(data, len, 7);
  CHECK_EQ(zkv_dev_write(d, 0, data, len, SST), 0);
  uint64_t forced = 0, held = 0;
  for (uint32_t s = 2; s <= 4; s++) forced += astats(d, s).writes_forced, held += astats(d, s).held_bytes;
  CHECK(forced > 0);
  CHECK(held <= 128 * KiB);
  CHECK(writes_in_dtwin(d) > 0);
  check_bytes(d, 0, data, len, 16 * KiB);
  zkv_dev_close(d);
  free(data);
}

/* The ablation ladder's switches (docs/plm.md): isolate=0 binds the WAL to the kv-sets, defer=0
 * writes into a DTWIN (ending it, counted as unscheduled), rebuild=0 reads a set in NDWIN directly;
 * with the defaults, writes drained in an NDWIN the host asked for are not unscheduled. */
static void test_ladder_switches(void) {
  char uri[1024];
  int err = 0;
  format(&G);
  snprintf(uri, sizeof uri, "plmarray:defer=2@emu:%s?profile=plm", path);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "defer=0|1") != NULL);
  zkv_dev *d = open_array("isolate=0&defer=0&rebuild=0", "");
  uint8_t *b = malloc(4 * CHUNK), *got = malloc(4 * CHUNK);
  fill(b, 4 * CHUNK, 3);
  CHECK_EQ(zkv_dev_write(d, 0, b, 64 * KiB, WAL), 0);
  CHECK_EQ(astats(d, 1).writes_direct, 0); /* striped: no meta set */
  windows(d, 0);
  CHECK_EQ(zkv_dev_write(d, LZ, b, 4 * CHUNK, SST), 0);
  uint64_t held = 0, unscheduled = 0;
  for (uint32_t s = 2; s <= 4; s++) held += astats(d, s).held_bytes, unscheduled += astats(d, s).writes_unscheduled;
  CHECK_EQ(held, 0);
  CHECK(writes_in_dtwin(d) > 0);
  CHECK_EQ(unscheduled, 4 + 2); /* four data chunks and two parity chunks, none in a host NDWIN */
  windows(d, 2);
  CHECK_EQ(zkv_dev_read(d, LZ, got, 4 * CHUNK), 0);
  CHECK(memcmp(got, b, 4 * CHUNK) == 0);
  for (uint32_t s = 2; s <= 4; s++) CHECK_EQ(astats(d, s).reads_reconstructed, 0);
  zkv_dev_close(d);
  format(&G);
  d = open_array("", "");
  windows(d, 0);
  CHECK_EQ(zkv_dev_write(d, LZ, b, 4 * CHUNK, SST), 0);
  for (uint32_t s = 2; s <= 4; s++) window(d, s, 2), window(d, s, 1);
  for (uint32_t s = 2; s <= 4; s++) {
    CHECK(astats(d, s).bytes_drained > 0);
    CHECK_EQ(astats(d, s).writes_unscheduled, 0);
  }
  zkv_dev_close(d);
  free(b);
  free(got);
}

/* Power cuts with held writes: what was acknowledged durable (a flush returned, or FUA) survives;
 * what was not may be lost, but the zones read back consistently, and so after a reset barrier. */
static void test_power_cut(uint64_t seed) {
  format(&G);
  zkv_dev *d = open_array("", "&wcache=1");
  windows(d, 0);
  size_t a = 3 * CHUNK + 16 * KiB, b = 2 * CHUNK, c = CHUNK;
  uint8_t *data = malloc(a + b + c);
  fill(data, a + b + c, seed);
  CHECK_EQ(zkv_dev_write(d, 0, data, a, SST), 0);
  CHECK_EQ(zkv_dev_flush(d), 0);                                       /* a: synced */
  CHECK_EQ(zkv_dev_write(d, a, data + a, b, SST | ZKV_IO_FUA), 0);     /* b: FUA */
  CHECK_EQ(zkv_dev_write(d, a + b, data + a + b, c, SST), 0);          /* c: not synced */
  CHECK_EQ(zkv_dev_write(d, LZ, data, 64 * KiB, WAL | ZKV_IO_FUA), 0); /* meta set, FUA */
  if (seed % 2) window(d, 2 + (uint32_t)(seed / 2 % 3), 2);            /* some drained, some held */
  CHECK(astats(d, 3).held_bytes + astats(d, 4).held_bytes > 0);
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_RANDOM, seed) >= 0);
  zkv_dev_close(d);
  d = open_array("", "&wcache=1");
  zkv_zone z;
  CHECK_EQ(zkv_dev_report(d, 0, &z, 1), 1);
  CHECK(z.wp - z.start >= a + b);
  check_bytes(d, 0, data, a + b, 4 * KiB);
  check_bytes(d, LZ, data, 64 * KiB, 64 * KiB);
  /* The zone goes on from its write pointer, and parity is right: a read with a set in NDWIN. */
  uint64_t wp = z.wp - z.start;
  uint8_t *more = malloc(4 * CHUNK), *all = malloc(wp + 4 * CHUNK);
  fill(more, 4 * CHUNK, seed + 1);
  CHECK_EQ(zkv_dev_write(d, wp, more, 4 * CHUNK, SST), 0);
  CHECK_EQ(zkv_dev_read(d, 0, all, wp), 0);
  memcpy(all + wp, more, 4 * CHUNK);
  CHECK_EQ(zkv_dev_flush(d), 0);
  windows(d, 2 + (uint32_t)(seed % 3));
  check_bytes(d, 0, all, wp + 4 * CHUNK, 4 * KiB);
  /* Reset barrier: zone 0 reset, a synced write elsewhere, a cut: zone 0 stays empty. */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_RESET), 0);
  CHECK_EQ(zkv_dev_write(d, 2 * LZ, more, 2 * CHUNK, SST), 0);
  CHECK_EQ(zkv_dev_flush(d), 0);
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_RANDOM, seed + 2) >= 0);
  zkv_dev_close(d);
  d = open_array("", "&wcache=1");
  CHECK_EQ(zkv_dev_report(d, 0, &z, 1), 1);
  CHECK_EQ(z.cond, ZKV_ZONE_EMPTY);
  check_bytes(d, 2 * LZ, more, 2 * CHUNK, 8 * KiB);
  zkv_dev_close(d);
  free(data);
  free(more);
  free(all);
}

/* A drive whose NVM Sets are namespaces (nvme:): the array composes devices listed with commas,
 * one per set, the first the meta set. Here plain emulated devices (no admin commands, so no PLM:
 * every set stays off) stand for the namespaces: chunks land on the members the layout names,
 * parity is their XOR, the journal on the first member brings the bindings back, and members
 * that do not match are refused. */
static void test_namespaces_composed(void) {
  char member[4][600], list[2600], uri[4096];
  zkv_geometry g = G;
  g.nr_zones = 8;                   /* as one set of G */
  g.max_open = 6, g.max_active = 8; /* each namespace's own */
  list[0] = 0;
  for (int i = 0; i < 4; i++) {
    snprintf(member[i], sizeof member[i], "%s/ns%d.zkvemu", tmpdir, i + 1);
    unlink(member[i]);
    CHECK_EQ(zkv_emu_format(member[i], &g), 0);
    size_t at = strlen(list);
    snprintf(list + at, sizeof list - at, "%semu:%s?profile=instant", i ? "," : "", member[i]);
  }
  int err = 0;
  snprintf(uri, sizeof uri, "plmarray:emu:%s?profile=instant,emu:%s?profile=instant,emu:%s?profile=instant", member[0],
           member[1], member[2]);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "at least 4 NVM Sets") != NULL);
  CHECK(zkv_dev_open("plmarray:chunk=64k@,", &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "lists no device") != NULL);
  format(&G); /* an emulated PLM device: its sets are zones, not a namespace's */
  snprintf(uri, sizeof uri, "plmarray:%s,emu:%s?profile=plm", list, path);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "member 5") != NULL);
  CHECK(strstr(zkv_dev_last_error(), "is an emulated PLM device") != NULL);
  snprintf(uri, sizeof uri, "plmarray:%s,plmarray:emu:%s", list, path);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "cannot be a plmarray") != NULL);
  char odd[600];
  snprintf(odd, sizeof odd, "%s/odd.zkvemu", tmpdir);
  zkv_geometry h = g;
  h.zone_size = h.zone_cap = 2 * MiB;
  CHECK_EQ(zkv_emu_format(odd, &h), 0);
  snprintf(uri, sizeof uri, "plmarray:%s,emu:%s?profile=instant", list, odd);
  CHECK(zkv_dev_open(uri, &err) == NULL);
  CHECK(strstr(zkv_dev_last_error(), "must have the same zones") != NULL);
  unlink(odd);

  snprintf(uri, sizeof uri, "plmarray:%s", list);
  zkv_dev *d = zkv_dev_open(uri, &err);
  if (!d) fprintf(stderr, "open %s: %d %s\n", uri, err, zkv_dev_last_error());
  CHECK(d != NULL);
  zkv_geometry ag;
  CHECK_EQ(zkv_dev_geometry(d, &ag), 0);
  CHECK_EQ(ag.nr_zones, 3 + 8);
  CHECK_EQ(ag.zone_cap, LZ);
  CHECK_EQ(ag.max_open, 2); /* the meta set's 6: the journal's two, two per meta group */
  CHECK_EQ(ag.max_active, 3);
  CHECK_EQ(astats(d, 2).window, 0); /* PLM off */
  uint8_t id[4096];
  zkv_admin_cmd ident = {.opcode = 0x06, .cdw10 = 1, .buf = id, .len = sizeof id};
  CHECK_EQ(zkv_dev_nvme_admin(d, &ident), -EOPNOTSUPP); /* the members answer no admin commands */
  size_t len = 2 * CHUNK;
  uint8_t *b = malloc(len), *wal = malloc(CHUNK);
  CHECK(b != NULL && wal != NULL);
  fill(b, len, 7);
  fill(wal, CHUNK, 8);
  CHECK_EQ(zkv_dev_write(d, 3 * LZ, b, len, SST), 0); /* the first stripe group: zone 0 of each kv-set */
  CHECK_EQ(zkv_dev_write(d, 0, wal, CHUNK, WAL), 0);  /* the first meta group: member 1's zones 2, 3 */
  check_bytes(d, 3 * LZ, b, len, 4 * KiB);
  check_bytes(d, 0, wal, CHUNK, CHUNK);
  CHECK_EQ(zkv_dev_flush(d), 0);
  zkv_dev_close(d);
  /* Stripe 0: parity on kv-set 0 (member 2), data chunks on members 3 and 4, at offset 0. */
  uint8_t *got = malloc(CHUNK);
  CHECK(got != NULL);
  for (int i = 1; i < 4; i++) {
    char one[700];
    snprintf(one, sizeof one, "emu:%s?profile=instant", member[i]);
    zkv_dev *m = zkv_dev_open(one, &err);
    CHECK(m != NULL);
    CHECK_EQ(zkv_dev_read(m, 0, got, CHUNK), 0);
    for (size_t j = 0; j < CHUNK; j++) {
      uint8_t want = i == 1 ? (uint8_t)(b[j] ^ b[CHUNK + j]) : b[(size_t)(i - 2) * CHUNK + j];
      if (got[j] != want) fprintf(stderr, "member %d byte %zu: %u, want %u\n", i + 1, j, got[j], want);
      CHECK_EQ(got[j], want);
    }
    zkv_dev_close(m);
  }
  char meta[700];
  snprintf(meta, sizeof meta, "emu:%s?profile=instant", member[0]);
  zkv_dev *m = zkv_dev_open(meta, &err);
  CHECK(m != NULL);
  CHECK_EQ(zkv_dev_read(m, 2 * G.zone_size, got, CHUNK), 0);
  CHECK(memcmp(got, wal, CHUNK) == 0);
  zkv_dev_close(m);
  d = zkv_dev_open(uri, &err); /* the journal on member 1 brings the bindings back */
  CHECK(d != NULL);
  check_bytes(d, 3 * LZ, b, len, len);
  check_bytes(d, 0, wal, CHUNK, CHUNK);
  zkv_zone rep[11];
  CHECK_EQ(zkv_dev_report(d, 0, rep, 11), 11);
  CHECK_EQ(rep[3].wp - rep[3].start, len);
  CHECK_EQ(zkv_dev_zone_class(d, 3), ZKV_CLASS_INTERNAL);
  CHECK_EQ(zkv_dev_zone_class(d, 0), ZKV_CLASS_WAL);
  zkv_dev_close(d);
  free(got);
  free(b);
  free(wal);
  for (int i = 0; i < 4; i++) unlink(member[i]);
}

/* The PLM commands' set numbers on a drive whose namespaces are NVM Sets 7, 3, 9 and 5: the
 * array's 1..4 go out as the drive's, other commands and numbers unchanged, and the event
 * aggregate's entries come back as the array's. */
static void test_set_translation(void) {
  const uint16_t sets[4] = {7, 3, 9, 5};
  struct {
    uint8_t opcode;
    uint32_t cdw10, cdw11, want;
  } cases[] = {
      {0x09, 0x14, 0x00000002, 0x00000003},                /* Set Features PLM Window, set 2 */
      {0x0A, 0x14, 0x00000003, 0x00000009},                /* Get Features PLM Window, set 3 */
      {0x09, 0x13, 0xABCD0004, 0xABCD0005},                /* PLM Config, set 4: the upper half kept */
      {0x02, 0x0A | (127u << 16), 0x00010000, 0x00070000}, /* log 0Ah, LSI 1 */
      {0x02, 0x0A | (127u << 16), 0x00050000, 0x00050000}, /* LSI past the members: unchanged */
      {0x02, 0x0B, 0x00020000, 0x00020000},                /* another log: unchanged */
      {0x06, 0x01, 0x00000002, 0x00000002},                /* Identify: unchanged */
      {0x09, 0x07, 0x00000002, 0x00000002},                /* another feature: unchanged */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    zkv_admin_cmd c = {.opcode = cases[i].opcode, .cdw10 = cases[i].cdw10, .cdw11 = cases[i].cdw11};
    set_concat_to_drive(sets, 4, &c);
    if (c.cdw11 != cases[i].want) fprintf(stderr, "case %zu: cdw11 0x%08x\n", i, c.cdw11);
    CHECK_EQ(c.cdw11, cases[i].want);
  }
  uint8_t page[16] = {0};
  put64(page, 3);
  put16(page + 8, 9), put16(page + 10, 7), put16(page + 12, 6); /* 6: no member's */
  zkv_admin_cmd agg = {.opcode = 0x02, .cdw10 = 0x0B | (3u << 16), .buf = page, .len = sizeof page};
  set_concat_from_drive(sets, 4, &agg);
  CHECK_EQ(get16(page + 8), 3);
  CHECK_EQ(get16(page + 10), 1);
  CHECK_EQ(get16(page + 12), 6);
  const uint16_t none[4] = {0};
  zkv_admin_cmd w = {.opcode = 0x09, .cdw10 = 0x14, .cdw11 = 2};
  set_concat_to_drive(none, 4, &w); /* a drive without NVM Sets: the array's numbers go out */
  CHECK_EQ(w.cdw11, 2);
}

/* `test_plm_array --parallel-reads URI,URI,...`: the namespaces of a drive (the QEMU guest's) read
 * at once, as a rebuild reads them: distinct data in zone 0 of each member, read back in one call
 * (and again with the last read past the device, which fails while the others complete), then
 * the zones reset, so that a plmarray: over them opens empty afterwards. */
static int parallel_reads(const char *list) {
  int err = 0;
  zkv_dev *d = set_concat_open(list, &err);
  if (!d) fprintf(stderr, "open %s: %d %s\n", list, err, zkv_dev_last_error());
  CHECK(d != NULL);
  uint32_t n = set_concat_members(d);
  CHECK(n >= 2 && n <= DEV_READ_PARALLEL_MAX);
  zkv_geometry g;
  CHECK_EQ(zkv_dev_geometry(d, &g), 0);
  size_t len = 64 * KiB;
  uint8_t *want = aligned_alloc(4096, len * n), *got = aligned_alloc(4096, len * n);
  CHECK(want != NULL && got != NULL);
  uint64_t off[DEV_READ_PARALLEL_MAX];
  uint8_t *dst[DEV_READ_PARALLEL_MAX];
  size_t lens[DEV_READ_PARALLEL_MAX];
  for (uint32_t i = 0; i < n; i++) {
    uint32_t first, zones;
    CHECK_EQ(set_concat_member(d, i, &first, &zones), 0);
    CHECK_EQ(zkv_dev_zone_mgmt(d, first, ZKV_ZONE_RESET), 0);
    fill(want + i * len, len, 100 + i);
    CHECK_EQ(zkv_dev_write(d, (uint64_t)first * g.zone_size, want + i * len, len, 0), 0);
    off[i] = (uint64_t)first * g.zone_size, dst[i] = got + i * len, lens[i] = len;
  }
  memset(got, 0, len * n);
  CHECK_EQ(dev_read_parallel(d, (int)n, off, dst, lens), 0);
  CHECK(memcmp(got, want, len * n) == 0);
  memset(got, 0, len * n);
  off[n - 1] = (uint64_t)g.nr_zones * g.zone_size; /* past the device */
  CHECK(dev_read_parallel(d, (int)n, off, dst, lens) != 0);
  CHECK(memcmp(got, want, len * (n - 1)) == 0);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t first, zones;
    CHECK_EQ(set_concat_member(d, i, &first, &zones), 0);
    CHECK_EQ(zkv_dev_zone_mgmt(d, first, ZKV_ZONE_RESET), 0);
  }
  zkv_dev_close(d);
  free(want);
  free(got);
  TEST_DONE("test_plm_array --parallel-reads");
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc >= 3 && strcmp(argv[1], "--format") == 0) { /* the conformance runs' devices */
    /* one device of 4 NVM Sets, or (several paths) one namespace per set */
    zkv_geometry g = G;
    g.nr_zones = argc == 3 ? 64 : 16;
    g.zone_size = g.zone_cap = 1 * MiB;
    for (int i = 2; i < argc; i++) {
      unlink(argv[i]);
      if (zkv_emu_format(argv[i], &g)) return 1;
    }
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--parallel-reads") == 0) return parallel_reads(argv[2]);
  CHECK(mkdtemp(tmpdir) != NULL);
  atexit(cleanup);
  snprintf(path, sizeof path, "%s/array.zkvemu", tmpdir);
  uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
  printf("test_plm_array: seed %llu (replay: test_plm_array SEED)\n", (unsigned long long)seed);
  test_refusals();
  test_binding();
  for (uint64_t k = 0; k < 4; k++) test_reconstruction(seed + k);
  test_device_ended_dtwin_seen_in_its_log_page();
  for (uint64_t k = 0; k < 3; k++) test_held_writes(seed + k);
  test_buffer_full();
  test_ladder_switches();
  test_namespaces_composed();
  test_set_translation();
  for (uint64_t k = 0; k < 8; k++) {
    printf("power cut, seed %llu\n", (unsigned long long)(seed + k));
    test_power_cut(seed + k);
  }
  TEST_DONE("test_plm_array");
  return 0;
}
