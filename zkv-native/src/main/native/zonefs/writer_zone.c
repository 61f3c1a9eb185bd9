/* A writer's zone: the zone its next device write or append goes to, taken from the allocator and
 * claimed for the write (garbage collected when no zone has room), and the extent each write adds
 * to the file. Below both ways of writing: the FILE mode's write-outs (file_io.c) and ZWAL's
 * appends (zwal.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "zonefs_internal.h"

int add_extent(zfs *fs, fobj *f, uint64_t at, uint64_t logical) {
  zfs_file_meta *m = &f->m;
  if (m->n_extents) {
    zfs_extent *last = &m->extents[m->n_extents - 1];
    /* Contiguous on the device is not enough: with zone capacity equal to zone size the next
     * zone starts where this one ends, and an extent must never cross a zone boundary. */
    if (last->start + last->len == at && last->len % fs->g.lba_size == 0 &&
        zone_of(fs, last->start) == zone_of(fs, at)) {
      last->len += logical;
      m->size += logical;
      file_zone_add(f, zone_of(fs, at), (int64_t)logical);
      index_extent_added(f, 0, logical);
      return 0;
    }
  }
  zfs_extent *n = realloc(m->extents, (m->n_extents + 1) * sizeof *n);
  if (!n) return -ENOMEM;
  m->extents = n;
  m->extents[m->n_extents++] = (zfs_extent){at, logical};
  m->size += logical;
  file_zone_add(f, zone_of(fs, at), (int64_t)logical);
  index_extent_added(f, 1, logical);
  return 0;
}

/* Takes the zone for the writer's next device write and claims it (a write in flight): the zone it
 * owns (given back first if it has less than `min_room` left), or a new one (a sparse file first records where its
 * chunks start there, persist_active). When no zone has room, or the policy says so (NeedGc), collects garbage and
 * tries again; a NeedGc that finds nothing to collect leaves the choice to the safety rule (counted as overriding the
 * policy: never NoSpace while a zone has room). A data writer's GC needs a victim at least 1/8
 * garbage: on a nearly full device, copying a whole zone to win a few blocks, which the writer then
 * fills, would repeat for every few blocks written (a copy spiral of thousands of bytes per byte
 * written); NoSpace is the answer then. RocksDB's metadata files (the MANIFEST edit that deletes
 * files), the flush that replays a WAL at open (without it a stopped database cannot reopen; its
 * reserve tier counts garbage thinner than 1/8 a zone as room) and zfs_reclaim (resume) take any
 * garbage: their writes are bounded and are what frees space. Should GC find nothing for them, they
 * may start the empty zone kept for GC: it serves nobody while nothing is collectable, and the
 * flushes' tier of the space reserve can leave that zone the only room (seen: a full device's
 * `deleteFilesInRange` failing on its MANIFEST edit). Returns 0 with the zone and where the
 * write goes; `want`: the bytes of this write-out still to go (the policy's expected size). Used by
 * the FILE mode's writes and ZWAL's appends (zwal.c). */
int claim_writer_zone(zfs *fs, fobj *f, uint64_t want, uint64_t min_room, uint32_t *z, uint64_t *at) {
  int safety = TAKE_BY_POLICY;
  /* a WAL's zone takes are timed from here (zfs_stats.wal_zone_wait_max_ns) */
  struct timespec t0 = {0};
  if (is_sparse(f)) clock_gettime(CLOCK_MONOTONIC, &t0);
  uint64_t switch_room = wal_switch_room(fs, f);
  for (;;) {
    after_unlock work; /* a new zone's records (its labels, a WAL's ACTIVE record): after the lock */
    lock_fs(fs, &work);
    if (f->zone >= 0) {
      uint64_t room = zone_end(fs, (uint32_t)f->zone) - fs->zones[f->zone].wp;
      /* WALTZ's proactive switch: below the switch room a WAL leaves its zone for a reserved one
       * (finished in the background); with none reserved it goes on to the zone's end */
      if (room >= min_room && room < switch_room && fs->walr_n && within_space_reserve(fs, FOR_WAL))
        wal_hand_over(fs, f);
      else if (room < min_room)
        release_zone(fs, f);
    }
    int had_zone = f->zone >= 0, from_reserve = 0;
    int rc = take_zone(fs, f, safety, want, z, &from_reserve);
    if (!rc && is_sparse(f) && !had_zone && !from_reserve) {
      struct timespec t1;
      clock_gettime(CLOCK_MONOTONIC, &t1);
      uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
      fs->st.wal_zone_waits++;
      if (ns > fs->st.wal_zone_wait_max_ns) fs->st.wal_zone_wait_max_ns = ns;
    }
    if (!rc && is_sparse(f) && !had_zone && (rc = persist_active(fs, f, fs->zones[*z].wp)) != 0) release_zone(fs, f);
    if (!rc && !zone_claim(&fs->zones[*z])) { /* a write in flight: nobody finishes, collects or takes the zone */
      release_zone(fs, f);                    /* claimed by someone else (never for an owner's zone): ask again */
      rc = -EAGAIN;
    }
    if (!rc) {
      *at = fs->zones[*z].wp;
      f->last_write = ++fs->write_clock;
    }
    int purpose = purpose_of(f, 0); /* names need the lock */
    int written = unlock_fs(fs, &work);
    if (!rc && written) { /* the zone's record failed: no data goes there */
      pthread_mutex_lock(&fs->mu);
      zone_unclaim(&fs->zones[*z]);
      release_zone(fs, f);
      zones_changed(fs);
      pthread_mutex_unlock(&fs->mu);
      return written;
    }
    if (rc == -EAGAIN) continue;
    if (rc == ALLOC_RESERVED) return -ENOSPC;
    if (rc != -ENOSPC && rc != ALLOC_NEED_GC) return rc;
    int frees_space = purpose == FOR_METADATA || purpose == FOR_RECOVERY;
    int collected =
        collect_garbage(fs, frees_space ? UINT64_MAX : fs->g.zone_cap - fs->g.zone_cap / 8, class_of(f), 1) == 0;
    if (collected) continue;
    if (rc == ALLOC_NEED_GC && safety == TAKE_BY_POLICY && !no_space_is_final(fs, purpose))
      safety = TAKE_BY_SAFETY_RULE; /* once: the safety rule decides */
    else if (frees_space && safety != TAKE_GC_ZONE_TOO)
      safety = TAKE_GC_ZONE_TOO; /* once: GC's empty zone serves nobody while GC finds nothing */
    else
      return -ENOSPC;
  }
}
