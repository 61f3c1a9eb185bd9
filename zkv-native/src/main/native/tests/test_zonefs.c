/* The zone file system core on the emulated device: files across zones, persistence, namespace
 * operations, space reclamation, the active-zone limit, metadata rolls, power cuts, a torn or
 * damaged metadata log, a full device, and concurrent writers. */
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
static void test_active_limit_and_full_device(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  enum { W = 9 };
  zfs_file *w[W];
  uint8_t *buf = malloc(1 << 20);
  for (int i = 0; i < W; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/w%d.sst", i);
    int rc = 0;
    w[i] = zfs_create(fs, name, (uint32_t)(2 + i % 4), &rc);
    CHECK(w[i] != NULL);
  }
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < W; i++) {
      fill(buf, 100 + (uint64_t)i, (uint64_t)round << 20, 1 << 20);
      CHECK_EQ(zfs_append(w[i], buf, 1 << 20), 0);
      CHECK_EQ(zfs_sync(w[i]), 0);
    }
  for (int i = 0; i < W; i++) CHECK_EQ(zfs_close(w[i]), 0);
  /* contents intact */
  for (int i = 0; i < W; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/w%d.sst", i);
    check_file(fs, name, 100 + (uint64_t)i, 3 << 20);
  }
  /* fill the device: the error is ENOSPC, nothing already written is harmed */
  int rc = 0, filled = 0;
  zfs_file *f = zfs_create(fs, "/db/filler", 2, &rc);
  CHECK(f != NULL);
  for (int i = 0; i < 200 && !rc; i++) {
    fill(buf, 999, (uint64_t)i << 20, 1 << 20);
    rc = zfs_append(f, buf, 1 << 20);
    filled += !rc;
  }
  CHECK_EQ(rc, -ENOSPC);
  CHECK(filled > 20);
  zfs_close(f);
  CHECK_EQ(zfs_delete(fs, "/db/filler"), 0);
  for (int i = 0; i < W; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/w%d.sst", i);
    check_file(fs, name, 100 + (uint64_t)i, 3 << 20);
    CHECK_EQ(zfs_delete(fs, name), 0);
  }
  /* after deletes, writes resume */
  write_file(fs, "/db/again.sst", 8, 5 << 20, 0);
  check_file(fs, "/db/again.sst", 8, 5 << 20);
  free(buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void test_meta_rolls(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  /* each create, sync and delete is a 4 KiB record: 3 MiB meta zones roll every ~760 records */
  for (int i = 0; i < 1500; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/%06d.log", i);
    write_file(fs, name, (uint64_t)i, 100 + (uint64_t)i, 0);
    if (i % 3) CHECK_EQ(zfs_delete(fs, name), 0);
  }
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK(s.meta_rolls >= 3);
  CHECK_EQ(s.files, 500);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.files, 500);
  for (int i = 0; i < 1500; i += 3) {
    char name[32];
    snprintf(name, sizeof name, "/db/%06d.log", i);
    check_file(fs, name, (uint64_t)i, 100 + (uint64_t)i);
  }
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void test_power_cut(void) {
  for (int mode = 0; mode < 2; mode++) {
    fresh("?wcache=1");
    zkv_dev *d = open_dev();
    zfs *fs = mount_ok(d);
    write_file(fs, "/db/synced.sst", 11, 2 << 20, 1);
    int rc = 0;
    zfs_file *f = zfs_create(fs, "/db/000007.log", 2, &rc);
    CHECK(f != NULL);
    uint8_t *buf = malloc(1 << 20);
    fill(buf, 12, 0, 300000);
    CHECK_EQ(zfs_append(f, buf, 300000), 0);
    CHECK_EQ(zfs_sync(f), 0); /* acknowledged */
    fill(buf, 12, 300000, 1 << 20);
    CHECK_EQ(zfs_append(f, buf, 1 << 20), 0); /* not synced: may be lost */
    CHECK(zkv_emu_power_cut(d, mode == 0 ? ZKV_CUT_DROP_ALL : ZKV_CUT_RANDOM, 77) >= 0);
    zfs_close(f); /* fails on the dead device, but frees the handle */
    zfs_unmount(fs);
    zkv_dev_close(d);
    d = open_dev();
    fs = mount_ok(d);
    check_file(fs, "/db/synced.sst", 11, 2 << 20);
    check_file(fs, "/db/000007.log", 12, 300000); /* every acknowledged byte, nothing else */
    /* the file system keeps working after the cut */
    write_file(fs, "/db/after.sst", 13, 1 << 20, 0);
    check_file(fs, "/db/after.sst", 13, 1 << 20);
    free(buf);
    zfs_unmount(fs);
    zkv_dev_close(d);
  }
}

/* Writes a file whose every sync adds an extent (a padded sync starts a new one), then renames it
 * (a full record of all its extents: two blocks) and loses power, so the log has no end record. */
static void crash_after_many_syncs(const char *name, uint64_t seed, int syncs) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *f = zfs_create(fs, name, 3, &rc);
  CHECK(f != NULL);
  uint8_t buf[100];
  for (int i = 0; i < syncs; i++) {
    fill(buf, seed, (uint64_t)i * sizeof buf, sizeof buf);
    CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
    CHECK_EQ(zfs_sync(f), 0);
  }
  char renamed[64];
  snprintf(renamed, sizeof renamed, "%s.renamed", name);
  CHECK_EQ(zfs_rename(fs, name, renamed), 0);
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 1) >= 0);
  zfs_close(f);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void test_damaged_metadata(void) {
  /* A damaged last record of a cleanly unmounted log is damage, not a torn tail: the end record
   * follows it. Before, the mount took it for a torn write and the file silently lost its data. */
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  write_file(fs, "/db/keep.sst", 21, 50000, 0);
  write_file(fs, "/db/victim.sst", 22, 50000, 0);
  zfs_unmount(fs);
  uint32_t mz;
  uint64_t end = meta_end(d, &mz);
  zkv_dev_close(d);
  flip(end - 2 * 4096 + 30); /* inside the victim's last record, before the end record */
  d = open_dev();
  int rc = 0;
  fs = zfs_mount(d, &rc, err, sizeof err);
  CHECK(fs == NULL);
  CHECK_EQ(rc, -EUCLEAN);
  CHECK(strstr(err, "valid records follow it") != NULL);
  zkv_dev_close(d);

  /* After a crash (no end record), a wholly written last record that fails its checksum is damage
   * too: the device completed that write, so the file's acknowledged sync would vanish. */
  crash_after_many_syncs("/db/000009.log", 25, 300);
  d = open_dev();
  end = meta_end(d, &mz);
  zkv_dev_close(d);
  flip(end - 2 * 4096 + 100);
  d = open_dev();
  fs = zfs_mount(d, &rc, err, sizeof err);
  CHECK(fs == NULL);
  CHECK_EQ(rc, -EUCLEAN);
  CHECK(strstr(err, "not a torn last write") != NULL);
  zkv_dev_close(d);

  /* A torn last write (its first block persisted, zeros after it) is the log's tail: the mount
   * loses only that unacknowledged operation, here the rename. */
  crash_after_many_syncs("/db/000009.log", 25, 300);
  d = open_dev();
  end = meta_end(d, &mz);
  zkv_dev_close(d);
  zero_at(end - 4096, 4096); /* the second block of the two-block last record */
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/000009.log", 25, 300 * 100);
  CHECK_EQ(zfs_stat(fs, "/db/000009.log.renamed", NULL), -ENOENT);
  zfs_unmount(fs);
  zkv_dev_close(d);

  /* a damaged record with valid records after it is corruption, reported with its offset */
  fresh("");
  d = open_dev();
  fs = mount_ok(d);
  write_file(fs, "/db/x.sst", 23, 50000, 0);
  write_file(fs, "/db/y.sst", 24, 50000, 0);
  zfs_unmount(fs);
  uint64_t start = (uint64_t)(meta_end(d, &mz) / GEO.zone_size) * GEO.zone_size;
  zkv_dev_close(d);
  flip(start + 4096 + 30); /* the snapshot after the superblock */
  d = open_dev();
  fs = zfs_mount(d, &rc, err, sizeof err);
  CHECK(fs == NULL);
  CHECK_EQ(rc, -EUCLEAN);
  CHECK(strstr(err, "damaged at device offset") != NULL);
  zkv_dev_close(d);

  /* a corrupt superblock, and an unformatted device, are clear errors */
  flip(start + 10);
  d = open_dev();
  fs = zfs_mount(d, &rc, err, sizeof err);
  CHECK(fs == NULL);
  CHECK(strstr(err, "superblock") != NULL);
  zkv_dev_close(d);
  unlink(path);
  CHECK_EQ(zkv_emu_format(path, &GEO), 0);
  d = open_dev();
  fs = zfs_mount(d, &rc, err, sizeof err);
  CHECK(fs == NULL);
  CHECK_EQ(rc, -ENODATA);
  CHECK(strstr(err, "run mkfs") != NULL);
  zkv_dev_close(d);
}

/* Zones holding interleaved data of two files: deleting one leaves every zone half live, so new
 * writes only fit after garbage collection moves the survivors. */
enum { PAIRS = 19, CHUNK = 256 << 10, CHUNKS = 6 }; /* 19 pairs x 2 x 1.5 MiB = 57 of 63 MiB */

/* Writes pairs of interleaved files a/b, then deletes every a: the zones end up full and half
 * garbage, with free space under 20%. */
static void fill_half_garbage(zfs *fs) {
  uint8_t *buf = malloc(CHUNK);
  for (int p = 0; p < PAIRS; p++) {
    char an[32], bn[32];
    snprintf(an, sizeof an, "/db/a%02d.sst", p);
    snprintf(bn, sizeof bn, "/db/b%02d.sst", p);
    int rc = 0;
    zfs_file *a = zfs_create(fs, an, 3, &rc), *b = zfs_create(fs, bn, 3, &rc);
    CHECK(a && b);
    for (int c = 0; c < CHUNKS; c++) {
      fill(buf, 300 + (uint64_t)p, (uint64_t)c * CHUNK, CHUNK);
      CHECK_EQ(zfs_append(a, buf, CHUNK), 0);
      CHECK_EQ(zfs_sync(a), 0);
      fill(buf, 400 + (uint64_t)p, (uint64_t)c * CHUNK, CHUNK);
      CHECK_EQ(zfs_append(b, buf, CHUNK), 0);
      CHECK_EQ(zfs_sync(b), 0);
    }
    CHECK_EQ(zfs_close(a), 0);
    CHECK_EQ(zfs_close(b), 0);
  }
  for (int p = 0; p < PAIRS; p++) {
    char an[32];
    snprintf(an, sizeof an, "/db/a%02d.sst", p);
    CHECK_EQ(zfs_delete(fs, an), 0);
  }
  free(buf);
}

static void check_b_files(zfs *fs) {
  for (int p = 0; p < PAIRS; p++) {
    char bn[32];
    snprintf(bn, sizeof bn, "/db/b%02d.sst", p);
    check_file(fs, bn, 400 + (uint64_t)p, (uint64_t)CHUNKS * CHUNK);
  }
}

static void test_gc_makes_room(void) {
  fresh("");
  zkv_dev *d = open_dev();
  int rc = 0;
  zfs *fs = zfs_mount(d, &rc, err, sizeof err); /* no background GC until zfs_start_gc */
  CHECK(fs != NULL);
  fill_half_garbage(fs);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK(s.empty_zones <= 2);
  usleep(300000); /* three of the GC thread's check intervals, had it been started */
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.gc_bytes, 0);
  CHECK_EQ(zfs_start_gc(fs), 0);
  CHECK_EQ(zfs_start_gc(fs), 0); /* idempotent */
  /* free space is under 20%: background GC reclaims the half-garbage zones without any write */
  for (int i = 0; i < 1000 && s.gc_bytes == 0; i++) { /* up to 20 s: a loaded host delays the thread */
    usleep(20000);
    zfs_stats_get(fs, &s);
  }
  CHECK(s.gc_bytes > 0);
  CHECK(s.resets > s.resets_without_copy);
  write_file(fs, "/db/new.sst", 500, 20 << 20, 0); /* more than the free space without GC */
  zfs_stats_get(fs, &s);
  CHECK(s.gc_bytes > 0);
  CHECK(s.resets > s.resets_without_copy);
  check_file(fs, "/db/new.sst", 500, 20 << 20);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_b_files(fs);
  check_file(fs, "/db/new.sst", 500, 20 << 20);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A victim policy for the test: the eligible zone with the highest index (not greedy's choice),
 * or a fixed, wrong answer. Records what it was offered and what it chose. */
typedef struct victim_probe {
  int calls, wrong_answer, offered_ineligible;
  uint32_t last;
} victim_probe;

static int highest_victim(void *ctx, const zfs_zone_info *zones, uint32_t n, uint32_t *victim) {
  victim_probe *p = ctx;
  p->calls++;
  if (p->wrong_answer) {
    *victim = 0; /* a metadata zone: never a valid victim */
    return 0;
  }
  int64_t best = -1;
  for (uint32_t z = 0; z < n; z++) {
    if (!zones[z].victim_ok) continue;
    p->offered_ineligible += zones[z].meta || zones[z].busy || zones[z].wp < zones[z].start + zones[z].capacity;
    best = z;
  }
  if (best < 0) return -ENOSPC;
  *victim = p->last = (uint32_t)best;
  return 0;
}

static void test_victim_policy_and_gc_level(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  CHECK_EQ(zfs_set_gc_start_percent(fs, 101), -EINVAL);
  CHECK_EQ(zfs_set_gc_start_percent(fs, 0), 0); /* background GC off */
  victim_probe probe = {0};
  zfs_set_victim_chooser(fs, highest_victim, &probe);
  fill_half_garbage(fs);
  zfs_stats s;
  usleep(400000); /* four rounds of the background worker: it must stay idle at level 0 */
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.gc_bytes, 0);
  CHECK_EQ(probe.calls, 0);
  /* a policy answering a zone it was not offered fails the collection; nothing is reset */
  probe.wrong_answer = 1;
  uint64_t free_before = zfs_free_bytes(fs), resets_before = s.resets;
  CHECK_EQ(zfs_reclaim(fs, UINT64_MAX), free_before);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.resets, resets_before);
  CHECK(probe.calls == 1);
  probe.wrong_answer = 0;
  /* at 100% the background worker collects the half-garbage zones the policy picks, highest first */
  CHECK_EQ(zfs_set_gc_start_percent(fs, 100), 0);
  for (int i = 0; i < 100 && s.gc_bytes == 0; i++) {
    usleep(20000);
    zfs_stats_get(fs, &s);
  }
  CHECK(s.gc_bytes > 0);
  CHECK(probe.calls > 1);
  CHECK_EQ(probe.offered_ineligible, 0);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, probe.last, &zi), 0);
  CHECK(zi.wp < zi.start + zi.capacity); /* reset (and maybe refilled by GC's copies) */
  CHECK_EQ(zfs_set_gc_start_percent(fs, 0), 0);
  zfs_set_victim_chooser(fs, NULL, NULL);
  check_b_files(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void count_problem(const char *msg, void *arg) {
  (void)msg;
  (*(int *)arg)++;
}

static void count_file(const zfs_file_meta *m, void *arg) {
  (void)m;
  (*(int *)arg)++;
}

/* A read-only mount (the CLI's) changes nothing and refuses changes; fsck finds no problem on a
 * healthy file system. */
static void test_readonly_inspection(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  write_file(fs, "/db/a.sst", 31, 1 << 20, 1);
  write_file(fs, "/db/b.sst", 32, 5 << 20, 0);
  zfs_unmount(fs);
  zkv_zone before[24], after[24];
  CHECK_EQ(zkv_dev_report(d, 0, before, 24), 24);
  int rc = 0;
  fs = zfs_mount_flags(d, ZFS_MOUNT_READONLY, &rc, err, sizeof err);
  CHECK(fs != NULL);
  zfs_file *f = zfs_create(fs, "/db/c", 0, &rc);
  CHECK(f == NULL);
  CHECK_EQ(rc, -EROFS);
  CHECK_EQ(zfs_delete(fs, "/db/a.sst"), -EROFS);
  check_file(fs, "/db/b.sst", 32, 5 << 20);
  int problems = 0, files = 0;
  CHECK_EQ(zfs_check(fs, count_problem, &problems), 0);
  CHECK_EQ(problems, 0);
  zfs_walk_files(fs, count_file, &files);
  CHECK_EQ(files, 2);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, 0, &zi), 0);
  CHECK(zi.meta);
  zfs_meta_status ms;
  int valid = 0;
  for (uint32_t z = 0; z < 3; z++) {
    CHECK_EQ(zfs_meta_status_get(fs, z, &ms), 0);
    valid += ms.state == ZFS_META_VALID;
  }
  CHECK_EQ(valid, 1);
  zfs_unmount(fs);
  CHECK_EQ(zkv_dev_report(d, 0, after, 24), 24);
  CHECK(memcmp(before, after, sizeof before) == 0);
  zkv_dev_close(d);
}

/* A device full of zones that are 1/12 garbage (below the 1/8 a data writer's GC needs): a data
 * write gets NoSpace instead of a copy spiral, but the MANIFEST edit that frees space still goes
 * through, by GC of any garbage into the last empty zone. */
static void test_metadata_writes_on_a_full_device(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  enum { BIG = (3 << 20) - (256 << 10), SMALL = 256 << 10 };
  uint8_t *buf = malloc(3 << 20);
  int rc = 0, pairs = 0;
  for (; !rc; pairs++) { /* each zone: a big file's chunk, then a small file filling it up */
    char a[32], b[32];
    snprintf(a, sizeof a, "/db/a%02d.sst", pairs);
    snprintf(b, sizeof b, "/db/b%02d.sst", pairs);
    zfs_file *fa = zfs_create(fs, a, 3, &rc), *fb = zfs_create(fs, b, 3, &rc);
    CHECK(fa && fb);
    fill(buf, 600 + (uint64_t)pairs, 0, BIG);
    rc = zfs_append(fa, buf, BIG);
    if (!rc) rc = zfs_sync(fa);
    fill(buf, 700 + (uint64_t)pairs, 0, SMALL);
    if (!rc) rc = zfs_append(fb, buf, SMALL);
    if (!rc) rc = zfs_sync(fb);
    zfs_close(fa);
    zfs_close(fb);
  }
  CHECK_EQ(rc, -ENOSPC);
  /* a metadata file may take all but the last empty zone */
  zfs_file *m = zfs_create(fs, "/db/MANIFEST-000001", 0, &rc);
  CHECK(m != NULL);
  fill(buf, 800, 0, 3 << 20);
  CHECK_EQ(zfs_append(m, buf, 3 << 20), 0);
  CHECK_EQ(zfs_close(m), 0);
  for (int p = 0; p < pairs; p++) {
    char b[32];
    snprintf(b, sizeof b, "/db/b%02d.sst", p);
    zfs_delete(fs, b); /* the last pair's may not exist */
  }
  zfs_stats st;
  zfs_stats_get(fs, &st);
  CHECK_EQ(st.empty_zones, 1);
  uint64_t gc_before = st.gc_bytes;
  /* the MANIFEST edit: GC takes a zone of little garbage into the last empty zone */
  m = zfs_create(fs, "/db/MANIFEST-000002", 0, &rc);
  CHECK(m != NULL);
  fill(buf, 801, 0, 64 << 10);
  CHECK_EQ(zfs_append(m, buf, 64 << 10), 0);
  CHECK_EQ(zfs_sync(m), 0);
  CHECK_EQ(zfs_close(m), 0);
  zfs_stats_get(fs, &st);
  CHECK(st.gc_bytes > gc_before);
  /* data: no victim is 1/8 garbage, so NoSpace once the room GC left is used, without copying */
  zfs_file *x = zfs_create(fs, "/db/x.sst", 3, &rc);
  CHECK(x != NULL);
  fill(buf, 802, 0, 1 << 20);
  rc = zfs_append(x, buf, 1 << 20);
  if (!rc) rc = zfs_sync(x);
  CHECK_EQ(rc, -ENOSPC);
  zfs_stats s2;
  zfs_stats_get(fs, &s2);
  CHECK_EQ(s2.gc_bytes, st.gc_bytes);
  zfs_close(x);
  check_file(fs, "/db/MANIFEST-000002", 801, 64 << 10);
  check_file(fs, "/db/a00.sst", 600, BIG);
  free(buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A test policy: the highest-numbered usable zone; or a deliberately wrong or refusing one. */
typedef struct test_policy {
  int mode; /* 0 highest zone, 1 a meta zone (invalid), 2 no space, 3 lowest empty zone finishing the rest */
  int calls;
  uint64_t last_file;
} test_policy;

static int test_allocator(void *ctx, const zfs_alloc_request *req, const zfs_zone_info *zones, uint32_t n,
                          uint32_t active_limit, zfs_alloc_decision *out) {
  (void)active_limit;
  test_policy *p = ctx;
  p->calls++;
  p->last_file = req->file_id;
  if (p->mode == 1) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_USE, .zone = 0};
    return 0;
  }
  if (p->mode == 2) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_NO_SPACE};
    return 0;
  }
  if (p->mode == 3) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_NO_SPACE};
    for (uint32_t z = 0; z < n; z++) {
      if (zones[z].meta || zones[z].busy) continue;
      if (zones[z].wp == zones[z].start && out->action != ZFS_ALLOC_OPEN_EMPTY) {
        out->action = ZFS_ALLOC_OPEN_EMPTY;
        out->zone = z;
      } else if (zones[z].wp > zones[z].start && zones[z].wp < zones[z].start + zones[z].capacity &&
                 out->n_finish < ZFS_ALLOC_MAX_FINISH) {
        out->finish[out->n_finish++] = z;
      }
    }
    return 0;
  }
  for (uint32_t z = n; z-- > 0;) {
    if (zones[z].meta || zones[z].busy || zones[z].wp - zones[z].start >= zones[z].capacity) continue;
    out->action = zones[z].wp == zones[z].start ? ZFS_ALLOC_OPEN_EMPTY : ZFS_ALLOC_USE;
    out->zone = z;
    return 0;
  }
  out->action = ZFS_ALLOC_NO_SPACE;
  return 0;
}

static void record_zones(const zfs_file_meta *m, void *arg) {
  uint32_t *lowest = arg;
  for (uint32_t i = 0; i < m->n_extents; i++) {
    uint32_t z = (uint32_t)(m->extents[i].start / GEO.zone_size);
    if (z < *lowest) *lowest = z;
  }
}

/* The file system asks the installed policy at every allocation, and checks what it answers. */
static void test_external_allocator(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  test_policy p = {0};
  zfs_set_allocator(fs, test_allocator, &p);
  write_file(fs, "/db/p.sst", 41, 4 << 20, 0); /* two zones' worth: two allocations at least */
  CHECK(p.calls >= 2);
  uint32_t lowest = UINT32_MAX;
  zfs_walk_files(fs, record_zones, &lowest);
  CHECK(lowest >= GEO.nr_zones - 2); /* the policy's choice, not the built-in rule's (zone 3 up) */
  check_file(fs, "/db/p.sst", 41, 4 << 20);
  p.mode = 1; /* a policy bug: a meta zone */
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/bad.sst", 3, &rc);
  uint8_t buf[8192] = {1};
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), -EINVAL);
  p.mode = 2; /* the policy finds no zone, but zones have room: the built-in rule places the data */
  CHECK_EQ(zfs_sync(f), 0);
  zfs_set_allocator(fs, NULL, NULL); /* the built-in rule again */
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), 0);
  CHECK_EQ(zfs_close(f), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Only the reserved empty zones are left and one zone has room: a policy asking for an empty zone
 * (and finishing the partly written one to get a token, as LIZA does) must not make the write fail
 * or waste that room. The file system writes into the room instead and finishes nothing. */
static void test_policy_refused_the_reserve(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint64_t cap = GEO.zone_cap, data_zones = GEO.nr_zones - 3;
  write_file(fs, "/db/big.sst", 61, (data_zones - 2) * cap - cap / 2, 0);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.empty_zones, 2);
  test_policy p = {.mode = 3};
  zfs_set_allocator(fs, test_allocator, &p);
  write_file(fs, "/db/small.sst", 62, cap / 4, 0);
  CHECK(p.calls >= 1);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.empty_zones, 2); /* the reserves are intact */
  CHECK_EQ(s.open_zones, 1);  /* the room was used, not finished */
  check_file(fs, "/db/small.sst", 62, cap / 4);
  check_file(fs, "/db/big.sst", 61, (data_zones - 2) * cap - cap / 2);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

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
static void test_version_1_image_is_upgraded(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  write_file(fs, "/db/old.sst", 77, 70000, 0);
  zfs_superblock sb;
  zfs_superblock_get(fs, &sb);
  zfs_unmount(fs);
  uint32_t mz;
  uint64_t zone_start = meta_end(d, &mz) / GEO.zone_size * GEO.zone_size;
  zkv_dev_close(d);
  sb.version = 1;
  uint8_t block[ZFS_SUPERBLOCK_SIZE];
  CHECK(zfs_superblock_encode(&sb, block, sizeof block) >= 0);
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0);
  CHECK_EQ(pwrite(fd, block, sizeof block, (off_t)(backing_data_offset() + zone_start)), (ssize_t)sizeof block);
  close(fd);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/old.sst", 77, 70000);
  zfs_superblock_get(fs, &sb);
  CHECK_EQ(sb.version, ZFS_FORMAT_VERSION);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Zone capacity equal to zone size (null_blk's and QEMU's default): the next zone starts where a
 * zone's capacity ends, so contiguity on the device must not merge extents across zones. */
static void run_with_capacity_equal_to_size(void) {
  zkv_geometry saved = GEO;
  GEO.zone_cap = GEO.zone_size;
  test_files_persist_across_mounts();
  test_namespace_and_reclamation();
  test_meta_rolls();
  test_power_cut();
  test_concurrent_writers();
  GEO = saved;
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs seed=%llu\n", (unsigned long long)rng);
  test_files_persist_across_mounts();
  test_namespace_and_reclamation();
  test_active_limit_and_full_device();
  test_meta_rolls();
  test_power_cut();
  test_damaged_metadata();
  test_gc_makes_room();
  test_victim_policy_and_gc_level();
  test_metadata_writes_on_a_full_device();
  test_readonly_inspection();
  test_external_allocator();
  test_policy_refused_the_reserve();
  test_concurrent_writers();
  test_sync_metadata_is_constant();
  test_version_1_image_is_upgraded();
  run_with_capacity_equal_to_size();
  remove_temp_dir();
  TEST_DONE("test_zonefs");
  return 0;
}
