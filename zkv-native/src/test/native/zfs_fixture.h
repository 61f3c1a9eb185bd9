/* Shared fixture of the zone file system C tests: an emulated device in a temporary directory,
 * mounted with the tests' policies (test_policies.h), files of seeded patterns, and byte-level
 * damage to the backing file. */
#ifndef ZKV_ZFS_FIXTURE_H
#define ZKV_ZFS_FIXTURE_H
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/timing.h"
#include "emulator/emu_internal.h"
#include "test_policies.h"
#include "test_util.h"
#include "zonefs.h"

/* Each test program uses a part of the fixture. */
#define FIXTURE static __attribute__((unused))

static char dir[64], path[128], uri[192];
static uint64_t rng;
static char err[512];

static zkv_geometry GEO = {.lba_size = 4096,
                           .nr_zones = 24,
                           .zone_size = 4 << 20,
                           .zone_cap = 3 << 20,
                           .max_open = 6,
                           .max_active = 6,
                           .zasl = 256 << 10};

FIXTURE zkv_dev *open_dev(void) {
  int e = 0;
  zkv_dev *d = zkv_dev_open(uri, &e);
  if (!d) fprintf(stderr, "open %s: %s\n", uri, zkv_dev_last_error());
  CHECK(d != NULL);
  return d;
}

FIXTURE zfs *mount_ok(zkv_dev *d) {
  int rc = 0;
  zfs *fs = zfs_mount(d, &rc, err, sizeof err);
  if (!fs) fprintf(stderr, "mount: %d %s\n", rc, err);
  CHECK(fs != NULL);
  zkv_geometry g;
  CHECK_EQ(zkv_dev_geometry(d, &g), 0);
  tp_install(fs, &g); /* the tests' policies, as a ZkvEnv installs the Java ones */
  CHECK_EQ(zfs_start_gc(fs), 0);
  return fs;
}

FIXTURE void fresh(const char *options) {
  unlink(path);
  CHECK_EQ(zkv_emu_format(path, &GEO), 0);
  snprintf(uri, sizeof uri, "emu:%s%s", path, options);
  zkv_dev *d = open_dev();
  CHECK_EQ(zfs_mkfs(d, NULL, err, sizeof err), 0);
  zkv_dev_close(d);
}

/* A zfs_check problem callback that shows each problem (tests then assert the count is 0). */
FIXTURE void print_problem(const char *msg, void *arg) {
  (void)arg;
  fprintf(stderr, "fsck: %s\n", msg);
}

/* Byte i of file `seed` is a function of both, so any misplaced byte is caught. */
FIXTURE uint8_t pattern(uint64_t seed, uint64_t i) { return (uint8_t)((i * 2654435761u) ^ (seed * 97) ^ (i >> 13)); }

FIXTURE void fill(uint8_t *buf, uint64_t seed, uint64_t from, size_t n) {
  for (size_t i = 0; i < n; i++) buf[i] = pattern(seed, from + i);
}

FIXTURE uint64_t write_file(zfs *fs, const char *name, uint64_t seed, uint64_t total, int sync_often) {
  int rc = 0;
  zfs_file *f = zfs_create(fs, name, 3, &rc);
  CHECK(f != NULL);
  uint8_t *buf = malloc(200000);
  uint64_t done = 0;
  while (done < total) {
    size_t n = 1 + zkv_rng_next(&rng) % 150000;
    if (n > total - done) n = (size_t)(total - done);
    fill(buf, seed, done, n);
    CHECK_EQ(zfs_append(f, buf, n), 0);
    done += n;
    if (sync_often && zkv_rng_next(&rng) % 3 == 0) CHECK_EQ(zfs_sync(f), 0);
    CHECK_EQ(zfs_file_size(f), done);
  }
  CHECK_EQ(zfs_close(f), 0);
  free(buf);
  return total;
}

FIXTURE void check_file(zfs *fs, const char *name, uint64_t seed, uint64_t size) {
  int rc = 0;
  zfs_file *f = zfs_open(fs, name, &rc);
  if (!f) fprintf(stderr, "missing file %s\n", name);
  CHECK(f != NULL);
  CHECK_EQ(zfs_file_size(f), size);
  uint8_t *buf = malloc(size + 1), *want = malloc(size + 1);
  CHECK_EQ(zfs_pread(f, 0, buf, size + 1), (int64_t)size);
  fill(want, seed, 0, size);
  CHECK(memcmp(buf, want, size) == 0);
  for (int k = 0; k < 20 && size; k++) { /* unaligned ranges */
    uint64_t off = zkv_rng_next(&rng) % size;
    size_t n = 1 + zkv_rng_next(&rng) % 70000;
    int64_t got = zfs_pread(f, off, buf, n);
    CHECK_EQ(got, (int64_t)(n < size - off ? n : size - off));
    CHECK(memcmp(buf, want + off, (size_t)got) == 0);
  }
  CHECK_EQ(zfs_close(f), 0);
  free(buf);
  free(want);
}

/* Where device offset 0 lies in the backing file. */
FIXTURE uint64_t backing_data_offset(void) {
  zkv_dev *d = open_dev();
  uint64_t off = ((emu_dev *)d)->data_off;
  zkv_dev_close(d);
  return off;
}

/* Flips a byte of the backing file at device offset `at`. */
FIXTURE void flip(uint64_t at) {
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0);
  uint64_t data_off = backing_data_offset();
  uint8_t b;
  CHECK_EQ(pread(fd, &b, 1, (off_t)(data_off + at)), 1);
  b ^= 0xA5;
  CHECK_EQ(pwrite(fd, &b, 1, (off_t)(data_off + at)), 1);
  close(fd);
}

FIXTURE uint64_t meta_end(zkv_dev *d, uint32_t *zone) {
  zkv_zone z[3];
  CHECK_EQ(zkv_dev_report(d, 0, z, 3), 3);
  for (uint32_t i = 0; i < 3; i++)
    if (z[i].wp > z[i].start) {
      *zone = i;
      return z[i].wp;
    }
  CHECK(0);
  return 0;
}

/* Zeros `n` bytes of the backing file at device offset `at`. */
FIXTURE void zero_at(uint64_t at, size_t n) {
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0);
  uint64_t data_off = backing_data_offset();
  uint8_t *z = calloc(1, n);
  CHECK_EQ(pwrite(fd, z, n, (off_t)(data_off + at)), (ssize_t)n);
  free(z);
  close(fd);
}

FIXTURE void make_temp_dir(void) {
  const char *s = getenv("ZKV_SEED");
  rng = s ? strtoull(s, NULL, 0) : 0x20F5;
  snprintf(dir, sizeof dir, "/tmp/zkv-zonefs-XXXXXX");
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/dev.zkvemu", dir);
}

FIXTURE void remove_temp_dir(void) {
  unlink(path);
  rmdir(dir);
}
#endif
