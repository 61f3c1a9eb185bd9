/* The WAL reserve (zonefs/wal_reserve.c, WALTZ's +R): a WAL moves to a reserved zone with no
 * policy call on its path (proved by holding the reserve's own refill inside the policy while the
 * WAL writes two zones), the zone it left is finished in the background, reserved zones are kept
 * from other writers and GC but given back to a writer that finds no other zone, the active limit
 * caps the reserve, and ZWAL's appends switch the same way. Progress, not speed: every wait is
 * bounded. */
#include <time.h>

#include "test_blocker.h"
#include "zfs_fixture.h"
#include "zonefs_internal.h" /* zone states: finished, reserved */

/* The polls of the reserve's thread: they fail only if it never gets there, however long a loaded
 * host keeps it from running. */
#define WAIT_BOUND_MS (BLOCK_BOUND_SECONDS * 1000)

/* The tests' placement policy, recording who asks: requests for a WAL's own zone (the put path)
 * and the reserve's requests, which block once the blocker is armed. */
typedef struct recorder {
  blocker b;
  pthread_mutex_t mu;
  uint64_t wal_id;
  int wal_requests, reserve_requests;
} recorder;

static int recording_allocator(void *ctx, const zfs_alloc_request *req, const zfs_view *v, zfs_alloc_decision *out) {
  recorder *r = ctx;
  pthread_mutex_lock(&r->mu);
  if (req->for_wal_reserve)
    r->reserve_requests++;
  else if (req->file_id == r->wal_id)
    r->wal_requests++;
  pthread_mutex_unlock(&r->mu);
  if (req->for_wal_reserve) blocker_enter(&r->b);
  return tp_allocate(&tp_cfg, req, v, out);
}

static void recorder_init(recorder *r) {
  memset(r, 0, sizeof *r);
  blocker_init(&r->b);
  pthread_mutex_init(&r->mu, NULL);
  r->wal_id = UINT64_MAX;
}

static zfs_stats stats(zfs *fs) {
  zfs_stats s;
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  return s;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Waits until `n` zones are reserved (the reserve's thread fills it in the background). */
static void wait_reserved(zfs *fs, uint32_t n) {
  for (int ms = 0; stats(fs).wal_reserved_zones != n; ms += 5) {
    if (ms > WAIT_BOUND_MS) {
      fprintf(stderr, "reserve stayed at %u zones, wanted %u\n", stats(fs).wal_reserved_zones, n);
      CHECK(0);
    }
    sleep_ms(5);
  }
}

static void wait_finishes(zfs *fs, uint64_t n) {
  for (int ms = 0; stats(fs).wal_zone_finishes < n; ms += 5) {
    CHECK(ms <= WAIT_BOUND_MS);
    sleep_ms(5);
  }
}

/* A WAL's bytes [from, to) in 64 KiB appends, each synced (RocksDB's synced puts, batched). */
static void write_wal_range(zfs_file *f, uint64_t seed, uint64_t from, uint64_t to) {
  uint8_t *buf = malloc(64 << 10);
  for (uint64_t done = from; done < to; done += 64 << 10) {
    fill(buf, seed, done, 64 << 10);
    CHECK_EQ(zfs_append(f, buf, 64 << 10), 0);
    CHECK_EQ(zfs_sync(f), 0);
  }
  free(buf);
}

static void write_wal(zfs_file *f, uint64_t seed, uint64_t total) { write_wal_range(f, seed, 0, total); }

typedef struct zone_list {
  const char *name;
  uint32_t zones[8], n;
} zone_list;

static void list_zones(const zfs_file_meta *m, void *arg) {
  zone_list *l = arg;
  if (strcmp(m->names[0], l->name)) return;
  for (uint32_t i = 0; i < m->n_extents; i++) {
    uint32_t z = (uint32_t)(m->extents[i].start / GEO.zone_size);
    if (l->n == 0 || l->zones[l->n - 1] != z) {
      CHECK(l->n < 8);
      l->zones[l->n++] = z;
    }
  }
}

static zone_list zones_of_file(zfs *fs, const char *name) {
  zone_list l = {.name = name};
  CHECK_EQ(zfs_walk_files(fs, list_zones, &l), 0);
  return l;
}

/* A WAL writing its first zone and one switch (4 MiB over 3 MiB zones) gets both from the reserve,
 * the switch while the reserve's refill is held inside the policy: no policy call, nothing waited
 * for. The
 * zone it left is finished once the refill goes on (the same thread), and everything survives a
 * remount. */
static void switch_without_policy_call(int zwal) {
  fresh(zwal ? "?reorder=1" : "");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  recorder r;
  recorder_init(&r);
  zfs_set_allocator(fs, recording_allocator, &r);
  if (zwal) CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 8, 0), 0);
  CHECK_EQ(zfs_set_wal_reserve(fs, 2, 0), 0);
  wait_reserved(fs, 2);
  blocker_arm(&r.b);
  int rc = 0;
  zfs_file *wal = zfs_create(fs, "/db/000010.log", 2, &rc);
  CHECK(wal != NULL);
  pthread_mutex_lock(&r.mu);
  r.wal_id = wal->f->m.id;
  pthread_mutex_unlock(&r.mu);
  /* the first zone's take wakes the refill, which the blocker holds inside the policy; the switch
   * comes while it is held */
  write_wal_range(wal, 10, 0, 1 << 20);
  blocker_wait_entered(&r.b);
  write_wal_range(wal, 10, 1 << 20, 4 << 20);
  zfs_stats s = stats(fs);
  pthread_mutex_lock(&r.mu);
  printf("  %s: switches %llu, waits %llu, WAL requests %d, reserve requests %d, finishes %llu\n",
         zwal ? "ZWAL" : "FILE", (unsigned long long)s.wal_zone_switches, (unsigned long long)s.wal_zone_waits,
         r.wal_requests, r.reserve_requests, (unsigned long long)s.wal_zone_finishes);
  CHECK_EQ(r.wal_requests, 0);
  pthread_mutex_unlock(&r.mu);
  CHECK_EQ(s.wal_zone_switches, 2);
  CHECK_EQ(s.wal_zone_waits, 0);
  CHECK_EQ(s.wal_zone_finishes, 0); /* the finisher is the thread held in the policy */
  zone_list l = zones_of_file(fs, "/db/000010.log");
  CHECK_EQ(l.n, 2);
  uint32_t left = l.zones[0];
  CHECK(fs->zones[left].busy); /* claimed until its finish */
  uint64_t room = zone_end(fs, left) - fs->zones[left].wp;
  CHECK(room > 0 && room < wal_switch_room(fs, wal->f));
  blocker_release(&r.b);
  wait_finishes(fs, 1);
  CHECK_EQ(fs->zones[left].wp, zone_end(fs, left));
  CHECK(!r.b.timed_out);
  CHECK_EQ(zfs_close(wal), 0);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, "/db/000010.log", 10, 4 << 20);
  if (zwal) { /* the WAL's zones hold only its chunks: its delete empties them, no copy */
    uint64_t resets = stats(fs).resets_without_copy;
    CHECK_EQ(zfs_delete(fs, "/db/000010.log"), 0);
    CHECK_EQ(stats(fs).resets_without_copy, resets + 2);
  }
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  blocker_destroy(&r.b);
  pthread_mutex_destroy(&r.mu);
}

/* With the reserve off, every WAL zone is a policy call: counted as waits, the baseline. */
static void waits_counted_without_reserve(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *wal = zfs_create(fs, "/db/000011.log", 2, &rc);
  CHECK(wal != NULL);
  write_wal(wal, 11, 4 << 20);
  CHECK_EQ(zfs_close(wal), 0);
  zfs_stats s = stats(fs);
  CHECK_EQ(s.wal_zone_switches, 0);
  CHECK_EQ(s.wal_zone_waits, 2);
  CHECK(s.wal_zone_wait_max_ns > 0);
  CHECK_EQ(s.wal_reserved_zones, 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Reserved zones are held: GC never takes them and no other writer is given one while another
 * zone will do; a writer that finds none gets them back instead of NoSpace, so the reserve costs
 * the device no room. */
static void reserved_zones_given_back_when_full(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  tp_set_gc_level(fs, 100); /* background GC rounds all the time */
  CHECK_EQ(zfs_set_wal_reserve(fs, 2, 0), 0);
  wait_reserved(fs, 2);
  uint32_t kept[2] = {fs->walr_zones[0], fs->walr_zones[1]};
  write_file(fs, "/db/000020.sst", 20, 6 << 20, 0);
  zone_list l = zones_of_file(fs, "/db/000020.sst");
  for (uint32_t i = 0; i < l.n; i++) CHECK(l.zones[i] != kept[0] && l.zones[i] != kept[1]);
  CHECK_EQ(stats(fs).wal_reserved_zones, 2);
  CHECK(fs->zones[kept[0]].wal_reserved && fs->zones[kept[0]].wp == fs->zones[kept[0]].start);
  /* everything a data file may write, reserved zones included: zfs_free_bytes counts them */
  uint64_t free_bytes = zfs_free_bytes(fs);
  CHECK(free_bytes > 2 * GEO.zone_cap);
  write_file(fs, "/db/000021.sst", 21, free_bytes - GEO.zone_cap - GEO.lba_size, 0); /* a flush's tier: a zone */
  zfs_stats s = stats(fs);
  printf("  full: %llu reserved zones given back, %u reserved now, %llu reserve overrides\n",
         (unsigned long long)s.wal_reserve_returns, s.wal_reserved_zones,
         (unsigned long long)s.overrides[ZFS_OVERRIDE_RESERVE]);
  CHECK(s.wal_reserve_returns >= 1);
  check_file(fs, "/db/000021.sst", 21, free_bytes - GEO.zone_cap - GEO.lba_size);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A policy that asks for an empty zone the reserves keep from the writer gets a reserved WAL zone
 * back and is asked again, instead of the safety rule overriding it (RESERVE): the data zones are
 * filled until only the two kept empty zones, the two reserved ones and one partly written zone
 * remain; the next file's OPEN_EMPTY answer (the tests' LIZA ignores the kept zones) then takes
 * the returned zone, not the partly written one. */
static void kept_zone_answer_takes_a_reserved_zone(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  tp_set_gc_level(fs, 0);
  CHECK_EQ(zfs_set_wal_reserve(fs, 2, 0), 0);
  wait_reserved(fs, 2);
  uint32_t full = GEO.nr_zones - fs->sb.meta_zones - 2 - 2 - 1;
  for (uint32_t i = 0; i < full; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/%06u.sst", 100 + i);
    write_file(fs, name, 100 + i, GEO.zone_cap, 0);
  }
  write_file(fs, "/db/000200.sst", 200, 1 << 20, 0); /* the partly written zone */
  zfs_stats s = stats(fs);
  CHECK_EQ(s.empty_zones, 4); /* two kept, two reserved */
  CHECK_EQ(s.wal_reserved_zones, 2);
  CHECK_EQ(s.wal_reserve_returns, 0);
  write_file(fs, "/db/000201.sst", 201, 1 << 20, 0);
  s = stats(fs);
  printf("  kept zone asked: %llu given back, %llu reserve overrides\n", (unsigned long long)s.wal_reserve_returns,
         (unsigned long long)s.overrides[ZFS_OVERRIDE_RESERVE]);
  CHECK_EQ(s.wal_reserve_returns, 1);
  CHECK_EQ(s.overrides[ZFS_OVERRIDE_RESERVE], 0);
  check_file(fs, "/db/000201.sst", 201, 1 << 20);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* The active limit caps the reserve: a token for the WAL's own zone and one for every other writer
 * stay. Limits 4/4 leave the file system 2 active zones, so nothing is reserved and a WAL's zones
 * are the policy's, as without a reserve. */
static void active_limit_caps_the_reserve(void) {
  zkv_geometry saved = GEO;
  GEO.max_open = GEO.max_active = 4;
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  CHECK_EQ(zfs_set_wal_reserve(fs, 2, 0), 0);
  sleep_ms(300); /* the thread had time to fill it, were it allowed to */
  CHECK_EQ(stats(fs).wal_reserved_zones, 0);
  int rc = 0;
  zfs_file *wal = zfs_create(fs, "/db/000030.log", 2, &rc);
  CHECK(wal != NULL);
  write_wal(wal, 30, 1 << 20);
  CHECK_EQ(zfs_close(wal), 0);
  CHECK_EQ(stats(fs).wal_zone_switches, 0);
  CHECK_EQ(stats(fs).wal_zone_waits, 1);
  zfs_unmount(fs);
  zkv_dev_close(d);
  GEO = saved;
}

static void settings_refused(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  CHECK_EQ(zfs_set_wal_reserve(fs, ZFS_WAL_RESERVE_MAX + 1, 0), -EINVAL);
  CHECK_EQ(zfs_set_wal_reserve(fs, 2, GEO.zone_cap + 1), -EINVAL);
  CHECK_EQ(zfs_set_wal_reserve(fs, 2, 5000), 0); /* rounded up to a block */
  CHECK_EQ(atomic_load(&fs->walr_switch_room), 8192);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_wal_reserve seed=%llu\n", (unsigned long long)rng);
  switch_without_policy_call(0);
  switch_without_policy_call(1);
  waits_counted_without_reserve();
  reserved_zones_given_back_when_full();
  kept_zone_answer_takes_a_reserved_zone();
  active_limit_caps_the_reserve();
  settings_refused();
  remove_temp_dir();
  TEST_DONE("test_zonefs_wal_reserve");
  return 0;
}
