/* Leased zones (docs/zone-fs.md, "Leased zones"): a zone the file system gives an owner for its own
 * zone appends, outside any file: zkv's WALTZ log (docs/wal.md, "WALTZ mode") keeps its records
 * there, appended by each writer thread with no file system lock and no metadata write.
 *
 * A lease is recorded in the metadata log (ZONE_LEASE_KEYS, with its owner, a 64-bit id the owner
 * chooses, and its key, 128 random bits drawn here) before the owner may write the zone, and again,
 * owner 0, when it is returned. The key is the owner's secret: it is in the file system's log and
 * never in the zone, so data the owner appends on others' behalf (WALTZ's records carry users'
 * values) cannot know it, and the owner signs its own records with it (docs/formats/zkv-wal.md). While
 * leased a zone is held (zone_held): no writer's policy, no GC and no reset takes it, a mount keeps
 * its data although no file points there, and it counts against the active limit as a held zone
 * does. The zone is chosen as the WAL reserve's zones are (reserve_wal_zone: the placement policy's
 * answer for an empty WAL zone, off any put path), so a policy that keeps logs apart keeps these
 * too. Returning resets it (after the lock, as every reset). The file system never looks inside:
 * the owner's records carry their own checksums, and the owner reads the zone to its write pointer
 * (zfs_lease_info) to recover. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "zonefs_internal.h"

static int leased_to(zfs *fs, uint64_t owner, uint32_t zone) {
  return owner && zone >= fs->sb.meta_zones && zone < fs->g.nr_zones &&
         atomic_load_explicit(&fs->zones[zone].lease_owner, memory_order_acquire) == owner;
}

/* 128 random bits, never all zero (zeros mean "no key": a version 7 lease). */
static int draw_key(uint64_t key[2]) {
  do {
    uint8_t *p = (uint8_t *)key;
    for (size_t got = 0; got < 16;) {
      ssize_t n = getrandom(p + got, 16 - got, 0);
      if (n < 0 && errno != EINTR) return -errno;
      if (n > 0) got += (size_t)n;
    }
  } while (key[0] == 0 && key[1] == 0);
  return 0;
}

/* One attempt at a lease: an empty zone as the WAL reserve takes one, its record written after the
 * lock (durable before the owner writes). -ENOSPC when no zone is free for it now. */
static int lease_once(zfs *fs, uint64_t owner, const uint64_t key[2], uint32_t *zone) {
  after_unlock work;
  lock_fs(fs, &work);
  zfs_alloc_request req = {.file_id = 0, /* no file: asked as the WAL reserve asks (purpose WAL_RESERVE) */
                           .file_name = "",
                           .lifetime = 2, /* RocksDB's hint for WAL files (Env::WLTH_SHORT) */
                           .for_wal_reserve = 1,
                           .expected_size = fs->g.zone_cap};
  uint32_t z = 0;
  int rc = reserve_wal_zone(fs, &req, 0, &z);
  if (rc == 0) {
    atomic_store_explicit(&fs->zones[z].lease_owner, owner, memory_order_release);
    fs->zones[z].lease_key[0] = key[0];
    fs->zones[z].lease_key[1] = key[1];
    take_zone_class(fs, z, ZKV_CLASS_WAL);
    rc = persist_leases_of(fs, &z, 1);
    if (rc) { /* never written: nothing to undo */
      atomic_store(&fs->zones[z].lease_owner, 0);
      memset(fs->zones[z].lease_key, 0, sizeof fs->zones[z].lease_key);
    }
  }
  int written = unlock_fs(fs, &work);
  if (rc) return rc;
  if (written) return written;
  *zone = z;
  return 0;
}

/* Waits of 10 ms a lease makes for a writer to release an active token: 10 s at most. */
#define LEASE_TOKEN_WAITS 1000

/* What a lease that found no zone does next, as a data writer would (claim_writer_zone, take_zone):
 * with empty zones beyond the reserves it lacked an active token. An idle partly written zone holds
 * one: it is finished (ZenFS's FinishCheapestIOZone; the policy's answer finishes one, and GC's zone
 * may hold a token beyond the limit, so one was not always enough), else a write in flight gives one
 * back when it ends: the lease waits 10 ms for it (bounded). Without room it collects garbage.
 * Returns whether to ask again. */
static int make_room_for_lease(zfs *fs, int first, int *waits) {
  pthread_mutex_lock(&fs->mu);
  if (lease_finds_empty_zone(fs)) {
    if (finish_cheapest_idle_zone(fs)) {
      pthread_mutex_unlock(&fs->mu);
      return 1;
    }
    int wait = *waits < LEASE_TOKEN_WAITS && any_write_in_flight(fs);
    if (wait) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += 10 * 1000 * 1000;
      if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
      fs->st.lease_waits++;
      (*waits)++;
      pthread_cond_timedwait(&fs->zone_released, &fs->mu, &until);
    }
    pthread_mutex_unlock(&fs->mu);
    return wait;
  }
  fs->st.lease_collections++;
  pthread_mutex_unlock(&fs->mu);
  return collect_garbage(fs, fs->g.zone_cap - fs->g.zone_cap / 8, ZKV_CLASS_WAL, first) == 0;
}

/* As a data writer that finds no room does, a lease that finds no empty zone collects garbage and
 * asks again: never NoSpace while a zone of garbage can be reclaimed. The victim must be at least
 * 1/8 garbage, the data writers' bound (a zone copied to win a few blocks would be a copy spiral);
 * each collection empties a zone or fails, so the loop ends. One that lacks an active token waits
 * for a writer to release one (make_room_for_lease). A lease that leaves no empty zone for the next
 * wakes background GC (gc_wake_for_room). */
int zfs_lease_zone(zfs *fs, uint64_t owner, uint32_t *zone) {
  if (!owner) return -EINVAL;
  if (fs->readonly) return -EROFS;
  uint64_t key[2];
  int rc = draw_key(key);
  if (rc) return rc;
  int waits = 0, first = 1;
  while ((rc = lease_once(fs, owner, key, zone)) == -ENOSPC && make_room_for_lease(fs, first, &waits)) first = 0;
  if (rc == 0) gc_wake_for_room(fs);
  return rc;
}

int zfs_lease_renew(zfs *fs, uint64_t owner, uint32_t zone) {
  if (fs->readonly) return -EROFS;
  if (!leased_to(fs, owner, zone)) return -ENOENT;
  zkv_zone r; /* the owner does not append while it renews: the device's write pointer is the zone's */
  int rc = zkv_dev_report(fs->dev, zone, &r, 1);
  if (rc != 1) return rc < 0 ? rc : -EIO;
  if (r.wp != r.start) return -ENOTEMPTY;
  uint64_t key[2];
  if ((rc = draw_key(key))) return rc;
  after_unlock work;
  lock_fs(fs, &work);
  zone_state *s = &fs->zones[zone];
  uint64_t old[2] = {s->lease_key[0], s->lease_key[1]};
  if (!leased_to(fs, owner, zone)) {
    rc = -ENOENT;
  } else {
    s->lease_key[0] = key[0], s->lease_key[1] = key[1];
    if ((rc = persist_leases_of(fs, &zone, 1))) s->lease_key[0] = old[0], s->lease_key[1] = old[1];
  }
  int written = unlock_fs(fs, &work); /* durable before the owner appends under the new key */
  return rc ? rc : written;
}

/* Returns the zones in `zones` (all leased to owner) with one ZONE_LEASES record, so a crash leaves
 * all of them leased or none: an owner that replays its zones in order needs a set it gives back
 * to be closed under "older than" (zkv's WALTZ log: docs/wal.md, "Recovery"). */
static int return_zones(zfs *fs, uint64_t owner, const uint32_t *zones, uint32_t n) {
  /* The owner no longer appends: the device's write pointer is the zone's (appends do not keep
   * the file system's copy current). */
  zkv_zone *r = calloc(n ? n : 1, sizeof *r);
  if (!r) return -ENOMEM;
  for (uint32_t i = 0; i < n; i++) {
    int rc = zkv_dev_report(fs->dev, zones[i], &r[i], 1);
    if (rc != 1) {
      free(r);
      return rc < 0 ? rc : -EIO;
    }
  }
  after_unlock work;
  lock_fs(fs, &work);
  int rc = 0;
  for (uint32_t i = 0; i < n && !rc; i++)
    if (!leased_to(fs, owner, zones[i])) rc = -ENOENT;
  if (!rc) {
    for (uint32_t i = 0; i < n; i++) atomic_store(&fs->zones[zones[i]].lease_owner, 0);
    rc = persist_leases_of(fs, zones, n); /* owner 0: returned */
    if (rc) {                             /* nothing returned: the leases stand, as the log may still say */
      for (uint32_t i = 0; i < n; i++) atomic_store(&fs->zones[zones[i]].lease_owner, owner);
    } else {
      for (uint32_t i = 0; i < n; i++) {
        zone_state *s = &fs->zones[zones[i]];
        memset(s->lease_key, 0, sizeof s->lease_key);
        s->wp = r[i].wp;
        wal_reserve_clear(fs, zones[i]); /* labels, class: a plain zone again */
        reset_if_unused(fs, zones[i]);   /* written: reset after the record (none if empty) */
      }
    }
    zones_changed(fs);
  }
  int written = unlock_fs(fs, &work);
  free(r);
  return rc ? rc : written;
}

int zfs_lease_return(zfs *fs, uint64_t owner, uint32_t zone) {
  if (fs->readonly) return -EROFS;
  if (!leased_to(fs, owner, zone)) return -ENOENT;
  return return_zones(fs, owner, &zone, 1);
}

int zfs_lease_return_set(zfs *fs, uint64_t owner, const uint32_t *zones, uint32_t n) {
  if (fs->readonly) return -EROFS;
  if (!owner || (n && !zones)) return -EINVAL;
  return n ? return_zones(fs, owner, zones, n) : 0;
}

int zfs_lease_return_all(zfs *fs, uint64_t owner) {
  if (fs->readonly) return -EROFS;
  if (!owner) return -EINVAL;
  uint32_t *zones = malloc(fs->g.nr_zones * sizeof *zones);
  if (!zones) return -ENOMEM;
  int n = zfs_leased_zones(fs, owner, zones, fs->g.nr_zones);
  int rc = n > 0 ? return_zones(fs, owner, zones, (uint32_t)n) : 0;
  free(zones);
  return rc;
}

int zfs_lease_return_keep_empty(zfs *fs, uint64_t owner, uint32_t keep) {
  if (fs->readonly) return -EROFS;
  if (!owner) return -EINVAL;
  uint32_t *zones = malloc(fs->g.nr_zones * sizeof *zones);
  if (!zones) return -ENOMEM;
  int n = zfs_leased_zones(fs, owner, zones, fs->g.nr_zones);
  uint32_t give = 0, kept = 0;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    zkv_zone r; /* the owner no longer appends: the device's write pointer is the zone's */
    int got = zkv_dev_report(fs->dev, zones[i], &r, 1);
    if (got != 1) {
      rc = got < 0 ? got : -EIO;
    } else if (r.wp == r.start && kept < keep) {
      kept++; /* never written: nothing to replay, kept for the owner's next start */
    } else {
      zones[give++] = zones[i];
    }
  }
  if (!rc && give > 0) rc = return_zones(fs, owner, zones, give);
  free(zones);
  return rc ? rc : (int)kept;
}

int zfs_leased_zones(zfs *fs, uint64_t owner, uint32_t *zones, uint32_t cap) {
  if (!owner) return -EINVAL;
  uint32_t n = 0;
  pthread_mutex_lock(&fs->mu);
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (leased_to(fs, owner, z)) {
      if (n < cap) zones[n] = z;
      n++;
    }
  pthread_mutex_unlock(&fs->mu);
  return (int)n;
}

int64_t zfs_lease_append(zfs *fs, uint64_t owner, uint32_t zone, const void *buf, size_t len, int fua) {
  if (!leased_to(fs, owner, zone)) return -ENOENT;
  if (len == 0 || len % fs->g.lba_size) return -EINVAL;
  int64_t at = zkv_dev_append(fs->dev, zone, buf, len, (fua ? ZKV_IO_FUA : 0) | ZKV_IO_CLASS(ZKV_CLASS_WAL));
  return at < 0 ? at : at - (int64_t)fs->zones[zone].start;
}

int zfs_lease_read(zfs *fs, uint64_t owner, uint32_t zone, uint64_t offset, void *buf, size_t len) {
  if (!leased_to(fs, owner, zone)) return -ENOENT;
  if (offset > fs->g.zone_cap || len > fs->g.zone_cap - offset) return -EINVAL;
  return zkv_dev_read(fs->dev, fs->zones[zone].start + offset, buf, len);
}

int zfs_lease_info(zfs *fs, uint64_t owner, uint32_t zone, zfs_lease_state *out) {
  if (!leased_to(fs, owner, zone)) return -ENOENT;
  zkv_zone r;
  int rc = zkv_dev_report(fs->dev, zone, &r, 1);
  if (rc < 0) return rc;
  if (rc != 1) return -EIO;
  *out = (zfs_lease_state){.written = r.wp - r.start, .capacity = fs->g.zone_cap};
  pthread_mutex_lock(&fs->mu);
  int still = leased_to(fs, owner, zone);
  if (still) memcpy(out->key, fs->zones[zone].lease_key, sizeof out->key);
  pthread_mutex_unlock(&fs->mu);
  return still ? 0 : -ENOENT;
}

int zfs_lease_finish(zfs *fs, uint64_t owner, uint32_t zone) {
  if (!leased_to(fs, owner, zone)) return -ENOENT;
  int rc = zkv_dev_zone_mgmt(fs->dev, zone, ZKV_ZONE_FINISH);
  if (rc) return rc;
  pthread_mutex_lock(&fs->mu);
  fs->zones[zone].wp = zone_end(fs, zone); /* no longer active */
  fs->st.zone_finishes++;
  zones_changed(fs);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}
