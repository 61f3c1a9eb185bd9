/* Files on the emulated device: data and names across mounts, namespace operations and
 * reclamation, concurrent writers, and the constant metadata cost of a sync. */
#include "zfs_fixture.h"

static void test_files_persist_across_mounts(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint64_t a = write_file(fs, "/db/000001.sst", 1, 7 << 20, 1); /* spans three zones */
  uint64_t b = write_file(fs, "/db/MANIFEST-000002", 2, 12345, 0);
  uint64_t c = write_file(fs, "/db/empty", 3, 0, 0);
  check_file(fs, "/db/000001.sst", 1, a);
  check_file(fs, "/db/MANIFEST-000002", 2, b);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/000001.sst", 1, a);
  check_file(fs, "/db/MANIFEST-000002", 2, b);
  check_file(fs, "/db/empty", 3, c);
  uint64_t size = 0;
  CHECK_EQ(zfs_stat(fs, "/db/nope", &size), -ENOENT);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void count_name(const char *name, uint64_t size, void *arg) {
  (void)name, (void)size;
  (*(int *)arg)++;
}

static void test_namespace_and_reclamation(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  write_file(fs, "/db/a.dbtmp", 4, 100000, 0);
  CHECK_EQ(zfs_rename(fs, "/db/a.dbtmp", "/db/CURRENT"), 0);
  CHECK_EQ(zfs_stat(fs, "/db/a.dbtmp", NULL), -ENOENT);
  check_file(fs, "/db/CURRENT", 4, 100000);
  /* rename over an existing file replaces it */
  write_file(fs, "/db/b.dbtmp", 5, 5000, 0);
  CHECK_EQ(zfs_rename(fs, "/db/b.dbtmp", "/db/CURRENT"), 0);
  check_file(fs, "/db/CURRENT", 5, 5000);
  CHECK_EQ(zfs_link(fs, "/db/CURRENT", "/backup/CURRENT"), 0);
  CHECK_EQ(zfs_link(fs, "/db/CURRENT", "/backup/CURRENT"), -EEXIST);
  CHECK_EQ(zfs_delete(fs, "/db/CURRENT"), 0);
  check_file(fs, "/backup/CURRENT", 5, 5000);
  int n = 0;
  zfs_list(fs, "/backup/", count_name, &n);
  CHECK_EQ(n, 1);
  /* deleting the last live data of zones resets them */
  zfs_stats before, after;
  write_file(fs, "/db/big.sst", 6, 9 << 20, 0);
  zfs_stats_get(fs, &before);
  CHECK(before.full_zones >= 2);
  CHECK_EQ(zfs_delete(fs, "/db/big.sst"), 0);
  zfs_stats_get(fs, &after);
  CHECK(after.resets >= before.resets + 3);
  CHECK(after.empty_zones > before.empty_zones);
  CHECK_EQ(after.gc_bytes, 0);
  /* a file deleted while a reader holds it stays readable until the reader closes */
  write_file(fs, "/db/held.sst", 7, 300000, 0);
  int rc = 0;
  zfs_file *r = zfs_open(fs, "/db/held.sst", &rc);
  CHECK(r != NULL);
  CHECK_EQ(zfs_delete(fs, "/db/held.sst"), 0);
  CHECK_EQ(zfs_stat(fs, "/db/held.sst", NULL), -ENOENT);
  uint8_t buf[100], want[100];
  fill(want, 7, 1000, 100);
  CHECK_EQ(zfs_pread(r, 1000, buf, 100), 100);
  CHECK(memcmp(buf, want, 100) == 0);
  CHECK_EQ(zfs_close(r), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/backup/CURRENT", 5, 5000);
  CHECK_EQ(zfs_stat(fs, "/db/held.sst", NULL), -ENOENT);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* More writers than the device's active limit: the file system finishes zones instead of failing. */
typedef struct worker {
  zfs *fs;
  int id;
  uint64_t rng;
} worker;

static void *write_and_verify(void *arg) {
  worker *w = arg;
  char name[32];
  snprintf(name, sizeof name, "/db/t%d.sst", w->id);
  int rc = 0;
  zfs_file *f = zfs_create(w->fs, name, 3, &rc);
  CHECK(f != NULL);
  uint8_t *buf = malloc(65536);
  uint64_t done = 0;
  for (int i = 0; i < 60; i++) {
    size_t n = 1 + zkv_rng_next(&w->rng) % 65536;
    fill(buf, 200 + (uint64_t)w->id, done, n);
    CHECK_EQ(zfs_append(f, buf, n), 0);
    done += n;
    if (i % 7 == 0) CHECK_EQ(zfs_sync(f), 0);
    uint64_t off = zkv_rng_next(&w->rng) % done; /* read back while writing */
    size_t m = (size_t)(done - off < 4096 ? done - off : 4096);
    uint8_t want[4096];
    CHECK_EQ(zfs_pread(f, off, buf, m), (int64_t)m);
    fill(want, 200 + (uint64_t)w->id, off, m);
    CHECK(memcmp(buf, want, m) == 0);
  }
  CHECK_EQ(zfs_close(f), 0);
  free(buf);
  return NULL;
}

static void test_concurrent_writers(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  pthread_t t[4];
  worker w[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (worker){fs, i, rng + (uint64_t)i};
    pthread_create(&t[i], NULL, write_and_verify, &w[i]);
  }
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.files, 4);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A sync writes one block of metadata whatever the file's history (a full record per sync made
 * metadata grow with the square of a WAL's syncs); a log roll's snapshot is the only exception. */
static void test_sync_metadata_is_constant(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/000042.log", 2, &rc);
  CHECK(f != NULL);
  uint8_t buf[100];
  uint64_t first_max = 0, last_max = 0, rolls = 0;
  enum { SYNCS = 3000 };
  for (int i = 0; i < SYNCS; i++) {
    zfs_stats before, after;
    zfs_stats_get(fs, &before);
    fill(buf, 42, (uint64_t)i * sizeof buf, sizeof buf);
    CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
    CHECK_EQ(zfs_sync(f), 0);
    zfs_stats_get(fs, &after);
    if (after.meta_rolls != before.meta_rolls) {
      rolls++;
      continue;
    }
    uint64_t cost = after.meta_bytes - before.meta_bytes;
    if (i < 1000 && cost > first_max) first_max = cost;
    if (i >= SYNCS - 1000 && cost > last_max) last_max = cost;
  }
  CHECK_EQ(first_max, GEO.lba_size);
  CHECK_EQ(last_max, GEO.lba_size);
  CHECK(rolls >= 1);
  CHECK_EQ(zfs_close(f), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/000042.log", 42, SYNCS * sizeof buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* An image of format version 1 (no sync records) mounts, and the mount's log roll writes version 2. */

/* Zone capacity equal to zone size (null_blk's and QEMU's default): the next zone starts where a
 * zone's capacity ends, so contiguity on the device must not merge extents across zones. */
static void run_with_capacity_equal_to_size(void) {
  zkv_geometry saved = GEO;
  GEO.zone_cap = GEO.zone_size;
  test_files_persist_across_mounts();
  test_namespace_and_reclamation();
  test_concurrent_writers();
  GEO = saved;
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_files seed=%llu\n", (unsigned long long)rng);
  test_files_persist_across_mounts();
  test_namespace_and_reclamation();
  test_concurrent_writers();
  test_sync_metadata_is_constant();
  run_with_capacity_equal_to_size();
  remove_temp_dir();
  TEST_DONE("test_zonefs_files");
  return 0;
}
