/* Leased zones (zonefs/lease.c, WALTZ's zones): a lease survives clean and crashed mounts with
 * every FUA append in it, writers and GC never touch a leased zone even on a full device, a return
 * resets the zone and is itself persistent, and bad calls fail cleanly. Appends come from several
 * threads at once, as WALTZ's writers make them. */
#include <inttypes.h>

#include "zfs_fixture.h"
#include "zonefs_internal.h" /* zone states */

#define OWNER_A 0x1111222233334444ull
#define OWNER_B 0x5555666677778888ull
#define THREADS 4
#define PER_THREAD 60

/* Block k of writer t: its bytes name both, so a misplaced or torn block is caught. */
static void fill_block(uint8_t *b, uint32_t t, uint32_t k) {
  for (uint32_t i = 0; i < GEO.lba_size; i++) b[i] = (uint8_t)(pattern(t * 1000 + k, i) ^ t);
}

typedef struct appender {
  zfs *fs;
  uint32_t zone, t;
  int64_t at[PER_THREAD];
} appender;

static void *append_blocks(void *arg) {
  appender *a = arg;
  uint8_t *b = aligned_alloc(4096, GEO.lba_size);
  for (uint32_t k = 0; k < PER_THREAD; k++) {
    fill_block(b, a->t, k);
    a->at[k] = zfs_lease_append(a->fs, OWNER_A, a->zone, b, GEO.lba_size, 1);
    CHECK(a->at[k] >= 0);
  }
  free(b);
  return NULL;
}

static void check_blocks(zfs *fs, uint32_t zone, const appender *a) {
  uint8_t *b = aligned_alloc(4096, GEO.lba_size), *want = malloc(GEO.lba_size);
  for (uint32_t t = 0; t < THREADS; t++)
    for (uint32_t k = 0; k < PER_THREAD; k++) {
      CHECK_EQ(zfs_lease_read(fs, OWNER_A, zone, (uint64_t)a[t].at[k], b, GEO.lba_size), 0);
      fill_block(want, t, k);
      CHECK(memcmp(b, want, GEO.lba_size) == 0);
    }
  free(b);
  free(want);
}

static void check_fsck(zfs *fs) { CHECK_EQ(zfs_check(fs, print_problem, NULL), 0); }

/* A power cut that drops everything not durable, then a mount of what is left. */
static zfs *cut_and_remount(zkv_dev **d, zfs *fs, uint64_t seed) {
  CHECK(zkv_emu_power_cut(*d, ZKV_CUT_DROP_ALL, seed) >= 0);
  zfs_unmount(fs);
  zkv_dev_close(*d);
  *d = open_dev();
  return mount_ok(*d);
}

static void leases_survive_mounts_and_power_cuts(void) {
  fresh("?wcache=1");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint32_t a0, a1, b0;
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &a0), 0);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &a1), 0);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_B, &b0), 0);
  CHECK(a0 != a1 && a0 != b0 && a1 != b0);
  appender a[THREADS];
  pthread_t th[THREADS];
  for (uint32_t t = 0; t < THREADS; t++) {
    a[t] = (appender){.fs = fs, .zone = a0, .t = t};
    CHECK_EQ(pthread_create(&th[t], NULL, append_blocks, &a[t]), 0);
  }
  for (uint32_t t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  zfs_lease_state st;
  CHECK_EQ(zfs_lease_info(fs, OWNER_A, a0, &st), 0);
  CHECK_EQ(st.written, (uint64_t)THREADS * PER_THREAD * GEO.lba_size);
  CHECK_EQ(st.capacity, GEO.zone_cap);
  check_blocks(fs, a0, a);
  /* Files written meanwhile stay out of the leased zones. */
  write_file(fs, "/db/a.sst", 21, 5 << 20, 1);
  /* A power cut that drops everything not made durable: FUA appends and the lease records stay. */
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 5) >= 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  for (int round = 0; round < 2; round++) { /* after the crash, then after a clean unmount */
    d = open_dev();
    fs = mount_ok(d);
    uint32_t zones[8];
    CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 2);
    CHECK_EQ(zones[0], a0 < a1 ? a0 : a1);
    CHECK_EQ(zones[1], a0 < a1 ? a1 : a0);
    CHECK_EQ(zfs_leased_zones(fs, OWNER_B, zones, 8), 1);
    CHECK_EQ(zones[0], b0);
    CHECK_EQ(zfs_lease_info(fs, OWNER_A, a0, &st), 0);
    CHECK_EQ(st.written, (uint64_t)THREADS * PER_THREAD * GEO.lba_size);
    check_blocks(fs, a0, a);
    check_file(fs, "/db/a.sst", 21, 5 << 20);
    check_fsck(fs);
    zfs_unmount(fs);
    zkv_dev_close(d);
  }
  /* A return resets the zone and survives a crash: the next mount sees no lease. */
  d = open_dev();
  fs = mount_ok(d);
  CHECK_EQ(zfs_lease_return(fs, OWNER_A, a0), 0);
  CHECK_EQ(zfs_lease_return(fs, OWNER_A, a0), -ENOENT);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, a0, &zi), 0);
  CHECK_EQ(zi.wp, zi.start);
  CHECK(!zi.busy);
  CHECK(!zi.leased);
  fs = cut_and_remount(&d, fs, 6);
  uint32_t zones[8];
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 1);
  CHECK_EQ(zones[0], a1);
  /* Returning all of an owner's zones is one record: after a crash, none is left leased. */
  uint32_t a2; /* a third would exceed the fixture's active limit (held zones count) */
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &a2), 0);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 2);
  uint64_t records = 0;
  zfs_stats before, after;
  CHECK_EQ(zfs_stats_get(fs, &before), 0);
  CHECK_EQ(zfs_lease_return_all(fs, OWNER_A), 0);
  CHECK_EQ(zfs_stats_get(fs, &after), 0);
  records = after.meta_bytes - before.meta_bytes;
  CHECK_EQ(records, (uint64_t)GEO.lba_size); /* one block: one record for both */
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 0);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_B, zones, 8), 1); /* another owner's stay */
  fs = cut_and_remount(&d, fs, 7);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 0);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_B, zones, 8), 1);
  CHECK_EQ(zfs_lease_return_all(fs, OWNER_A), 0); /* none: nothing to do */
  check_fsck(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Writers fill the device to NoSpace and GC collects: the leased zone's blocks stay, no file
 * extent lies in it, and the zone never reaches a policy as free. */
static void writers_and_gc_leave_leased_zones_alone(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint32_t z;
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &z), 0);
  appender a[THREADS];
  for (uint32_t t = 0; t < THREADS; t++) {
    a[t] = (appender){.fs = fs, .zone = z, .t = t};
    append_blocks(&a[t]);
  }
  char name[64];
  int files = 0;
  for (;; files++) { /* until the device refuses */
    snprintf(name, sizeof name, "/db/f%03d.sst", files);
    int rc = 0;
    zfs_file *f = zfs_create(fs, name, 3, &rc);
    CHECK(f != NULL);
    uint8_t *buf = malloc(1 << 20);
    fill(buf, (uint64_t)files, 0, 1 << 20);
    rc = zfs_append(f, buf, 1 << 20);
    if (!rc) rc = zfs_sync(f);
    free(buf);
    zfs_close(f);
    if (rc) {
      CHECK_EQ(rc, -ENOSPC);
      zfs_delete(fs, name);
      break;
    }
  }
  CHECK(files > 10);
  for (int i = 0; i < files; i += 2) { /* garbage everywhere, then collect */
    snprintf(name, sizeof name, "/db/f%03d.sst", i);
    CHECK_EQ(zfs_delete(fs, name), 0);
  }
  zfs_reclaim(fs, UINT64_MAX);
  zfs_lease_state st;
  CHECK_EQ(zfs_lease_info(fs, OWNER_A, z, &st), 0);
  CHECK_EQ(st.written, (uint64_t)THREADS * PER_THREAD * GEO.lba_size);
  check_blocks(fs, z, a);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, z, &zi), 0);
  CHECK(zi.busy); /* held: the policies see it as taken */
  CHECK(zi.leased);
  CHECK_EQ(zi.live, 0ull); /* no file's data */
  check_fsck(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Returning the written zones keeps the first `keep` empty ones (WALTZ's zone for a start on a full
 * device), with one record that survives a power cut. */
static void return_keep_empty_keeps_only_empty_zones(void) {
  fresh("?wcache=1");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint32_t w, e1, zones[8];
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &w), 0);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &e1), 0);
  uint8_t *b = aligned_alloc(4096, GEO.lba_size);
  memset(b, 3, GEO.lba_size);
  CHECK(zfs_lease_append(fs, OWNER_A, w, b, GEO.lba_size, 1) >= 0);
  zfs_stats before, after;
  CHECK_EQ(zfs_stats_get(fs, &before), 0);
  CHECK_EQ(zfs_lease_return_keep_empty(fs, OWNER_A, 1), 1);
  CHECK_EQ(zfs_stats_get(fs, &after), 0);
  CHECK_EQ(after.meta_bytes - before.meta_bytes, (uint64_t)GEO.lba_size); /* one record */
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 1);
  CHECK_EQ(zones[0], e1);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, w, &zi), 0);
  CHECK(!zi.leased);
  CHECK_EQ(zi.wp, zi.start); /* reset */
  fs = cut_and_remount(&d, fs, 8);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 1);
  CHECK_EQ(zones[0], e1);
  /* Two empty ones, one kept; then none kept: all returned. */
  uint32_t e2;
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &e2), 0);
  CHECK_EQ(zfs_lease_return_keep_empty(fs, OWNER_A, 1), 1);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 1);
  CHECK_EQ(zfs_lease_return_keep_empty(fs, OWNER_A, 0), 0);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 0);
  CHECK_EQ(zfs_lease_return_keep_empty(fs, OWNER_A, 1), 0); /* none leased: nothing to do */
  /* A set goes back whole, or not at all if one zone is not the owner's. */
  uint32_t s0, s1, set[2];
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &s0), 0);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_B, &s1), 0);
  set[0] = s0;
  set[1] = s1;
  CHECK_EQ(zfs_lease_return_set(fs, OWNER_A, set, 2), -ENOENT);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 1);
  CHECK_EQ(zfs_lease_return_set(fs, OWNER_A, set, 1), 0);
  CHECK_EQ(zfs_leased_zones(fs, OWNER_A, zones, 8), 0);
  CHECK_EQ(zfs_lease_return_set(fs, OWNER_B, set + 1, 1), 0);
  CHECK_EQ(zfs_lease_return_set(fs, OWNER_A, NULL, 0), 0);
  CHECK_EQ(zfs_lease_return_keep_empty(fs, 0, 1), -EINVAL);
  free(b);
  check_fsck(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

static uint64_t key_of(zfs *fs, uint64_t owner, uint32_t zone, uint64_t *k1) {
  zfs_lease_state st;
  CHECK_EQ(zfs_lease_info(fs, owner, zone, &st), 0);
  *k1 = st.key[1];
  return st.key[0];
}

/* Each lease has a key of its own (never zero), kept by the lease's record through clean and
 * crashed mounts; a return forgets it, a new lease of the same zone draws another, a renewal of an
 * empty zone too (refused once written), and a lease recorded by a version 7 file system (no key)
 * mounts keyless. */
static void every_lease_has_a_key_of_its_own(void) {
  fresh("?wcache=1");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint32_t a, b;
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &a), 0);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &b), 0);
  uint64_t a1, b1, a0 = key_of(fs, OWNER_A, a, &a1), b0 = key_of(fs, OWNER_A, b, &b1);
  CHECK(a0 || a1);
  CHECK(a0 != b0 || a1 != b1);
  uint8_t *blk = aligned_alloc(4096, GEO.lba_size);
  memset(blk, 5, GEO.lba_size);
  CHECK(zfs_lease_append(fs, OWNER_A, a, blk, GEO.lba_size, 1) >= 0);
  fs = cut_and_remount(&d, fs, 11);
  uint64_t k1;
  CHECK_EQ(key_of(fs, OWNER_A, a, &k1), a0);
  CHECK_EQ(k1, a1);
  CHECK_EQ(key_of(fs, OWNER_A, b, &k1), b0);
  CHECK_EQ(k1, b1);
  zfs_lease_state st;
  CHECK_EQ(zfs_lease_info(fs, OWNER_B, a, &st), -ENOENT); /* not B's: no key for B */
  /* renewal: the empty zone gets a new key, durable; a written one is refused */
  CHECK_EQ(zfs_lease_renew(fs, OWNER_A, a), -ENOTEMPTY);
  CHECK_EQ(zfs_lease_renew(fs, OWNER_B, b), -ENOENT);
  CHECK_EQ(zfs_lease_renew(fs, OWNER_A, b), 0);
  uint64_t r1, r0 = key_of(fs, OWNER_A, b, &r1);
  CHECK((r0 || r1) && (r0 != b0 || r1 != b1));
  fs = cut_and_remount(&d, fs, 12);
  CHECK_EQ(key_of(fs, OWNER_A, b, &k1), r0);
  CHECK_EQ(k1, r1);
  /* returned, then leased again: another key */
  CHECK_EQ(zfs_lease_return(fs, OWNER_A, b), 0);
  uint32_t again;
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &again), 0);
  uint64_t n1, n0 = key_of(fs, OWNER_A, again, &n1);
  CHECK((n0 || n1) && (n0 != r0 || n1 != r1));
  CHECK_EQ(zfs_lease_return(fs, OWNER_A, again), 0);
  /* A version 7 lease record (ZONE_LEASES: no key) of an empty zone: leased, keyless after a
   * mount; renewal gives it a key. */
  uint32_t legacy = 0;
  for (uint32_t z = GEO.nr_zones - 1; z > 0; z--) {
    zfs_zone_info zi;
    CHECK_EQ(zfs_zone_info_get(fs, z, &zi), 0);
    if (!zi.busy && !zi.meta && zi.wp == zi.start) {
      legacy = z;
      break;
    }
  }
  CHECK(legacy != 0);
  uint8_t rec[4 + 16];
  put32(rec, 1);
  put32(rec + 4, legacy);
  put32(rec + 8, 0);
  put64(rec + 12, OWNER_B);
  after_unlock work;
  lock_fs(fs, &work);
  CHECK_EQ(append_record(fs, ZFS_REC_ZONE_LEASES, rec, sizeof rec), 0);
  CHECK_EQ(unlock_fs(fs, &work), 0);
  fs = cut_and_remount(&d, fs, 13);
  uint32_t zones[8];
  CHECK_EQ(zfs_leased_zones(fs, OWNER_B, zones, 8), 1);
  CHECK_EQ(zones[0], legacy);
  CHECK_EQ(key_of(fs, OWNER_B, legacy, &k1), 0ull);
  CHECK_EQ(k1, 0ull);
  CHECK_EQ(zfs_lease_renew(fs, OWNER_B, legacy), 0);
  CHECK(key_of(fs, OWNER_B, legacy, &k1) || k1);
  CHECK_EQ(zfs_lease_return_all(fs, OWNER_B), 0);
  free(blk);
  check_fsck(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
  printf("  every lease has a key of its own\n");
}

/* Writes 1 MiB files /db/fNNN.sst until the device refuses one (dropped); returns how many stand. */
static int fill_device(zfs *fs) {
  char name[64];
  int files = 0;
  uint8_t *buf = malloc(1 << 20);
  CHECK(buf != NULL);
  for (;; files++) {
    snprintf(name, sizeof name, "/db/f%03d.sst", files);
    int rc = 0;
    zfs_file *f = zfs_create(fs, name, 3, &rc);
    CHECK(f != NULL);
    fill(buf, (uint64_t)files, 0, 1 << 20);
    rc = zfs_append(f, buf, 1 << 20);
    if (!rc) rc = zfs_sync(f);
    zfs_close(f);
    if (rc) {
      CHECK_EQ(rc, -ENOSPC);
      zfs_delete(fs, name);
      break;
    }
  }
  free(buf);
  return files;
}

/* Deletes the even-numbered files of fill_device: garbage in every zone. */
static void delete_every_other(zfs *fs, int files) {
  char name[64];
  for (int i = 0; i < files; i += 2) {
    snprintf(name, sizeof name, "/db/f%03d.sst", i);
    CHECK_EQ(zfs_delete(fs, name), 0);
  }
}

/* A lease on a device whose zones are all written, with a zone's worth of garbage in full zones,
 * collects garbage itself and gets a zone, as a data writer would (issue 42: WALTZ's log failed
 * with NoSpace here while GC had never run); with no garbage left to collect, NoSpace. */
static void a_lease_collects_garbage_rather_than_fail(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  zfs_set_gc_trigger(fs, NULL, NULL); /* no background rounds: the lease must do it itself */
  int files = fill_device(fs);
  uint32_t z;
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &z), -ENOSPC); /* nothing to collect: every byte is live */
  delete_every_other(fs, files);                      /* half of every zone is garbage now */
  zfs_stats before, after;
  CHECK_EQ(zfs_stats_get(fs, &before), 0);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &z), 0);
  CHECK_EQ(zfs_stats_get(fs, &after), 0);
  CHECK(after.lease_collections > before.lease_collections);
  CHECK(after.gc_zones > before.gc_zones);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, z, &zi), 0);
  CHECK(zi.leased && zi.wp == zi.start);
  for (int i = 1; i < files; i += 2) {
    char name[64];
    snprintf(name, sizeof name, "/db/f%03d.sst", i);
    check_file(fs, name, (uint64_t)i, 1 << 20);
  }
  CHECK_EQ(zfs_lease_return(fs, OWNER_A, z), 0);
  check_fsck(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
  printf("  a lease collects garbage rather than fail (%" PRIu64 " collections)\n",
         after.lease_collections - before.lease_collections);
}

/* A GC trigger that never asks for a collection (ZenFS's at a level the device never falls to). */
static int never_collect(void *ctx, const zfs_view *v, uint64_t *max_live) {
  (void)ctx, (void)v;
  *max_live = 0;
  return 0;
}

/* A lease that leaves no empty zone for the next one wakes background GC, which collects for the
 * leases' room although its trigger never asks (it counts room in partly written zones, which a
 * lease cannot use), so the next lease finds a zone without collecting on its own path. */
static void background_gc_collects_for_the_leases_room(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  zfs_set_gc_trigger(fs, never_collect, NULL);
  int files = fill_device(fs);
  delete_every_other(fs, files);
  uint32_t z;
  /* leases (collecting themselves while nothing is empty), each finished as a log finishes the
   * zones it leaves (no active token held), until one leaves no empty zone for the next: that one
   * wakes the worker */
  int leases = 0;
  do {
    CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &z), 0);
    CHECK_EQ(zfs_lease_finish(fs, OWNER_A, z), 0);
    leases++;
  } while (zfs_lease_room(fs) > 0 && leases < 16);
  CHECK(zfs_lease_room(fs) == 0);
  zfs_stats st = {0};
  uint64_t rounds = 0;
  for (int i = 0; i < 3000 && !rounds; i++) { /* the worker's next rounds; a minute at most */
    CHECK_EQ(zfs_stats_get(fs, &st), 0);
    rounds = st.gc_rounds_for_room;
    if (!rounds) usleep(20000);
  }
  CHECK(rounds > 0);
  for (int i = 0; i < 3000 && zfs_lease_room(fs) == 0; i++) usleep(20000);
  CHECK(zfs_lease_room(fs) > 0); /* background GC made room for the next lease */
  uint32_t next;
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &next), 0);
  CHECK_EQ(zfs_lease_return_all(fs, OWNER_A), 0);
  check_fsck(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
  printf("  background GC collects for the leases' room (%" PRIu64 " rounds)\n", rounds);
}

static void bad_calls_fail_cleanly(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint32_t z, other;
  CHECK_EQ(zfs_lease_zone(fs, 0, &z), -EINVAL);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_A, &z), 0);
  CHECK_EQ(zfs_lease_zone(fs, OWNER_B, &other), 0);
  uint8_t *b = aligned_alloc(4096, 2 * GEO.lba_size);
  memset(b, 7, 2 * GEO.lba_size);
  CHECK_EQ(zfs_lease_append(fs, OWNER_B, z, b, GEO.lba_size, 0), -ENOENT); /* another owner's */
  CHECK_EQ(zfs_lease_append(fs, OWNER_A, 0, b, GEO.lba_size, 0), -ENOENT); /* a meta zone */
  CHECK_EQ(zfs_lease_append(fs, OWNER_A, GEO.nr_zones, b, GEO.lba_size, 0), -ENOENT);
  CHECK_EQ(zfs_lease_append(fs, OWNER_A, z, b, 100, 0), -EINVAL); /* not whole blocks */
  CHECK_EQ(zfs_lease_read(fs, OWNER_A, z, GEO.zone_cap, b, 1), -EINVAL);
  CHECK_EQ(zfs_lease_return(fs, OWNER_B, z), -ENOENT);
  /* A full zone refuses the next append with the device's Zone Is Full. */
  for (uint64_t n = 0; n < GEO.zone_cap / GEO.lba_size; n++)
    CHECK(zfs_lease_append(fs, OWNER_A, z, b, GEO.lba_size, 0) >= 0);
  CHECK_EQ(zfs_lease_append(fs, OWNER_A, z, b, GEO.lba_size, 0), -(ZKV_ZNS_BASE | ZKV_NVME_ZONE_IS_FULL));
  /* finish: a partly written lease no longer holds an active token; appends then fail as full */
  CHECK(zfs_lease_append(fs, OWNER_B, other, b, GEO.lba_size, 0) >= 0);
  CHECK_EQ(zfs_lease_finish(fs, OWNER_B, other), 0);
  CHECK_EQ(zfs_lease_append(fs, OWNER_B, other, b, GEO.lba_size, 0), -(ZKV_ZNS_BASE | ZKV_NVME_ZONE_IS_FULL));
  CHECK_EQ(zfs_lease_return(fs, OWNER_A, z), 0);
  CHECK_EQ(zfs_lease_return(fs, OWNER_B, other), 0);
  free(b);
  check_fsck(fs);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_lease seed=%llu\n", (unsigned long long)rng);
  leases_survive_mounts_and_power_cuts();
  writers_and_gc_leave_leased_zones_alone();
  return_keep_empty_keeps_only_empty_zones();
  every_lease_has_a_key_of_its_own();
  a_lease_collects_garbage_rather_than_fail();
  background_gc_collects_for_the_leases_room();
  bad_calls_fail_cleanly();
  remove_temp_dir();
  TEST_DONE("test_zonefs_lease");
  return 0;
}
