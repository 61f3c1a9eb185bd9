/* Host tests of the kernel backends' pure parts: NVMe status mapping and the geometry checks made
 * before a request is issued (the device paths themselves run in the QEMU guest: test_kernel_dev). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "kernel/kdev.h"
#include "test_util.h"

#define ZE(s) ZKV_ERR(ZKV_NVME_##s)
#define KiB 1024ull
#define MiB (1024ull * 1024ull)

static void status_mapping(void) {
  CHECK_EQ(kdev_nvme_code(0), 0);
  CHECK_EQ(kdev_nvme_code(-EIO), -EIO);
  CHECK_EQ(kdev_nvme_code(-EAGAIN), -EAGAIN);
  CHECK_EQ(kdev_nvme_code(0x4002), ZE(INVALID_FIELD)); /* DNR dropped */
  CHECK_EQ(kdev_nvme_code(0x01B9), ZE(ZONE_IS_FULL));
  CHECK_EQ(kdev_nvme_code(0x61BE), ZE(TOO_MANY_OPEN_ZONES)); /* More + DNR dropped */
  CHECK_EQ(kdev_nvme_code(0x0080), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(kdev_nvme_code(0x0281), ZKV_ERR(0x281)); /* a status zkv has no name for keeps its value */
  CHECK_EQ(kdev_nvme_code(0x4000), -EIO);           /* no status code at all */
}

static void geometry_checks(void) {
  kdev d;
  memset(&d, 0, sizeof d);
  d.base.geo = (zkv_geometry){.lba_size = 4096,
                              .nr_zones = 32,
                              .zone_size = 4 * MiB,
                              .zone_cap = 3 * MiB,
                              .max_open = 4,
                              .max_active = 6,
                              .zasl = 128 * KiB};
  uint64_t end = 32 * 4 * MiB;
  char buf[1];
  struct {
    int op;
    uint32_t zone;
    uint64_t off;
    size_t len;
    int want;
  } cases[] = {
      {ZKV_OP_READ, 0, 0, 4 * KiB, 0},
      {ZKV_OP_WRITE, 0, 4 * MiB - 8 * KiB, 8 * KiB, 0}, /* capacity is the device's business */
      {ZKV_OP_READ, 0, 4 * MiB - 4 * KiB, 8 * KiB, ZE(ZONE_BOUNDARY_ERROR)},
      {ZKV_OP_WRITE, 0, 0, 4 * MiB + 4 * KiB, ZE(ZONE_BOUNDARY_ERROR)},
      {ZKV_OP_READ, 0, end - 4 * KiB, 4 * KiB, 0},
      {ZKV_OP_READ, 0, end - 4 * KiB, 8 * KiB, ZE(LBA_OUT_OF_RANGE)},
      {ZKV_OP_WRITE, 0, end, 4 * KiB, ZE(LBA_OUT_OF_RANGE)},
      {ZKV_OP_READ, 0, 1, 4 * KiB, ZE(INVALID_FIELD)},
      {ZKV_OP_WRITE, 0, 0, 4 * KiB + 1, ZE(INVALID_FIELD)},
      {ZKV_OP_WRITE, 0, 0, 0, ZE(INVALID_FIELD)},
      {ZKV_OP_APPEND, 31, 0, 128 * KiB, 0},
      {ZKV_OP_APPEND, 1, 0, 132 * KiB, ZE(INVALID_FIELD)},
      {ZKV_OP_APPEND, 1, 0, 100, ZE(INVALID_FIELD)},
      {ZKV_OP_APPEND, 32, 0, 4 * KiB, ZE(LBA_OUT_OF_RANGE)},
      {ZKV_OP_FLUSH, 0, 0, 0, 0},
      {7, 0, 0, 4 * KiB, -EINVAL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    zkv_request r = {.op = cases[i].op, .zone = cases[i].zone, .offset = cases[i].off, .buf = buf, .len = cases[i].len};
    int got = kdev_check(&d, &r);
    if (got != cases[i].want) fprintf(stderr, "case %zu\n", i);
    CHECK_EQ(got, cases[i].want);
  }
}

int main(void) {
  status_mapping();
  geometry_checks();
  TEST_DONE("test_kdev_checks");
  return 0;
}
