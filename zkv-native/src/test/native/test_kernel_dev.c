/* Tests a real zoned device through the public API: test_kernel_dev URI (nvme:/dev/ngXnY or
 * zbd:/dev/nvmeXnY, or the ZKV_TEST_DEVICE environment variable). Without a device it reports a
 * skip (exit code 77, which CTest shows as skipped): the host kernel has none, the QEMU guest
 * (scripts/guest/) has both. Every zone is reset first and last; covers report, reset, writes at
 * the write pointer, appends (synchronous and at queue depth 8, with the out-of-order count),
 * read-back, partial reads of aligned ranges (zkv_dev_read_part), finish, open/close, split
 * transfers and the error statuses. CMakeLists.txt also runs it on an emu: and a plmarray:
 * device, so the emulator and the composed device pass the same checks. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kdev.h"
#include "test_util.h"
#include "zkv/device.h"

#define ZE(s) ZKV_ERR(ZKV_NVME_##s)

static zkv_dev *dev;
static zkv_geometry g;

static void fill(uint8_t *b, size_t len, uint64_t id) {
  uint64_t s = id * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < len; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    b[i] = (uint8_t)s;
  }
}

static uint8_t *pat(size_t len, uint64_t id) {
  uint8_t *b = malloc(len);
  CHECK(b != NULL);
  fill(b, len, id);
  return b;
}

static zkv_zone zone(uint32_t z) {
  zkv_zone out;
  CHECK_EQ(zkv_dev_report(dev, z, &out, 1), 1);
  return out;
}

static void check_data(uint64_t off, const uint8_t *want, size_t len) {
  uint8_t *got = malloc(len);
  CHECK(got != NULL);
  CHECK_EQ(zkv_dev_read(dev, off, got, len), 0);
  CHECK(memcmp(got, want, len) == 0);
  free(got);
}

static void reset_all(void) {
  zkv_zone *zs = calloc(g.nr_zones, sizeof *zs);
  CHECK(zs != NULL);
  CHECK_EQ(zkv_dev_report(dev, 0, zs, g.nr_zones), g.nr_zones);
  for (uint32_t i = 0; i < g.nr_zones; i++)
    if (zs[i].cond != ZKV_ZONE_EMPTY) CHECK_EQ(zkv_dev_zone_mgmt(dev, i, ZKV_ZONE_RESET), 0);
  CHECK_EQ(zkv_dev_report(dev, 0, zs, g.nr_zones), g.nr_zones);
  for (uint32_t i = 0; i < g.nr_zones; i++) {
    CHECK_EQ(zs[i].index, i);
    CHECK_EQ(zs[i].cond, ZKV_ZONE_EMPTY);
    CHECK_EQ(zs[i].start, (uint64_t)i * g.zone_size);
    CHECK_EQ(zs[i].wp, zs[i].start);
    CHECK_EQ(zs[i].cap, g.zone_cap);
  }
  free(zs);
}

static void test_write_read(void) {
  uint32_t lba = g.lba_size;
  uint8_t *a = pat(2 * lba, 1);
  CHECK_EQ(zkv_dev_write(dev, 0, a, 2 * lba, 0), 0);
  zkv_zone z = zone(0);
  CHECK_EQ(z.cond, ZKV_ZONE_IMP_OPEN);
  CHECK_EQ(z.wp, 2 * lba);
  check_data(0, a, 2 * lba);
  CHECK_EQ(zkv_dev_write(dev, 3 * lba, a, lba, 0), ZE(ZONE_INVALID_WRITE));
  CHECK_EQ(zkv_dev_write(dev, 0, a, lba, ZKV_IO_FUA), ZE(ZONE_INVALID_WRITE));
  CHECK_EQ(zkv_dev_write(dev, 2 * lba, a, lba, ZKV_IO_FUA), 0);
  CHECK_EQ(zone(0).wp, 3 * lba);
  CHECK_EQ(zkv_dev_flush(dev), 0);
  uint8_t *zero = calloc(1, lba), *got = malloc(lba);
  CHECK_EQ(zkv_dev_read(dev, 3 * lba, got, lba), 0);
  CHECK(memcmp(got, zero, lba) == 0); /* above the write pointer after a reset: zeros */
  free(a), free(zero), free(got);
  printf("  write at wp, read back, invalid writes ok\n");
}

static void test_big_transfer(void) {
  /* Larger than one NVMe command moves (256 KiB at most), so the backend splits it. */
  size_t len = g.zone_cap < 1024 * 1024 ? (size_t)g.zone_cap : 1024 * 1024;
  uint64_t off = 4 * g.zone_size;
  uint8_t *b = pat(len, 4);
  CHECK_EQ(zkv_dev_write(dev, off, b, len, 0), 0);
  CHECK_EQ(zone(4).wp, off + len);
  check_data(off, b, len);
  free(b);
  printf("  %zu-byte write and read ok\n", len);
}

static void test_appends(void) {
  uint32_t lba = g.lba_size, z = 1;
  uint64_t expect = (uint64_t)z * g.zone_size;
  uint8_t *bufs[4];
  uint64_t at[4];
  for (int i = 0; i < 4; i++) {
    size_t len = (size_t)(i + 1) * lba;
    if (len > g.zasl) len = g.zasl;
    bufs[i] = pat(len, 10 + (uint64_t)i);
    int64_t r = zkv_dev_append(dev, z, bufs[i], len, i == 3 ? ZKV_IO_FUA : 0);
    CHECK_EQ(r, (int64_t)expect);
    at[i] = (uint64_t)r;
    expect += len;
  }
  CHECK_EQ(zone(z).wp, expect);
  for (int i = 0; i < 4; i++) {
    size_t len = (size_t)(i + 1) * lba;
    check_data(at[i], bufs[i], len > g.zasl ? g.zasl : len);
    free(bufs[i]);
  }
  uint8_t *big = pat(g.zasl + lba, 5);
  CHECK_EQ(zkv_dev_append(dev, z, big, g.zasl + lba, 0), ZE(INVALID_FIELD));
  CHECK_EQ(zkv_dev_append(dev, g.nr_zones, big, lba, 0), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(zkv_dev_append(dev, z, big, g.zasl, 0), (int64_t)expect);
  free(big);
  printf("  synchronous appends ok\n");
}

static void test_queue_appends(void) {
  enum { N = 64, QD = 8 };
  uint32_t lba = g.lba_size, z = 2;
  int err = 0;
  zkv_queue *q = zkv_queue_create(dev, QD, &err);
  CHECK(q != NULL);
  uint8_t *src = malloc((size_t)N * lba);
  for (int i = 0; i < N; i++) fill(src + (size_t)i * lba, lba, 100 + (uint64_t)i);
  int64_t at[N];
  int order[N], done = 0, next = 0;
  while (done < N) {
    while (next < N) {
      zkv_request r = {
          .op = ZKV_OP_APPEND, .zone = z, .buf = src + (size_t)next * lba, .len = lba, .tag = (uint64_t)next};
      int rc = zkv_queue_submit(q, &r);
      if (rc == -EBUSY) break;
      CHECK_EQ(rc, 0);
      next++;
    }
    zkv_completion c[QD];
    int n = zkv_queue_reap(q, c, 1, QD, 60000000000ll); /* bounded: fails only if none ever completes */
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
      CHECK(c[i].result >= 0);
      at[c[i].tag] = c[i].result;
      order[done++] = (int)c[i].tag;
    }
  }
  CHECK_EQ(zkv_queue_inflight(q), 0);
  zkv_queue_destroy(q);
  /* Distinct and contiguous: each block of the appended range is assigned exactly once. */
  uint8_t seen[N] = {0};
  uint64_t base = (uint64_t)z * g.zone_size;
  int out_of_order = 0;
  for (int i = 0; i < N; i++) {
    uint64_t slot = ((uint64_t)at[i] - base) / lba;
    CHECK(slot < N);
    CHECK(!seen[slot]);
    seen[slot] = 1;
    check_data((uint64_t)at[i], src + (size_t)i * lba, lba);
    if (i > 0 && order[i] < order[i - 1]) out_of_order++; /* reaped before an earlier submission */
  }
  CHECK_EQ(zone(z).wp, base + (uint64_t)N * lba);
  int lba_not_submission = 0;
  for (int i = 0; i < N; i++) lba_not_submission += ((uint64_t)at[i] - base) / lba != (uint64_t)i;
  printf(
      "  %d queued appends (QD %d): distinct, contiguous, intact; %d completions reaped out of submission "
      "order, %d LBAs differ from submission order\n",
      N, QD, out_of_order, lba_not_submission);
  free(src);
}

static void test_zone_mgmt(void) {
  uint32_t lba = g.lba_size, z = 3;
  uint8_t *b = pat(lba, 7);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_CLOSE), ZE(INVALID_ZONE_STATE_TRANSITION));
  CHECK_EQ(zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zone(z).cond, ZKV_ZONE_EXP_OPEN);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(zone(z).cond, ZKV_ZONE_EMPTY); /* closing an unwritten zone empties it */
  CHECK_EQ(zkv_dev_write(dev, (uint64_t)z * g.zone_size, b, lba, 0), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(zone(z).cond, ZKV_ZONE_CLOSED);
  CHECK_EQ(zone(z).wp, (uint64_t)z * g.zone_size + lba);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_FINISH), 0);
  zkv_zone f = zone(z);
  CHECK_EQ(f.cond, ZKV_ZONE_FULL);
  CHECK_EQ(f.wp, f.start + f.cap);
  check_data(f.start, b, lba);
  CHECK_EQ(zkv_dev_write(dev, f.start + lba, b, lba, 0), ZE(ZONE_IS_FULL));
  CHECK_EQ(zkv_dev_append(dev, z, b, lba, 0), ZE(ZONE_IS_FULL));
  CHECK_EQ(zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_OPEN), ZE(INVALID_ZONE_STATE_TRANSITION));
  CHECK_EQ(zkv_dev_zone_mgmt(dev, z, ZKV_ZONE_RESET), 0);
  CHECK_EQ(zone(z).cond, ZKV_ZONE_EMPTY);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, g.nr_zones, ZKV_ZONE_RESET), ZE(LBA_OUT_OF_RANGE));
  free(b);
  printf("  open, close, finish, reset and refused transitions ok\n");
}

/* nvme: only. A piece the kernel refuses before the device sees it (Linux 6.1 refuses some pages
 * pinnings with EFAULT) is issued again from that piece on: the write lands whole and in order, a
 * read returns every byte. Refused more often than kdev_queue.c retries, the write fails with
 * EFAULT and only the pieces before the refused one landed. */
static void test_refused_pieces(void) {
  if (nvme_refuse_pieces(dev, 0) == -ENOTSUP) return;
  uint32_t piece = ((kdev *)dev)->max_xfer;
  size_t len = g.zone_cap < 4 * (uint64_t)piece ? (size_t)(g.zone_cap / piece * piece) : 4 * (size_t)piece;
  if (len < 2 * (size_t)piece) return;
  uint64_t off = 5 * g.zone_size;
  uint8_t *b = pat(len, 5);
  CHECK_EQ(nvme_refuse_pieces(dev, 2), 0);
  CHECK_EQ(zkv_dev_write(dev, off, b, len, 0), 0);
  CHECK_EQ(((kdev *)dev)->refuse_pieces, 0);
  CHECK_EQ(zone(5).wp, off + len);
  CHECK_EQ(nvme_refuse_pieces(dev, 1), 0);
  check_data(off, b, len);
  CHECK_EQ(((kdev *)dev)->refuse_pieces, 0);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, 5, ZKV_ZONE_RESET), 0);
  CHECK_EQ(nvme_refuse_pieces(dev, 1000), 0);
  CHECK_EQ(zkv_dev_write(dev, off, b, len, 0), -EFAULT);
  CHECK_EQ(nvme_refuse_pieces(dev, 0), 0);
  CHECK_EQ(zone(5).wp, off + piece);
  check_data(off, b, piece);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, 5, ZKV_ZONE_RESET), 0);
  free(b);
  printf("  pieces refused by the kernel issued again ok\n");
}

static void test_errors(void) {
  uint32_t lba = g.lba_size;
  uint8_t *b = calloc(1, 2 * (size_t)lba);
  uint64_t end = (uint64_t)g.nr_zones * g.zone_size;
  CHECK_EQ(zkv_dev_read(dev, g.zone_size - lba, b, 2 * lba), ZE(ZONE_BOUNDARY_ERROR));
  CHECK_EQ(zkv_dev_read(dev, end, b, lba), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(zkv_dev_write(dev, end, b, lba, 0), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(zkv_dev_read(dev, 1, b, lba), ZE(INVALID_FIELD));
  CHECK_EQ(zkv_dev_write(dev, 5 * g.zone_size, b, lba + 1, 0), ZE(INVALID_FIELD));
  CHECK_EQ(zkv_dev_read(dev, end - lba, b, lba), 0);
  free(b);
  printf("  error statuses ok\n");
}

/* zkv_dev_read_part returns exactly the wanted bytes of the aligned range, zeros above the write
 * pointer, and the device's statuses for a bad range (whichever path the backend takes). */
static void test_read_part(void) {
  uint32_t lba = g.lba_size;
  uint64_t off = 2 * g.zone_size;
  uint8_t *a = pat(3 * (size_t)lba, 11), *got = malloc(4 * (size_t)lba);
  CHECK(got != NULL);
  CHECK_EQ(zkv_dev_write(dev, off, a, 3 * (size_t)lba, 0), 0);
  const size_t parts[][3] = {{0, 1, 1},       {0, 1, lba - 1}, {1, 7, 1},           {2, 100, 4000},
                             {2, 0, 2 * lba}, {3, lba - 1, 2}, {3, 2 * lba - 5, 5}, {2, 17, 0}};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    size_t blocks = parts[i][0] ? parts[i][0] : 1, skip = parts[i][1], n = parts[i][2];
    memset(got, 0xEE, 4 * (size_t)lba);
    CHECK_EQ(zkv_dev_read_part(dev, off, blocks * lba, skip, got, n), 0);
    CHECK(memcmp(got, a + skip, n) == 0);
    CHECK(got[n] == 0xEE); /* nothing past n */
  }
  /* the last written block and the first above the write pointer */
  memset(got, 0xEE, 4 * (size_t)lba);
  CHECK_EQ(zkv_dev_read_part(dev, off + 2 * lba, 2 * lba, 100, got, lba), 0);
  CHECK(memcmp(got, a + 2 * lba + 100, lba - 100) == 0);
  for (size_t i = lba - 100; i < lba; i++) CHECK(got[i] == 0);
  CHECK_EQ(zkv_dev_read_part(dev, off, lba, lba, got, 1), -EINVAL);
  CHECK_EQ(zkv_dev_read_part(dev, off, lba, 5, got, lba), -EINVAL);
  CHECK_EQ(zkv_dev_read_part(dev, off + 1, lba, 0, got, 1), ZE(INVALID_FIELD));
  CHECK_EQ(zkv_dev_read_part(dev, off + g.zone_size - lba, 2 * lba, 0, got, 1), ZE(ZONE_BOUNDARY_ERROR));
  free(a), free(got);
  printf("  partial reads of aligned ranges ok\n");
}

static void test_limits(void) {
  if (!g.max_open || g.nr_zones < g.max_open + 8) return;
  uint32_t lba = g.lba_size, first = 6;
  uint8_t *b = pat(lba, 9);
  for (uint32_t i = 0; i < g.max_open; i++) CHECK_EQ(zkv_dev_zone_mgmt(dev, first + i, ZKV_ZONE_OPEN), 0);
  int want = g.max_active && g.max_active <= g.max_open ? ZE(TOO_MANY_ACTIVE_ZONES) : ZE(TOO_MANY_OPEN_ZONES);
  CHECK_EQ(zkv_dev_zone_mgmt(dev, first + g.max_open, ZKV_ZONE_OPEN), want);
  CHECK_EQ(zkv_dev_write(dev, (uint64_t)(first + g.max_open) * g.zone_size, b, lba, 0), want);
  for (uint32_t i = 0; i < g.max_open; i++) CHECK_EQ(zkv_dev_zone_mgmt(dev, first + i, ZKV_ZONE_RESET), 0);
  free(b);
  printf("  open limit (%u) ok\n", g.max_open);
}

int main(int argc, char **argv) {
  const char *uri = argc > 1 ? argv[1] : getenv("ZKV_TEST_DEVICE");
  if (!uri || !*uri) {
    printf("test_kernel_dev: SKIPPED: no device given (usage: test_kernel_dev nvme:/dev/ngXnY | zbd:/dev/nvmeXnY)\n");
    return 77;
  }
  int err = 0;
  dev = zkv_dev_open(uri, &err);
  if (!dev) {
    fprintf(stderr, "test_kernel_dev: cannot open %s: %d %s\n", uri, err, zkv_dev_last_error());
    return 1;
  }
  CHECK_EQ(zkv_dev_geometry(dev, &g), 0);
  zkv_dev *second = zkv_dev_open(uri, &err); /* devices are opened exclusively */
  CHECK(second == NULL);
  CHECK_EQ(err, -EBUSY);
  printf("test_kernel_dev %s: lba %u, %u zones of %" PRIu64 " bytes (capacity %" PRIu64
         "), max open %u, max active %u, zasl %u\n",
         uri, g.lba_size, g.nr_zones, g.zone_size, g.zone_cap, g.max_open, g.max_active, g.zasl);
  CHECK(g.nr_zones >= 16);
  reset_all();
  test_write_read();
  test_appends();
  test_queue_appends();
  test_zone_mgmt();
  test_big_transfer();
  test_refused_pieces();
  test_errors();
  reset_all();
  test_read_part();
  reset_all();
  test_limits();
  reset_all();
  zkv_dev_stats st;
  CHECK_EQ(zkv_dev_stats_get(dev, &st), 0);
  CHECK(st.appends >= 68 && st.writes >= 4 && st.reads > 0 && st.resets > 0);
  zkv_dev_close(dev);
  TEST_DONE("test_kernel_dev");
  return 0;
}
