/* The WAL reserve's thread (wal_reserve.c says what the reserve is): it asks the placement policy
 * for empty zones to keep (zone_alloc.c's reserve_wal_zone) and finishes the zones WALs hand over;
 * its settings and its start and stop. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zonefs_internal.h"

/* Zones kept: the setting, at most the active limit less two (a token for the WAL's own zone and
 * one for every other writer). A fill also leaves the writers as many empty zones beyond the
 * reserves as this target (reserve_wal_zone): on a nearly full device it stops refilling first. */
static uint32_t reserve_target(const zfs *fs) {
  uint32_t n = fs->walr_target;
  if (fs->active_limit) {
    uint32_t cap = fs->active_limit > 2 ? fs->active_limit - 2 : 0;
    if (n > cap) n = cap;
  }
  return n;
}

void wal_hand_over(zfs *fs, fobj *f) {
  uint32_t z = (uint32_t)f->zone;
  /* The owner's own claim ended with its last write (end_write, leave_zone), and nobody else
   * claims an owned zone: the claim holds, and keeps writers, GC and resets off until the
   * finish. Without the thread (stopping), the zone goes back as release_zone gives it. */
  if (!fs->walr_running || fs->walr_stop || !fs->walr_finish || !zone_claim(&fs->zones[z])) {
    release_zone(fs, f);
    return;
  }
  fs->zones[z].owner = NULL;
  f->zone = -1;
  fs->walr_finish[fs->walr_n_finish++] = z;
  wake_reserver(fs);
}

/* Finishes the oldest zone a WAL left: the device command with no lock held (the zone stays
 * claimed meanwhile, so the file system counts it active until its state is updated), then the
 * zone is unclaimed and reset if its data was deleted meanwhile. Called and returns with mu held. */
static void finish_one(zfs *fs) {
  uint32_t z = fs->walr_finish[0];
  memmove(fs->walr_finish, fs->walr_finish + 1, --fs->walr_n_finish * sizeof *fs->walr_finish);
  zone_state *s = &fs->zones[z];
  int finish = s->live_phys > 0 && s->wp > s->start && s->wp < zone_end(fs, z);
  pthread_mutex_unlock(&fs->mu);
  int rc = finish ? zkv_dev_zone_mgmt(fs->dev, z, ZKV_ZONE_FINISH) : -1;
  after_unlock work; /* a reset of a zone whose WAL was deleted meanwhile: after the lock */
  lock_fs(fs, &work);
  if (rc == 0) {
    s->wp = zone_end(fs, z);
    fs->st.wal_zone_finishes++;
    fs->st.zone_finishes++;
  }
  zone_unclaim(s);
  reset_if_unused(fs, z);
  zones_changed(fs);
  unlock_fs(fs, &work); /* a failed reset leaves the zone for GC, as everywhere */
  pthread_mutex_lock(&fs->mu);
}

/* Asks the policy for one more zone to keep (reserve_wal_zone), in a lock_fs scope so that its
 * labels record is written after the lock. Called and returns with mu held; returns whether a zone
 * was reserved. */
static int fill_one(zfs *fs) {
  pthread_mutex_unlock(&fs->mu);
  after_unlock work;
  lock_fs(fs, &work);
  int got = 0;
  uint32_t z = 0;
  if (!fs->walr_stop && fs->walr_n < reserve_target(fs)) {
    zfs_alloc_request req = {.file_id = fs->walr_file_id,
                             .file_name = "",
                             .lifetime = fs->walr_lifetime,
                             .for_wal_reserve = 1,
                             .expected_size = fs->g.zone_cap};
    if (reserve_wal_zone(fs, &req, reserve_target(fs), &z) == 0) {
      fs->zones[z].wal_reserved = 1;
      take_zone_class(fs, z, ZKV_CLASS_WAL);
      fs->walr_zones[fs->walr_n++] = z;
      got = 1;
    } else {
      fs->st.wal_reserve_declined++;
    }
  }
  /* a zone above a lowered target goes back */
  while (fs->walr_n > reserve_target(fs)) wal_reserve_give_back(fs);
  unlock_fs(fs, &work);
  pthread_mutex_lock(&fs->mu);
  return got;
}

static void wait_ms(zfs *fs, long ms) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += ms * 1000000L;
  while (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
  pthread_cond_timedwait(&fs->walr_wake, &fs->mu, &until);
}

/* Finishes queued zones first (each holds an active token), then fills the reserve. A fill that
 * found nothing waits 100 ms (or a take, a hand-over, a new setting) before it asks again: a
 * policy call builds a view of every zone and file, and zones change at every write. */
static void *reserver(void *arg) {
  zfs *fs = arg;
  pthread_mutex_lock(&fs->mu);
  for (;;) {
    if (fs->walr_n_finish) {
      finish_one(fs);
      continue;
    }
    if (fs->walr_stop) break;
    if (fs->walr_n < reserve_target(fs) && fill_one(fs)) continue;
    if (fs->walr_n > reserve_target(fs)) fill_one(fs); /* gives the surplus back */
    if (fs->walr_stop || fs->walr_n_finish) continue;
    wait_ms(fs, 100);
  }
  /* unmounting: the reserved zones are empty on the device, nothing to undo */
  while (fs->walr_n) wal_reserve_clear(fs, fs->walr_zones[--fs->walr_n]);
  pthread_mutex_unlock(&fs->mu);
  return NULL;
}

int zfs_set_wal_reserve(zfs *fs, uint32_t zones, uint64_t switch_room) {
  if (zones > ZFS_WAL_RESERVE_MAX || switch_room > fs->g.zone_cap) return -EINVAL;
  pthread_mutex_lock(&fs->mu);
  if (!fs->walr_finish && !(fs->walr_finish = calloc(fs->g.nr_zones, sizeof *fs->walr_finish))) {
    pthread_mutex_unlock(&fs->mu);
    return -ENOMEM;
  }
  fs->walr_target = zones;
  /* Until a WAL takes a zone, requests carry RocksDB's hint for WAL files (Env::WLTH_SHORT); then
   * the last WAL's id and hint. */
  if (!fs->walr_lifetime) fs->walr_lifetime = 2;
  atomic_store(&fs->walr_switch_room, switch_room ? round_up(switch_room, fs->g.lba_size) : 0);
  atomic_store(&fs->walr_on, zones > 0);
  wake_reserver(fs);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

int start_wal_reserve(zfs *fs) {
  pthread_mutex_lock(&fs->mu);
  int rc = 0;
  if (!fs->walr_running && !fs->walr_stop) {
    if (!fs->walr_finish && !(fs->walr_finish = calloc(fs->g.nr_zones, sizeof *fs->walr_finish)))
      rc = -ENOMEM;
    else
      rc = -pthread_create(&fs->walr_thread, NULL, reserver, fs);
    fs->walr_running = rc == 0;
  }
  pthread_mutex_unlock(&fs->mu);
  return rc;
}

void stop_wal_reserve(zfs *fs) {
  if (!fs->walr_running) return;
  pthread_mutex_lock(&fs->mu);
  fs->walr_stop = 1;
  atomic_store(&fs->walr_on, 0);
  wake_reserver(fs);
  pthread_mutex_unlock(&fs->mu);
  pthread_join(fs->walr_thread, NULL);
  pthread_mutex_lock(&fs->mu);
  fs->walr_running = 0;
  pthread_mutex_unlock(&fs->mu);
}
