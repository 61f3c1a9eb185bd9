/* Garbage collection: moving live extents out of a victim zone and resetting it, the victim
 * call-out, the background worker, and reclaiming space on request (resume after NoSpace). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

/* Victims retried on a fresh view before the collection is declined (counted, each). */
#define MAX_STALE_VICTIMS 8

/* Copies one extent into GC's target zone (*gc_zone, held busy for the whole collection; a new
 * one from the policy, for data of class cls, when it is full); the copies go to *out (caller frees). Called without
 * fs->mu: it takes the lock only to allocate and to count, never across device I/O, so writers
 * and readers go on while GC copies. */
static int copy_extent(zfs *fs, zfs_extent e, fobj *f, int cls, int64_t *gc_zone, zfs_extent **out, uint32_t *n_out) {
  uint32_t block = fs->g.lba_size;
  uint64_t padded = round_up(e.len, block), moved = 0;
  /* A sparse file's extent starts after its chunk header: read the blocks it spans and move the
   * data to the front; the copy is plain data, block aligned, recorded by GC's file record. */
  uint64_t from = e.start / block * block, span = extent_blocks(fs, e);
  uint8_t *buf = malloc(span > padded ? span : padded);
  if (!buf) return -ENOMEM;
  int rc = zkv_dev_read(fs->dev, from, buf, span);
  if (!rc && from != e.start) {
    memmove(buf, buf + (e.start - from), e.len);
    memset(buf + e.len, 0, padded - e.len);
  }
  *out = NULL;
  *n_out = 0;
  while (!rc && moved < padded) {
    pthread_mutex_lock(&fs->mu);
    /* GC keeps writing into its zone while it has room (as a writer keeps its zone); asking for a
     * zone per chunk opened a new zone for every chunk, up to the active limit. */
    if (*gc_zone >= 0 && zone_end(fs, (uint32_t)*gc_zone) - fs->zones[*gc_zone].wp < block) {
      zone_unclaim(&fs->zones[*gc_zone]);
      *gc_zone = -1;
    }
    if (*gc_zone < 0) {
      uint32_t z;
      zfs_alloc_request req = {.file_id = f->m.id,
                               .file_name = f->m.n_names ? f->m.names[0] : "",
                               .lifetime = f->m.lifetime,
                               .for_gc = 1,
                               .expected_size = padded - moved};
      rc = allocate_by_policy(fs, &req, FOR_GC, cls, &z);
      if (rc == ALLOC_WAIT) rc = -ENOSPC;                  /* GC writes on its own token: a wait means no zone */
      if (!rc && !zone_claim(&fs->zones[z])) rc = -EAGAIN; /* checked unclaimed: never */
      if (!rc) {
        take_zone_class(fs, z, cls);
        *gc_zone = z;
      }
    }
    uint32_t z = rc ? 0 : (uint32_t)*gc_zone;
    uint64_t at = rc ? 0 : fs->zones[z].wp, room = rc ? 0 : zone_end(fs, z) - at;
    pthread_mutex_unlock(&fs->mu);
    if (rc) break;
    uint64_t chunk = padded - moved < room ? padded - moved : room;
    if (chunk > fs->g.zasl) chunk = fs->g.zasl / block * block;
    if ((rc = zkv_dev_write(fs->dev, at, buf + moved, chunk, io_class_in(fs, z, f)))) break;
    uint64_t real = moved + chunk <= e.len ? chunk : e.len - moved;
    pthread_mutex_lock(&fs->mu);
    fs->zones[z].wp = at + chunk;
    fs->zones[z].live += real;
    fs->zones[z].live_phys += chunk;
    fs->st.gc_bytes += chunk;
    f->written_gen = ++fs->data_gen; /* its record after the swap points at the copy */
    pthread_mutex_unlock(&fs->mu);
    zfs_extent *n = realloc(*out, (*n_out + 1) * sizeof *n);
    if (!n) {
      rc = -ENOMEM;
      break;
    }
    *out = n;
    (*out)[(*n_out)++] = (zfs_extent){at, real};
    moved += chunk;
  }
  free(buf);
  return rc;
}

/* A victim of this collection: eligible, and giving room to the writer it runs for (victim_helps;
 * spare: gc_spares_wal_share). */
static int victim_for(zfs *fs, uint32_t z, uint64_t max_live, int spare) {
  return victim_eligible(fs, z, max_live) && victim_helps(fs, z, spare);
}

/* The safety rule's victim, counted under `reason`: the lowest-numbered eligible zone that helps
 * the writer (spare: gc_spares_wal_share), or -1. It does not weigh garbage: which zone is worth
 * collecting is the victim policy's choice. */
static int64_t safety_victim(zfs *fs, uint64_t max_live, int spare, int reason) {
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (victim_for(fs, z, max_live, spare)) {
      count_override(fs, reason);
      return z;
    }
  return -1;
}

typedef struct victim_bound {
  uint64_t max_live;
  int spare;
} victim_bound;

static int victim_in_bound(zfs *fs, uint32_t z, void *arg) {
  const victim_bound *b = arg;
  return victim_for(fs, z, b->max_live, b->spare);
}

/* Asks the external policy, without the file system's lock, on a view whose victim_ok marks the
 * zones this collection may take. A full data zone nobody wrote in the view that is not marked
 * (over the bound, or all live) declines the collection (-ENOSPC), as does the policy's "none"; a
 * marked zone that no longer qualifies (its data deleted meanwhile, and it was reset) is asked
 * again on a fresh view. The safety rule chooses instead (counted by reason) without a policy,
 * when it fails, when it names a zone whose room the writer cannot use, or any other zone its
 * view forbids: the file system never resets a zone on a policy's mistake. Called with fs->mu
 * held; releases it during the call. */
static int64_t policy_victim(zfs *fs, uint64_t max_live, int spare, int *rc) {
  if (!fs->victim_chooser) return safety_victim(fs, max_live, spare, ZFS_OVERRIDE_VICTIM_NO_POLICY);
  victim_bound bound = {max_live, spare};
  for (int attempt = 0;; attempt++) {
    decision_view view;
    if ((*rc = view_take(fs, &view, victim_in_bound, &bound))) return -1;
    uint32_t victim = 0;
    *rc = call_victim_chooser(fs, &view, &victim); /* fs->mu released meanwhile */
    const zfs_zone_info *v = !*rc && victim < fs->g.nr_zones ? &view.zones[victim] : NULL;
    int full_and_idle = v && !v->meta && !v->busy && v->wp >= v->start + v->capacity;
    int marked = v && v->victim_ok;
    view_free(&view);
    if (*rc == -ENOSPC) return -1; /* the policy collects nothing now */
    if (*rc) {                     /* -ENOENT: removed meanwhile (JVM exit); else it failed */
      int reason = *rc == -ENOENT ? ZFS_OVERRIDE_VICTIM_NO_POLICY : ZFS_OVERRIDE_VICTIM_FAILED;
      *rc = 0;
      return safety_victim(fs, max_live, spare, reason);
    }
    if (!marked) {
      /* A zone the writer cannot use the room of (a policy that does not look at victim_ok, such
       * as the Java greedy one, picks the least-copy zone, often a WAL zone): the safety rule
       * chooses among those it can, as allocation falls back on a choice of the wrong class. */
      if (full_and_idle && victim_eligible(fs, victim, max_live) && !victim_helps(fs, victim, spare))
        return safety_victim(fs, max_live, spare, ZFS_OVERRIDE_VICTIM_CLASS);
      if (full_and_idle) {
        *rc = -ENOSPC; /* all live or over this collection's bound: declined */
        return -1;
      }
      return safety_victim(fs, max_live, spare, ZFS_OVERRIDE_VICTIM_FAILED);
    }
    if (victim_for(fs, victim, max_live, spare)) return victim;
    fs->st.stale_decisions++;
    if (attempt == MAX_STALE_VICTIMS) {
      *rc = -ENOSPC;
      return -1;
    }
  }
}

/* One extent GC moves: the file (a reference keeps it while GC works), the extent's index and
 * value when GC chose the victim, and its copies. */
typedef struct gc_move {
  fobj *f;
  uint32_t k;
  zfs_extent old;
  zfs_extent *copies;
  uint32_t n_copies;
} gc_move;

/* Copies that are not swapped in (GC failed) are garbage. */
static void forget_copies(zfs *fs, const gc_move *m) {
  for (uint32_t i = 0; i < m->n_copies; i++) zone_drop_live(fs, m->copies[i]);
}

/* Reclaims one full zone whose live data is at most `max_live`, chosen by the victim policy
 * (policy_victim). Returns 0 when a zone became empty, -ENOSPC when no zone
 * qualifies. Called with gc_mu held (one collection at a time) and no other lock.
 *
 * Writers and readers go on while GC copies: the victim is held (nobody allocates, finishes or
 * collects it), its data stays valid until the swap, and files only ever append extents, so the
 * extents GC copies keep their index; a file deleted meanwhile keeps its object (a reference) and
 * gets its copies too. Only the swap excludes readers (readers_exclude: no read in flight may see the victim
 * reset) and the file system's lock. Order (docs/zone-fs.md, "Order of writes"):
 * copy every live extent, flush the copies, write the moved files' records, then reset the victim.
 * A power cut anywhere leaves either the old extents (records not yet written; the copies are
 * unreferenced garbage) or the new ones, durable before any record points at them. */
static int gc_one_zone(zfs *fs, uint64_t max_live, int for_class, int new_run) {
  int rc = 0;
  pthread_mutex_lock(&fs->mu);
  int spare = gc_spares_wal_share(fs, for_class); /* once per collection: one scan */
  int64_t victim = policy_victim(fs, max_live, spare, &rc);
  if (rc || victim < 0) {
    pthread_mutex_unlock(&fs->mu);
    return rc ? rc : -ENOSPC;
  }
  zone_state *v = &fs->zones[victim];
  if (!zone_claim(v)) { /* GC's from here: nobody allocates, finishes or resets it */
    pthread_mutex_unlock(&fs->mu);
    return -EAGAIN; /* checked unclaimed under the lock: never */
  }
  pthread_mutex_unlock(&fs->mu);
  /* The scan takes references (handles' counts are the namespace's): ns_mu before mu. */
  pthread_mutex_lock(&fs->ns_mu);
  pthread_mutex_lock(&fs->mu);
  int copied = v->live > 0;
  size_t n = 0, cap = 16;
  gc_move *moves = malloc(cap * sizeof *moves);
  fobj **touched = calloc(fs->n_files ? fs->n_files : 1, sizeof *touched); /* files whose record changes */
  size_t n_touched = 0;
  if (!moves || !touched) rc = -ENOMEM;
  for (size_t i = 0; !rc && i < fs->n_files; i++) {
    fobj *f = fs->files[i];
    int involved = 0;
    for (uint32_t k = 0; !rc && k < f->m.n_extents; k++) {
      if (zone_of(fs, f->m.extents[k].start) != (uint32_t)victim) continue;
      if (n == cap) {
        gc_move *grown = realloc(moves, (cap *= 2) * sizeof *moves);
        if (!grown) {
          rc = -ENOMEM;
          break;
        }
        moves = grown;
      }
      moves[n++] = (gc_move){.f = f, .k = k, .old = f->m.extents[k]};
      involved = 1;
    }
    /* A sparse file whose next chunks were to follow in the victim: after the reset no mount may
     * look for them there (its chunks there are among the moved extents). */
    if (f->m.active_extent_start != ZFS_NO_ACTIVE_EXTENT && zone_of(fs, f->m.active_extent_start) == (uint32_t)victim)
      involved = 1;
    if (involved && !rc) {
      f->refs++; /* a delete meanwhile keeps the object until GC lets go */
      touched[n_touched++] = f;
    }
  }
  pthread_mutex_unlock(&fs->mu);
  pthread_mutex_unlock(&fs->ns_mu);

  int64_t gc_zone = -1; /* the zone the copies go to, held by GC */
  /* The copies stay in the victim's class where zones serve one (a WAL's data in the WAL's share
   * while it has room: class_to_take). */
  int cls = v->io_class == ZKV_CLASS_NONE ? ZKV_CLASS_INTERNAL : v->io_class;
  for (size_t i = 0; !rc && i < n; i++)
    rc = copy_extent(fs, moves[i].old, moves[i].f, cls, &gc_zone, &moves[i].copies, &moves[i].n_copies);
  uint64_t gen = atomic_load(&fs->data_gen);
  if (!rc) rc = make_durable(fs, gen); /* the copies durable before the records (rule 1) */

  readers_exclude(fs);
  after_unlock work;
  lock_namespace(fs, &work); /* a file deleted meanwhile is dropped with GC's reference */
  /* Swap, last move first: replacing extent k by its copies shifts the file's later extents. */
  for (size_t i = n; i-- > 0;) {
    gc_move *m = &moves[i];
    fobj *f = m->f;
    /* A file deleted meanwhile is moved too: a handle may still read it (RocksDB reads deleted
     * SSTs), and its extents must never point into the victim once it is reset and reused (its
     * drop would then take live bytes from another file's zone). */
    int same =
        m->k < f->m.n_extents && f->m.extents[m->k].start == m->old.start && f->m.extents[m->k].len == m->old.len;
    zfs_extent *ext = !rc && same ? realloc(f->m.extents, (f->m.n_extents + m->n_copies - 1) * sizeof *ext) : NULL;
    if (!ext) {
      if (!rc && same) rc = -ENOMEM;
      forget_copies(fs, m);
      continue;
    }
    memmove(ext + m->k + m->n_copies, ext + m->k + 1, (f->m.n_extents - m->k - 1) * sizeof *ext);
    memcpy(ext + m->k, m->copies, m->n_copies * sizeof *ext);
    f->m.extents = ext;
    f->m.n_extents += m->n_copies - 1;
    file_zone_add(f, (uint32_t)victim, -(int64_t)m->old.len);
    for (uint32_t c = 0; c < m->n_copies; c++)
      file_zone_add(f, zone_of(fs, m->copies[c].start), (int64_t)m->copies[c].len);
  }
  for (size_t i = 0; i < n_touched; i++) index_extents(touched[i]); /* readers are still excluded */
  for (size_t i = 0; i < n_touched; i++) {
    fobj *f = touched[i];
    if (f->m.active_extent_start != ZFS_NO_ACTIVE_EXTENT && zone_of(fs, f->m.active_extent_start) == (uint32_t)victim)
      f->m.active_extent_start = ZFS_NO_ACTIVE_EXTENT;
    if (!rc) rc = persist_file(fs, f); /* written once fs->mu is released (after_unlock.c) */
  }
  /* The victim holds nothing live any more; it is reset after the records (unlock_fs), busy until
   * then. Readers go on at once: the swap is done, none reads the victim. */
  if (!rc) {
    v->live = v->live_phys = 0;
    /* counted as GC's (zone, run) with the reset itself */
    defer_reset(fs, (uint32_t)victim, (copied ? 0 : RESET_WITHOUT_COPY) | RESET_GC_ZONE | (new_run ? RESET_GC_RUN : 0),
                1);
  } else {
    zone_unclaim(v);
  }
  if (gc_zone >= 0) zone_unclaim(&fs->zones[gc_zone]);
  for (size_t i = 0; i < n_touched; i++)
    if (--touched[i]->refs == 0 && touched[i]->m.n_names == 0) drop_file(fs, touched[i]);
  zones_changed(fs); /* writers may wait for the zones GC held */
  readers_admit(fs);
  int after = unlock_fs(fs, &work);
  if (!rc) rc = after;
  for (size_t i = 0; i < n; i++) free(moves[i].copies);
  free(moves);
  free(touched);
  return rc;
}

/* Runs one collection on a zone holding at most `max_live` bytes of live blocks, for a writer of
 * class for_class (ZKV_CLASS_NONE: for free space in general); new_run: the first of a GC run
 * (zfs_stats.gc_runs counts the runs that emptied a zone). Called with no lock held; collections
 * run one at a time. */
int collect_garbage(zfs *fs, uint64_t max_live, int for_class, int new_run) {
  pthread_mutex_lock(&fs->gc_mu);
  int rc = gc_one_zone(fs, max_live, for_class, new_run);
  pthread_mutex_unlock(&fs->gc_mu);
  return rc;
}

/* This round's bound on a victim's live bytes, 0 for no collection: the installed trigger (a Java
 * policy) decides, called without the lock. Without one, no round collects; a failing trigger
 * skips the round (counted). GC on NoSpace runs either way. Called with mu held. */
static uint64_t gc_round_bound(zfs *fs) {
  uint64_t max_live = 0;
  int rc = call_gc_trigger(fs, &max_live); /* without fs->mu */
  if (rc && rc != -ENOENT) count_override(fs, ZFS_OVERRIDE_TRIGGER_FAILED);
  return rc ? 0 : max_live;
}

/* The file system's own reason for a round, where the trigger gave none: a lease found or left no
 * empty zone for the next (gc_wake_for_room), so the log's next zone would be collected on its own
 * path. Collects under the data writers' bound (a victim at least 1/8 garbage) until a lease would
 * find a zone; not with background GC off (no trigger installed). Called with mu held. */
static uint64_t room_round_bound(zfs *fs) {
  if (!fs->gc_for_room || !fs->gc_trigger) return 0;
  if (lease_finds_empty_zone(fs)) {
    fs->gc_for_room = 0;
    return 0;
  }
  fs->st.gc_rounds_for_room++;
  return fs->g.zone_cap - fs->g.zone_cap / 8;
}

void gc_wake_for_room(zfs *fs) {
  pthread_mutex_lock(&fs->mu);
  if (!lease_finds_empty_zone(fs)) {
    fs->gc_for_room = 1;
    pthread_cond_signal(&fs->gc_wake);
  }
  pthread_mutex_unlock(&fs->mu);
}

/* Background GC: a round every 100 ms; the trigger says whether to collect and which zones
 * qualify (gc_round_bound), or the leases' room does (room_round_bound). Rounds that empty a zone
 * one after another count as one run. (Rounds following at once after a collection starved a
 * reopen of a full device of its WAL's room: FullDeviceRecoveryTest.) */
static void *gc_worker(void *arg) {
  zfs *fs = arg;
  int collecting = 0; /* the last round emptied a zone: the same run */
  pthread_mutex_lock(&fs->mu);
  while (!fs->gc_stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&fs->gc_wake, &fs->mu, &until);
    if (fs->gc_stop) break;
    uint64_t bound = gc_round_bound(fs);
    int for_room = 0;
    if (!bound && (bound = room_round_bound(fs)) != 0) for_room = 1;
    if (!bound) {
      collecting = 0;
      continue;
    }
    pthread_mutex_unlock(&fs->mu);
    collecting = collect_garbage(fs, bound, ZKV_CLASS_NONE, !collecting) == 0;
    pthread_mutex_lock(&fs->mu);
    if (for_room && !collecting) fs->gc_for_room = 0; /* nothing to collect: until a lease asks again */
  }
  pthread_mutex_unlock(&fs->mu);
  return NULL;
}

uint64_t zfs_free_bytes(zfs *fs) {
  pthread_mutex_lock(&fs->mu);
  uint64_t n = free_bytes_for_data(fs), unoccupied = unoccupied_bytes(fs), reserve = space_reserve(fs, FOR_RECOVERY);
  pthread_mutex_unlock(&fs->mu);
  uint64_t beyond_reserve = unoccupied > reserve ? unoccupied - reserve : 0; /* the reopen's flush's tier */
  return n < beyond_reserve ? n : beyond_reserve;
}

uint64_t zfs_reclaim(zfs *fs, uint64_t want) {
  uint64_t free_bytes;
  int first = 1; /* one run */
  /* terminates: each round turns at least one block of garbage into free space */
  while ((free_bytes = zfs_free_bytes(fs)) < want && !fs->readonly &&
         collect_garbage(fs, UINT64_MAX, ZKV_CLASS_NONE, first) == 0)
    first = 0;
  return free_bytes;
}

int zfs_start_gc(zfs *fs) {
  if (fs->readonly) return -EROFS;
  pthread_mutex_lock(&fs->mu);
  int rc = 0;
  if (!fs->gc_running && !fs->gc_stop) {
    rc = -pthread_create(&fs->gc_thread, NULL, gc_worker, fs);
    fs->gc_running = rc == 0;
  }
  pthread_mutex_unlock(&fs->mu);
  return rc ? rc : start_wal_reserve(fs); /* its requests need the policies too */
}

void stop_gc(zfs *fs) {
  if (!fs->gc_running) return;
  pthread_mutex_lock(&fs->mu);
  fs->gc_stop = 1;
  pthread_cond_signal(&fs->gc_wake);
  pthread_mutex_unlock(&fs->mu);
  pthread_join(fs->gc_thread, NULL);
  fs->gc_running = 0;
}
