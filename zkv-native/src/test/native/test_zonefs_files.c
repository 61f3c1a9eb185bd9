/* Files on the emulated device: data and names across mounts, namespace operations and
 * reclamation, concurrent writers, readers of a reopened file, and the constant metadata cost of a
 * sync. */
#include <sched.h>
#include <stdatomic.h>

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

/* What a sync costs in metadata does not grow with the file's history (a full record per sync made
 * metadata grow with the square of a WAL's syncs). A WAL (*.log) is sparse: a sync writes its chunk
 * and no record; the file's record at each zone it takes carries the chunks written since, about 16
 * bytes each. Any other file (the MANIFEST) writes one constant-size extend record, one block, per
 * sync. A log roll's snapshot is not counted. The data reads back after a remount either way. */
static void sync_metadata_of(const char *name, int sparse) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *f = zfs_create(fs, name, 2, &rc);
  CHECK(f != NULL);
  uint8_t buf[100];
  enum { SYNCS = 3000, WINDOW = 1000 };
  uint64_t first_max = 0, last_max = 0, first_total = 0, last_total = 0, free_syncs = 0;
  for (int i = 0; i < SYNCS; i++) {
    zfs_stats before, after;
    zfs_stats_get(fs, &before);
    fill(buf, 42, (uint64_t)i * sizeof buf, sizeof buf);
    CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
    CHECK_EQ(zfs_sync(f), 0);
    zfs_stats_get(fs, &after);
    if (after.meta_rolls != before.meta_rolls) continue;
    uint64_t cost = after.meta_bytes - before.meta_bytes;
    free_syncs += cost == 0;
    if (i < WINDOW) first_total += cost, first_max = cost > first_max ? cost : first_max;
    if (i >= SYNCS - WINDOW) last_total += cost, last_max = cost > last_max ? cost : last_max;
  }
  if (sparse) {
    /* a zone of 3 MiB holds 768 chunks of one block: a record every 768 syncs */
    CHECK(free_syncs >= SYNCS - SYNCS / 700);
    CHECK(first_total / WINDOW <= 32);
    CHECK(last_total / WINDOW <= 32);
  } else {
    CHECK_EQ(first_max, GEO.lba_size);
    CHECK_EQ(last_max, GEO.lba_size);
    CHECK_EQ(free_syncs, 0);
  }
  CHECK_EQ(zfs_close(f), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, name, 42, SYNCS * sizeof buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void test_sync_metadata_is_constant(void) {
  sync_metadata_of("/db/000042.log", 1);
  sync_metadata_of("/db/MANIFEST-000042", 0);
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

/* ---------- sparse files (RocksDB's WALs) ---------- */

/* A WAL synced across several zones and never closed (the process dies, then power goes): the
 * mount finds every synced chunk after the file's last record by reading the zone, and only what
 * was written. */
static void test_sparse_file_recovered_from_its_chunks(void) {
  fresh("?wcache=1");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/000009.log", 2, &rc);
  CHECK(f != NULL);
  enum { PIECE = 48 << 10, PIECES = 150 }; /* 7 MiB: three zones of 3 MiB */
  uint8_t *buf = malloc(PIECE);
  zfs_stats before, after;
  zfs_stats_get(fs, &before);
  for (int i = 0; i < PIECES; i++) {
    fill(buf, 90, (uint64_t)i * PIECE, PIECE);
    CHECK_EQ(zfs_append(f, buf, PIECE), 0);
    CHECK_EQ(zfs_sync(f), 0);
  }
  zfs_stats_get(fs, &after);
  /* metadata: one record per zone the file took (3), amortised over its 150 syncs */
  CHECK(after.meta_bytes - before.meta_bytes <=
        3 * GEO.lba_size + (after.meta_rolls - before.meta_rolls) * GEO.zone_cap);
  fill(buf, 90, (uint64_t)PIECES * PIECE, 1000);
  CHECK_EQ(zfs_append(f, buf, 1000), 0); /* in the buffer only: lost */
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 5) >= 0);
  zfs_close(f);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/000009.log", 90, (uint64_t)PIECES * PIECE);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs); /* the roll's snapshot holds the recovered chunks: a second mount reads no zone */
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/000009.log", 90, (uint64_t)PIECES * PIECE);
  free(buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void collect_zones(const zfs_file_meta *m, void *arg) {
  uint32_t *bits = arg; /* [0] the first WAL's zones, [1] the others' */
  for (uint32_t k = 0; k < m->n_extents; k++)
    bits[strcmp(m->names[0], "/db/000011.log") == 0 ? 0 : 1] |= 1u << (m->extents[k].start / GEO.zone_size);
}

/* A WAL's zone taken from it while it is idle (more writers than open tokens), then written by
 * another WAL after its chunks: a mount reads the first WAL's chunks and stops at the other file's
 * chunk (another file id). */
static void test_sparse_chunks_end_where_another_file_wrote(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *wal = zfs_create(fs, "/db/000011.log", 2, &rc);
  uint8_t buf[8192];
  fill(buf, 91, 0, sizeof buf);
  CHECK_EQ(zfs_append(wal, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(wal), 0);
  /* five more WALs for four open tokens: the fifth takes the zone of the one idle longest */
  zfs_file *w[5];
  for (int i = 0; i < 5; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/%06d.log", 20 + i);
    CHECK((w[i] = zfs_create(fs, name, 2, &rc)) != NULL);
    fill(buf, 200 + (uint64_t)i, 0, sizeof buf);
    CHECK_EQ(zfs_append(w[i], buf, sizeof buf), 0);
    CHECK_EQ(zfs_sync(w[i]), 0);
  }
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK(s.zone_steals >= 1);
  uint32_t bits[2] = {0, 0};
  zfs_walk_files(fs, collect_zones, bits);
  CHECK((bits[0] & bits[1]) != 0); /* another file wrote into the WAL's zone */
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 6) >= 0);
  zfs_close(wal);
  for (int i = 0; i < 5; i++) zfs_close(w[i]);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/000011.log", 91, sizeof buf);
  for (int i = 0; i < 5; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/%06d.log", 20 + i);
    check_file(fs, name, 200 + (uint64_t)i, sizeof buf);
  }
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Readers of a closed file take no lock (it is sealed); a reopen unseals it only once no read is
 * in progress. Readers keep reading the first `base` bytes while the file is reopened, appended
 * to (data in the writer's buffer, then on the device) and closed again, and every read they make
 * returns the right bytes: all of the file as it was, or more. */
typedef struct sealed_reader {
  zfs *fs;
  uint64_t base;
  _Atomic int stop;
  _Atomic uint64_t reads;
} sealed_reader;

static void *read_while_reopened(void *arg) {
  sealed_reader *r = arg;
  int rc = 0;
  zfs_file *f = zfs_open(r->fs, "/db/000009.sst", &rc);
  CHECK(f != NULL);
  uint8_t buf[9000], want[9000];
  uint64_t seed = 0x5eed;
  while (!r->stop) {
    uint64_t off = zkv_rng_next(&seed) % (r->base - sizeof buf);
    CHECK_EQ(zfs_pread(f, off, buf, sizeof buf), (int64_t)sizeof buf);
    fill(want, 9, off, sizeof buf);
    CHECK(memcmp(buf, want, sizeof buf) == 0);
    r->reads++;
  }
  CHECK_EQ(zfs_close(f), 0);
  return NULL;
}

static void test_readers_of_a_reopened_file(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint64_t base = write_file(fs, "/db/000009.sst", 9, 2 << 20, 0);
  sealed_reader r = {fs, base, 0, 0};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, read_while_reopened, &r);
  while (r.reads < 2) sched_yield(); /* the readers are reading */
  uint8_t buf[5000], got[5000];
  uint64_t size = base;
  for (int round = 0; round < 20; round++) {
    int rc = 0;
    zfs_file *w = zfs_reopen(fs, "/db/000009.sst", &rc);
    CHECK(w != NULL);
    zfs_file *q = zfs_open(fs, "/db/000009.sst", &rc);
    CHECK(q != NULL);
    fill(buf, 9, size, sizeof buf);
    CHECK_EQ(zfs_append(w, buf, sizeof buf), 0); /* in the writer's buffer only */
    CHECK_EQ(zfs_pread(q, size, got, sizeof got), (int64_t)sizeof got);
    CHECK(memcmp(buf, got, sizeof buf) == 0);
    size += sizeof buf;
    CHECK_EQ(zfs_close(w), 0); /* on the device; sealed again */
    CHECK_EQ(zfs_pread(q, size - sizeof buf, got, sizeof got), (int64_t)sizeof got);
    CHECK(memcmp(buf, got, sizeof buf) == 0);
    CHECK_EQ(zfs_close(q), 0);
  }
  r.stop = 1;
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  check_file(fs, "/db/000009.sst", 9, size);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_files seed=%llu\n", (unsigned long long)rng);
  test_files_persist_across_mounts();
  test_namespace_and_reclamation();
  test_concurrent_writers();
  test_readers_of_a_reopened_file();
  test_sync_metadata_is_constant();
  test_sparse_file_recovered_from_its_chunks();
  test_sparse_chunks_end_where_another_file_wrote();
  run_with_capacity_equal_to_size();
  remove_temp_dir();
  TEST_DONE("test_zonefs_files");
  return 0;
}
