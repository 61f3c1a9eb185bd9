/* Write ordering of every structural change of the zone file system (docs/zone-fs.md, "Order of
 * writes"): for each change, power is cut between every two of its device steps (every write,
 * zone management command and flush from the k-th on fails, then the volatile cache is lost with
 * each pending write kept, lost or torn), and the device must mount with the state from before or
 * after the change, every acknowledged byte intact. Also the defects that once left a device
 * unmountable without any crash. Runs on two geometries: capacity below zone size, and equal. */
#include "zfs_fixture.h"

#define ALL_WRITES (ZKV_FAULT_WRITE | ZKV_FAULT_APPEND | ZKV_FAULT_MGMT | ZKV_FAULT_FLUSH)

typedef struct scenario {
  const char *name;
  void (*setup)(zfs *fs);                 /* the state before the change: every byte acknowledged */
  int (*change)(zfs *fs);                 /* the structural change under test */
  void (*verify)(zfs *fs, int completed); /* after the cut and a remount */
} scenario;

static zfs_file *held; /* a handle a scenario keeps open across its change */

static uint64_t device_steps(zkv_dev *d) {
  zkv_dev_stats s;
  CHECK_EQ(zkv_dev_stats_get(d, &s), 0);
  return s.writes + s.appends + s.resets + s.finishes + s.flushes;
}

static uint64_t file_size_or_absent(zfs *fs, const char *name, int *present) {
  uint64_t size = 0;
  *present = zfs_stat(fs, name, &size) == 0;
  return size;
}

static void no_fsck_problem(const char *msg, void *arg) {
  (void)arg;
  fprintf(stderr, "fsck: %s\n", msg);
  CHECK(0);
}

static zkv_dev *cur_dev; /* the device the scenario runs on */

/* Syncs a filler file (not a WAL: each sync writes an extend record, one block) until the metadata
 * log's zone is full: the next metadata record of the change rolls the log. */
static void fill_meta_log(zfs *fs) {
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/filler.dat", 2, &rc);
  CHECK(f != NULL);
  uint8_t block[4096] = {0};
  uint32_t zone;
  for (int i = 0; meta_end(cur_dev, &zone) + 4096 < (uint64_t)zone * GEO.zone_size + GEO.zone_cap; i++) {
    CHECK_EQ(zfs_append(f, block, sizeof block), 0);
    CHECK_EQ(zfs_sync(f), 0);
    CHECK(i < 100000);
  }
  CHECK_EQ(zfs_close(f), 0); /* its record takes the last block */
  CHECK_EQ(meta_end(cur_dev, &zone), (uint64_t)zone * GEO.zone_size + GEO.zone_cap);
}

/* ---- sync of a WAL (a sparse file): chunk write, flush; of another file: data write, flush,
 * extend record ---- */
static const char *sync_name = "/db/000005.log";
static void sync_setup(zfs *fs) {
  int rc = 0;
  held = zfs_create(fs, sync_name, 2, &rc);
  CHECK(held != NULL);
  uint8_t *buf = malloc(500000);
  fill(buf, 51, 0, 500000);
  CHECK_EQ(zfs_append(held, buf, 300000), 0);
  CHECK_EQ(zfs_sync(held), 0);
  CHECK_EQ(zfs_append(held, buf + 300000, 200000), 0);
  free(buf);
}
static int sync_change(zfs *fs) {
  (void)fs;
  return zfs_sync(held);
}
static void sync_verify(zfs *fs, int completed) {
  int present;
  uint64_t size = file_size_or_absent(fs, sync_name, &present);
  CHECK(present);
  CHECK(size == 300000 || size == 500000);
  if (completed) CHECK_EQ(size, 500000);
  check_file(fs, sync_name, 51, size);
}

/* ---- delete: delete record, then the zones' resets ---- */
static void delete_setup(zfs *fs) {
  write_file(fs, "/db/000010.sst", 61, 1 << 20, 0);
  write_file(fs, "/db/000011.sst", 62, 1 << 20, 0);
}
static int delete_change(zfs *fs) { return zfs_delete(fs, "/db/000010.sst"); }
static void delete_verify(zfs *fs, int completed) {
  int present;
  file_size_or_absent(fs, "/db/000010.sst", &present);
  if (present) check_file(fs, "/db/000010.sst", 61, 1 << 20);
  if (completed) CHECK(!present);
  check_file(fs, "/db/000011.sst", 62, 1 << 20);
}

/* ---- rename over an existing file: renamed file's record, replaced file's delete, resets ---- */
static void rename_setup(zfs *fs) {
  write_file(fs, "/db/CURRENT", 71, 5000, 0);
  write_file(fs, "/db/000012.dbtmp", 72, 7000, 0);
}
static int rename_change(zfs *fs) { return zfs_rename(fs, "/db/000012.dbtmp", "/db/CURRENT"); }
static void count_names(const char *name, uint64_t size, void *arg) {
  (void)name, (void)size;
  (*(int *)arg)++;
}
static void rename_verify(zfs *fs, int completed) {
  int named_current = 0; /* one file holds the name, never two */
  zfs_list(fs, "/db/CURRENT", count_names, &named_current);
  CHECK_EQ(named_current, 1);
  int tmp_present, cur_present;
  uint64_t size = file_size_or_absent(fs, "/db/CURRENT", &cur_present);
  file_size_or_absent(fs, "/db/000012.dbtmp", &tmp_present);
  CHECK(cur_present);
  if (tmp_present) { /* before the rename */
    CHECK(!completed);
    check_file(fs, "/db/CURRENT", 71, 5000);
    check_file(fs, "/db/000012.dbtmp", 72, 7000);
  } else {
    CHECK_EQ(size, 7000);
    check_file(fs, "/db/CURRENT", 72, 7000);
  }
}

/* ---- create over an existing name: the old file's delete, the new file's record ---- */
static void create_setup(zfs *fs) { write_file(fs, "/db/LOG", 81, 9000, 0); }
static int create_change(zfs *fs) {
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/LOG", 0, &rc);
  return f ? zfs_close(f) : rc;
}
static void create_verify(zfs *fs, int completed) {
  int present;
  uint64_t size = file_size_or_absent(fs, "/db/LOG", &present);
  CHECK(present); /* the old file or the new one, never neither */
  if (completed) CHECK_EQ(size, 0);
  if (size) check_file(fs, "/db/LOG", 81, 9000);
}

/* ---- garbage collection: copies, flush, moved files' records, victim reset ---- */
static uint64_t gc_b_size(void) { return GEO.zone_cap / 2 + (256 << 10); }
static void write_with_lifetime(zfs *fs, const char *name, uint32_t lifetime, uint64_t seed, uint64_t size) {
  int rc = 0;
  zfs_file *f = zfs_create(fs, name, lifetime, &rc);
  CHECK(f != NULL);
  uint8_t *buf = malloc(size);
  fill(buf, seed, 0, size);
  CHECK_EQ(zfs_append(f, buf, size), 0);
  CHECK_EQ(zfs_close(f), 0);
  free(buf);
}
static void gc_setup(zfs *fs) {
  /* a fills half a zone; b (shorter lifetime: a good match for a's zone, as in LIZA) fills the
   * rest and spills into a second zone; deleting a leaves a full zone half garbage */
  write_with_lifetime(fs, "/db/a.sst", 3, 91, GEO.zone_cap / 2);
  write_with_lifetime(fs, "/db/b.sst", 2, 92, gc_b_size());
  CHECK_EQ(zfs_delete(fs, "/db/a.sst"), 0);
}
static int gc_change(zfs *fs) {
  zfs_stats before, after;
  zfs_stats_get(fs, &before);
  zfs_reclaim(fs, UINT64_MAX);
  zfs_stats_get(fs, &after);
  return after.gc_bytes > before.gc_bytes ? 0 : -EAGAIN;
}
static void gc_verify(zfs *fs, int completed) {
  (void)completed;
  int present;
  file_size_or_absent(fs, "/db/a.sst", &present);
  CHECK(!present);
  check_file(fs, "/db/b.sst", 92, gc_b_size());
}

/* ---- log roll: reset of the next meta zone, superblock, snapshot, old zone's reset ---- */
static void manifest_sync_setup(zfs *fs) {
  sync_name = "/db/MANIFEST-000005";
  sync_setup(fs);
}
static void wal_sync_setup(zfs *fs) {
  sync_name = "/db/000005.log";
  sync_setup(fs);
}
static void roll_setup(zfs *fs) {
  manifest_sync_setup(fs); /* its sync's record rolls the log */
  fill_meta_log(fs);
}

/* ---- a delete whose record rolls the log (was: the snapshot held the nameless file and the
 * device no longer mounted, after clean operations alone) ---- */
static void delete_roll_setup(zfs *fs) {
  delete_setup(fs);
  fill_meta_log(fs);
}

/* ---- the same with a reader holding the deleted file open across the roll ---- */
static void delete_open_roll_setup(zfs *fs) {
  delete_roll_setup(fs);
  int rc = 0;
  held = zfs_open(fs, "/db/000010.sst", &rc);
  CHECK(held != NULL);
}

/* ---- a writer whose file was deleted while it writes and syncs ---- */
static void nameless_writer_setup(zfs *fs) {
  int rc = 0;
  held = zfs_create(fs, "/db/000020.log", 2, &rc);
  CHECK(held != NULL);
  uint8_t buf[5000];
  fill(buf, 21, 0, sizeof buf);
  CHECK_EQ(zfs_append(held, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(held), 0);
  CHECK_EQ(zfs_delete(fs, "/db/000020.log"), 0);
  CHECK_EQ(zfs_append(held, buf, sizeof buf), 0);
}
static void nameless_writer_verify(zfs *fs, int completed) {
  (void)completed;
  int present;
  file_size_or_absent(fs, "/db/000020.log", &present);
  CHECK(!present);
}

/* ---- rename of a file whose writer has data on the device that no sync has flushed yet ---- */
static void rename_busy_setup(zfs *fs) {
  int rc = 0;
  held = zfs_create(fs, "/db/000030.dbtmp", 2, &rc);
  CHECK(held != NULL);
  size_t n = 3 << 19; /* more than the 1 MiB write buffer: 1 MiB is written out, unflushed */
  uint8_t *buf = malloc(n);
  fill(buf, 31, 0, n);
  CHECK_EQ(zfs_append(held, buf, n), 0);
  free(buf);
}
static int rename_busy_change(zfs *fs) { return zfs_rename(fs, "/db/000030.dbtmp", "/db/000030.sst"); }
static void rename_busy_verify(zfs *fs, int completed) {
  int before, after;
  uint64_t size_before = file_size_or_absent(fs, "/db/000030.dbtmp", &before);
  uint64_t size_after = file_size_or_absent(fs, "/db/000030.sst", &after);
  CHECK(before != after);
  if (completed) CHECK(after);
  check_file(fs, after ? "/db/000030.sst" : "/db/000030.dbtmp", 31, after ? size_after : size_before);
}

static const scenario SCENARIOS[] = {
    {"rename of a file being written", rename_busy_setup, rename_busy_change, rename_busy_verify},
    {"sync of a WAL (sparse)", wal_sync_setup, sync_change, sync_verify},
    {"sync of a MANIFEST", manifest_sync_setup, sync_change, sync_verify},
    {"delete", delete_setup, delete_change, delete_verify},
    {"rename over a file", rename_setup, rename_change, rename_verify},
    {"create over a file", create_setup, create_change, create_verify},
    {"garbage collection", gc_setup, gc_change, gc_verify},
    {"metadata log roll", roll_setup, sync_change, sync_verify},
    {"delete that rolls the log", delete_roll_setup, delete_change, delete_verify},
    {"delete of an open file that rolls the log", delete_open_roll_setup, delete_change, delete_verify},
    {"sync of a deleted file", nameless_writer_setup, sync_change, nameless_writer_verify},
};

/* Mounts after a cut, checks the state and that fsck finds nothing. */
static void remount_and_verify(const scenario *sc, int completed) {
  zkv_dev *d = open_dev();
  int rc = 0;
  zfs *fs = zfs_mount(d, &rc, err, sizeof err);
  if (!fs) fprintf(stderr, "%s: mount failed after the cut: %d %s\n", sc->name, rc, err);
  CHECK(fs != NULL);
  sc->verify(fs, completed);
  CHECK_EQ(zfs_check(fs, no_fsck_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Runs the change once cleanly to count its device steps, then once per step with the cut there. */
static void cut_between_every_step(const scenario *sc) {
  uint64_t steps = 0;
  for (uint64_t k = 0; k <= steps; k++) {
    fresh("?wcache=1");
    zkv_dev *d = open_dev();
    zfs *fs = mount_ok(d);
    cur_dev = d;
    tp_set_gc_level(fs, 0); /* no background GC: the steps are the change's alone */
    held = NULL;
    sc->setup(fs);
    uint64_t first = device_steps(d);
    int counting = k == 0;
    if (!counting) CHECK_EQ(zkv_emu_inject_error(d, ALL_WRITES, -1, (uint32_t)(k - 1), 1u << 30, -EIO), 0);
    int rc = sc->change(fs);
    if (counting) {
      CHECK_EQ(rc, 0);
      steps = device_steps(d) - first;
      CHECK(steps > 0);
    }
    CHECK(zkv_emu_power_cut(d, ZKV_CUT_RANDOM, 1000 + k) >= 0);
    if (held) zfs_close(held); /* on the dead device: frees the handle */
    held = NULL;
    zfs_unmount(fs);
    zkv_dev_close(d);
    remount_and_verify(sc, counting);
  }
  printf("  %-45s cut at each of %llu steps: mounted, state before or after, fsck clean\n", sc->name,
         (unsigned long long)steps);
}

/* Clean open / write / delete / close cycles (no crash) with deletes that roll the log: the device
 * must mount after every one. */
static void test_clean_cycles_stay_mountable(void) {
  fresh("");
  for (int cycle = 0; cycle < 40; cycle++) {
    zkv_dev *d = open_dev();
    zfs *fs = mount_ok(d);
    for (int i = 0; i < 60; i++) {
      char name[48];
      snprintf(name, sizeof name, "/db/%06d.sst", cycle * 100 + i);
      write_file(fs, name, (uint64_t)(cycle * 100 + i), 3000 + (uint64_t)i, 0);
      if (i % 4) CHECK_EQ(zfs_delete(fs, name), 0);
    }
    zfs_unmount(fs);
    zkv_dev_close(d);
  }
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK(s.meta_rolls >= 1);
  CHECK_EQ(s.files, 40 * 15);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static void run_all(const char *geometry) {
  printf("geometry: %u zones of %llu MiB, capacity %llu MiB (%s)\n", GEO.nr_zones,
         (unsigned long long)(GEO.zone_size >> 20), (unsigned long long)(GEO.zone_cap >> 20), geometry);
  for (size_t i = 0; i < sizeof SCENARIOS / sizeof *SCENARIOS; i++) cut_between_every_step(&SCENARIOS[i]);
  test_clean_cycles_stay_mountable();
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_order seed=%llu\n", (unsigned long long)rng);
  run_all("capacity below size");
  GEO.zone_cap = GEO.zone_size;
  run_all("capacity equal to size");
  remove_temp_dir();
  TEST_DONE("test_zonefs_order");
  return 0;
}
