/* The WAL reserve (WALTZ's +R, docs/wal.md "Reserved WAL zones"): a background thread keeps empty
 * zones reserved for WAL files, asked of the placement policy off the put path, and finishes the
 * zones WALs leave; a WAL whose zone runs low takes a reserved zone under fs->mu with no policy
 * call, no device command and no GC (take_zone, claim_writer_zone, zwal.c's append_zone).
 *
 * Why a zone flag and not a claim: a claim (zone_state.busy) means "a write ends soon", and a
 * writer waiting for a zone waits on it; a reserved zone may stay reserved for minutes. Reserved
 * zones are held (zone_held): no writer, GC or reset takes them, the policies see them as open and
 * active (their tokens spent), and a writer that finds no zone gets one back (wal_reserve_give_back)
 * before it waits, steals or collects. They are never written while reserved, so they persist
 * nothing: after a crash they are plain empty zones, and a mount reserves anew.
 *
 * Here the reserve itself, as writers and the allocator use it under fs->mu; its thread
 * (filling it, finishing the zones WALs leave) and its settings are wal_reserve_thread.c, above
 * the allocator it asks. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zonefs_internal.h"

uint64_t wal_switch_room(const zfs *fs, const fobj *f) {
  if (!is_sparse(f) || !atomic_load(&fs->walr_on)) return 0;
  uint64_t room = atomic_load(&fs->walr_switch_room);
  if (room) return room;
  /* 1% of the capacity (WALTZ's "say, less than 1% of the zone space"; its artifact's 1 MiB on 96 MB
   * zones), at least a chunk's header and a block. The issue asked for at least one maximal chunk:
   * with a 1 MiB WAL buffer that leaves a third of a pm1731a 3 MiB zone unwritten, so a write-out
   * larger than the room left is split at the zone's end instead, its rest going to the reserved
   * zone just the same (no policy call either way). */
  uint64_t block = fs->g.lba_size;
  room = round_up(fs->g.zone_cap / 100, block);
  uint64_t least = round_up(ZFS_CHUNK_HEADER + block, block);
  return room > least ? room : least;
}

void wake_reserver(zfs *fs) { pthread_cond_signal(&fs->walr_wake); }

int wal_reserve_take(zfs *fs, fobj *f, uint32_t *out) {
  if (!is_sparse(f) || fs->walr_n == 0) return -ENOENT;
  uint32_t z = fs->walr_zones[0];
  memmove(fs->walr_zones, fs->walr_zones + 1, --fs->walr_n * sizeof *fs->walr_zones);
  zone_state *s = &fs->zones[z];
  s->wal_reserved = 0;
  if (!s->labelled) s->lifetime = f->m.lifetime;
  s->owner = f;
  f->zone = (int32_t)z;
  take_zone_class(fs, z, class_of(f));
  fs->walr_file_id = f->m.id;
  fs->walr_lifetime = f->m.lifetime;
  fs->st.wal_zone_switches++;
  wake_reserver(fs);
  *out = z;
  return 0;
}

void wal_reserve_clear(zfs *fs, uint32_t z) {
  zone_state *s = &fs->zones[z];
  s->wal_reserved = 0;
  s->tag = -1;
  s->labelled = 0; /* a labels record may stay in the log: docs/wal.md, "Reserved WAL zones" */
  s->lifetime = 0;
  s->io_class = ZKV_CLASS_NONE;
}

int wal_reserve_give_back(zfs *fs) {
  if (fs->walr_n == 0) return 0;
  uint32_t z = fs->walr_zones[--fs->walr_n]; /* the newest: the oldest is the next WAL's */
  wal_reserve_clear(fs, z);
  fs->st.wal_reserve_returns++;
  zones_changed(fs);
  return 1;
}
