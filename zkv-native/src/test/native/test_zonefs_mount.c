/* Mount and the metadata log: rolls, power cuts, a torn or damaged log, read-only inspection,
 * and the upgrade of a version 1 image. */
#include "zfs_fixture.h"

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
    /* every acknowledged byte; of the unsynced chunks of the WAL (a sparse file) those the cut
     * kept whole may come back too, never anything else */
    uint64_t size = 0;
    CHECK_EQ(zfs_stat(fs, "/db/000007.log", &size), 0);
    CHECK(size >= 300000 && size <= 300000 + (1 << 20));
    check_file(fs, "/db/000007.log", 12, size);
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

/* Writes pairs of interleaved files a/b, then deletes every a: the zones end up full and half
 * garbage, with free space under 20%. */
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

/* Zone capacity equal to zone size (null_blk's and QEMU's default): the next zone starts where a
 * zone's capacity ends, so contiguity on the device must not merge extents across zones. */
static void run_with_capacity_equal_to_size(void) {
  zkv_geometry saved = GEO;
  GEO.zone_cap = GEO.zone_size;
  test_meta_rolls();
  test_power_cut();
  GEO = saved;
}

static void first_zone_of(const zfs_file_meta *m, void *arg) {
  int64_t *zone = arg;
  if (m->n_names && strcmp(m->names[0], "/db/x.sst") == 0 && m->n_extents)
    *zone = (int64_t)(m->extents[0].start / GEO.zone_size);
}

/* A failed metadata log write fails every later record of that mount, and no zone is reset after
 * it: records on the device may still point into the zone (here: the delete that would have freed
 * x.sst's zone never reached the log, so the next mount still has x.sst, and its data must be
 * there). */
static void test_no_reset_after_the_log_failed(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  write_file(fs, "/db/x.sst", 91, 300000, 0); /* alone in its zone: its delete would reset it */
  int64_t zone = -1;
  zfs_walk_files(fs, first_zone_of, &zone);
  CHECK(zone >= 0);
  zfs_zone_info before;
  CHECK_EQ(zfs_zone_info_get(fs, (uint32_t)zone, &before), 0);
  uint32_t meta_zone;
  meta_end(d, &meta_zone);
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_WRITE, meta_zone, 0, 1, -EIO), 0);
  CHECK(zfs_delete(fs, "/db/x.sst") < 0); /* its record's write fails */
  zfs_zone_info after;
  CHECK_EQ(zfs_zone_info_get(fs, (uint32_t)zone, &after), 0);
  CHECK_EQ(after.wp, before.wp); /* not reset */
  int rc = 0;
  CHECK(zfs_create(fs, "/db/y.sst", 3, &rc) == NULL); /* every later record fails too */
  CHECK(rc < 0);
  zfs_unmount(fs);
  fs = mount_ok(d);
  check_file(fs, "/db/x.sst", 91, 300000);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_mount seed=%llu\n", (unsigned long long)rng);
  test_meta_rolls();
  test_power_cut();
  test_damaged_metadata();
  test_readonly_inspection();
  test_no_reset_after_the_log_failed();
  test_version_1_image_is_upgraded();
  run_with_capacity_equal_to_size();
  remove_temp_dir();
  TEST_DONE("test_zonefs_mount");
  return 0;
}
