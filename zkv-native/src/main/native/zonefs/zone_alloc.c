/* Zone allocation: checking the placement policy's decision (asked through decisions.c) against
 * the reserves that protect the file system (zone_reserves.c) and carrying it out, the safety rule
 * that decides when the policy cannot (counted by reason), and which zone a writer writes next.
 * Nothing here chooses by lifetime or garbage: that is the policies' (zkv-placement). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

/* Whether decision d's zones to finish first are data zones other than its target and nobody holds
 * them, as `zones` shows them: the view the policy decided on, or (NULL) the zones as they are now. */
static int finishes_hold(zfs *fs, const zfs_alloc_decision *d, const zfs_zone_info *zones) {
  if (d->n_finish > ZFS_ALLOC_MAX_FINISH) return 0;
  int has_target = d->action == ZFS_ALLOC_USE || d->action == ZFS_ALLOC_OPEN_EMPTY;
  for (uint32_t i = 0; i < d->n_finish; i++) {
    uint32_t f = d->finish[i];
    if (f < fs->sb.meta_zones || f >= fs->g.nr_zones || (has_target && f == d->zone)) return 0;
    if (zones ? zones[f].busy : zone_held(&fs->zones[f])) return 0;
  }
  return 1;
}

/* Whether decision d holds: its zones to finish, and for a zone to write in (USE, OPEN_EMPTY) a
 * data zone nobody holds with room (empty for OPEN_EMPTY); as finishes_hold, on the view or now. */
static int decision_holds(zfs *fs, const zfs_alloc_decision *d, const zfs_zone_info *zones) {
  if (!finishes_hold(fs, d, zones)) return 0;
  if (d->action == ZFS_ALLOC_NEED_GC || d->action == ZFS_ALLOC_NO_SPACE || d->action == ZFS_ALLOC_WAIT) return 1;
  uint32_t z = d->zone;
  if ((d->action != ZFS_ALLOC_USE && d->action != ZFS_ALLOC_OPEN_EMPTY) || z < fs->sb.meta_zones || z >= fs->g.nr_zones)
    return 0;
  zfs_zone_info now;
  const zfs_zone_info *t = zones ? &zones[z] : (fill_zone_info(fs, z, &now), &now);
  return !t->busy && t->start + t->capacity - t->wp >= fs->g.lba_size &&
         (d->action != ZFS_ALLOC_OPEN_EMPTY || t->wp == t->start);
}

/* Finishes the zones a decision names (ZenFS finishes them before it looks further, whatever it
 * then finds): the active tokens they held are free. */
static int finish_zones(zfs *fs, const zfs_alloc_decision *d) {
  for (uint32_t i = 0; i < d->n_finish; i++) {
    uint32_t f = d->finish[i];
    if (!partly_written(fs, f)) continue;
    int rc = zkv_dev_zone_mgmt(fs->dev, f, ZKV_ZONE_FINISH);
    if (rc) return rc;
    fs->zones[f].wp = zone_end(fs, f);
    fs->st.zone_finishes++;
  }
  return 0;
}

/* Whether the view showed more empty zones than it kept from the writer (view.v.empty_kept). */
static int view_allowed_empty(const zfs *fs, const decision_view *view) {
  uint32_t empty = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    empty += !view->zones[z].busy && view->zones[z].wp == view->zones[z].start;
  return empty > view->v.empty_kept;
}

/* Whether a writer may start an empty zone now within the active limit (GC one more: its own
 * token), once the decision's zones to finish are finished. */
static int active_zone_free(const zfs *fs, const zfs_alloc_decision *d, int purpose) {
  uint32_t active = active_data_zones(fs);
  for (uint32_t i = 0; i < d->n_finish && i < ZFS_ALLOC_MAX_FINISH; i++)
    if (active && partly_written(fs, d->finish[i])) active--;
  return below_active_limit(fs, active, purpose);
}

/* Decisions retried on a fresh view before the safety rule decides (counted, both). */
#define MAX_STALE_DECISIONS 8

void count_override(zfs *fs, int reason) {
  fs->st.overrides[reason]++;
  if (reason < ZFS_OVERRIDE_ALLOCATION_REASONS) fs->st.fallback_allocations++;
}

/* The safety rule's allocation in place of the policy's, counted under `reason` when it finds a
 * zone. */
static int fall_back(zfs *fs, int reason, const zfs_alloc_request *req, int purpose, int cls, uint32_t *out) {
  /* The WAL reserve's request is speculative: nothing is forced for it and nothing counted; only
   * without a policy does the safety rule choose (the C suites), its empty zone kept */
  if (req->for_wal_reserve)
    return reason == ZFS_OVERRIDE_NO_POLICY ? safety_zone(fs, req->lifetime, purpose, cls, 0, out) : -ENOSPC;
  int rc = safety_zone(fs, req->lifetime, purpose, cls, 0, out);
  if (rc == 0) count_override(fs, reason);
  return rc;
}

/* Asks the external policy, without the file system's lock, on a view of the zones, and carries
 * out its decision under the lock after checking it: one the view allowed but the zones no longer
 * do (another writer took the zone meanwhile) is asked again on a fresh view. Called with fs->mu
 * held; releases it during the call. Returns 0 with the zone in *out, ALLOC_WAIT when the policy
 * waits for a token, ALLOC_NEED_GC, or an error.
 *
 * Every decision's zones to finish are finished first (ZenFS finishes them before it looks
 * further). NeedGc returns ALLOC_NEED_GC: the writer collects garbage and asks again (begin_write).
 *
 * The safety rule decides instead, counted by reason (enum zfs_override), where the policy is
 * missing or fails, answers what its own view forbids (a policy bug: never a write into the wrong
 * zone), keeps deciding on stale views, finds no zone (NO_SPACE; NeedGc for GC's own copies), asks
 * for an empty zone the reserves keep from this writer, or for a zone of another I/O class: it
 * writes into a partly written zone with room or starts an empty one beyond the reserves. ZenFS
 * fails such writes with NoSpace while open zones have room, and its GC migrates only into open
 * zones; both are the false "No space left" its users report. */
int allocate_by_policy(zfs *fs, const zfs_alloc_request *req, int purpose, int cls, uint32_t *out) {
  if (!fs->allocator) return fall_back(fs, ZFS_OVERRIDE_NO_POLICY, req, purpose, cls, out);
  zfs_alloc_decision d;
  for (int attempt = 0;; attempt++) {
    decision_view view;
    int rc = view_take(fs, &view, NULL, NULL);
    if (rc) return rc;
    view.v.empty_kept = empty_zones_kept(fs, purpose, cls);
    d = (zfs_alloc_decision){0};
    rc = call_allocator(fs, req, &view, &d); /* fs->mu released meanwhile */
    if (rc) {
      view_free(&view);
      /* -ENOENT: the policy was removed meanwhile (JVM exit); else it failed (threw: shown there) */
      return fall_back(fs, rc == -ENOENT ? ZFS_OVERRIDE_NO_POLICY : ZFS_OVERRIDE_POLICY_FAILED, req, purpose, cls, out);
    }
    fs->st.policy_decisions++;
    int invalid = !decision_holds(fs, &d, view.zones), action = d.action;
    /* a Wait is stale too when a zone came free while it decided; an empty zone its view let it
     * start (more empty zones than kept) but the reserves keep now, since others (the WAL reserve's
     * fill, a WAL's switch, another writer) started empty zones meanwhile, is stale as well; and so
     * is a zone to write in that is empty now (a USE of a zone whose data was deleted and the zone
     * reset meanwhile starts it again) where the active limit has no room left: others started
     * zones meanwhile (without this check a writer opened one zone more than the device allows) */
    int writes_zone = action == ZFS_ALLOC_OPEN_EMPTY || action == ZFS_ALLOC_USE;
    int stale =
        !invalid &&
        (!decision_holds(fs, &d, NULL) || (action == ZFS_ALLOC_WAIT && fs->zone_events != view.zone_events) ||
         (action == ZFS_ALLOC_OPEN_EMPTY && !req->for_wal_reserve && view_allowed_empty(fs, &view) &&
          !may_take_empty_zone(fs, purpose, cls) && fs->walr_n == 0) ||
         (writes_zone && fs->zones[d.zone].wp == fs->zones[d.zone].start && !active_zone_free(fs, &d, purpose)));
    view_free(&view);
    if (invalid) return fall_back(fs, ZFS_OVERRIDE_INVALID, req, purpose, cls, out);
    if (stale) {
      fs->st.stale_decisions++;
      if (attempt < MAX_STALE_DECISIONS) continue;
      return fall_back(fs, ZFS_OVERRIDE_STALE, req, purpose, cls, out);
    }
    /* The reserve keeps empty zones only (a finish it asks for frees the token, as for a WAL). */
    if (req->for_wal_reserve && action != ZFS_ALLOC_OPEN_EMPTY) return -ENOSPC;
    if (action == ZFS_ALLOC_WAIT) return (rc = finish_zones(fs, &d)) ? rc : ALLOC_WAIT;
    if (action == ZFS_ALLOC_NEED_GC || action == ZFS_ALLOC_NO_SPACE) {
      if ((rc = finish_zones(fs, &d))) return rc;
      /* NeedGc: the writer collects, then asks again (begin_write); GC itself cannot. */
      if (action == ZFS_ALLOC_NEED_GC && purpose != FOR_GC) return ALLOC_NEED_GC;
      if (no_space_is_final(fs, purpose)) return -ENOSPC;
      return fall_back(fs, ZFS_OVERRIDE_NO_SPACE, req, purpose, cls, out);
    }
    /* An empty zone the reserves keep from this writer: one the WAL reserve holds goes back first
     * and the policy is asked again (the reserve never costs a writer its placement) */
    if (action == ZFS_ALLOC_OPEN_EMPTY && !req->for_wal_reserve && !may_take_empty_zone(fs, purpose, cls) &&
        wal_reserve_give_back(fs))
      continue;
    break;
  }
  /* The reserves hold whatever the policy says: GC may take any empty zone, metadata files all but
   * the last, data files all but the last two. A zone that serves another class (a plmarray:'s
   * meta or stripe group) is not the policy's to give either. */
  uint32_t z = d.zone;
  if (d.action == ZFS_ALLOC_OPEN_EMPTY && !may_take_empty_zone(fs, purpose, cls))
    return fall_back(fs, ZFS_OVERRIDE_RESERVE, req, purpose, cls, out);
  if (!zone_takes_class(fs, &fs->zones[z], cls)) return fall_back(fs, ZFS_OVERRIDE_CLASS, req, purpose, cls, out);
  int rc = finish_zones(fs, &d);
  if (rc) return rc;
  if (d.action == ZFS_ALLOC_OPEN_EMPTY) {
    zone_state *s = &fs->zones[z];
    s->lifetime = d.has_lifetime ? d.lifetime : req->lifetime;
    s->tag = d.has_tag && d.tag >= 0 ? d.tag : -1;
    s->labelled = s->tag >= 0 || d.has_lifetime;
    if (s->labelled && (rc = persist_zone_labels(fs, z))) return rc;
  }
  *out = z;
  return 0;
}

/* The safety rule: a zone nobody holds that has room and takes the writer's class: an empty one
 * beyond the reserves (may_take_empty_zone) while the active limit allows (GC one more: its own
 * token), so that the writer's data stays apart from other files' (a zone shared with data of
 * another lifetime frees nothing when one of them is deleted: a full device recovered by deleting
 * data got back a fifth of what it did); else the lowest-numbered partly written one (never
 * NoSpace while a zone has room). -ENOSPC if none. It never looks at lifetimes or garbage; an
 * empty zone it starts keeps the request's lifetime hint (unpersisted, for the policies' view).
 * gc_zone_too: the writer may start the empty zone kept for GC as well (TAKE_GC_ZONE_TOO). */
int safety_zone(zfs *fs, uint32_t lifetime, int purpose, int cls, int gc_zone_too, uint32_t *out) {
  if (may_take_empty_zone(fs, gc_zone_too ? FOR_GC : purpose, cls) &&
      below_active_limit(fs, active_data_zones(fs), purpose))
    for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
      zone_state *s = &fs->zones[z];
      if (!zone_held(s) && s->wp == s->start) {
        s->lifetime = lifetime;
        *out = z;
        return 0;
      }
    }
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    zone_state *s = &fs->zones[z];
    if (zone_held(s) || s->wp == s->start || zone_end(fs, z) - s->wp < fs->g.lba_size) continue;
    /* a WAL kept apart (ZWAL mode) may still go on in another file's zone rather than fail: the
     * rule keeps other files out of WAL zones, not WALs from NoSpace */
    if (!zone_takes_class(fs, s, cls) && !(cls == ZKV_CLASS_WAL && !classes_bind_zones(fs))) continue;
    *out = z;
    return 0;
  }
  return -ENOSPC;
}

int finish_cheapest_idle_zone(zfs *fs) {
  if (!fs->active_limit || below_active_limit(fs, active_data_zones(fs), FOR_WAL)) return 0;
  int64_t cheapest = -1;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    if (!partly_written(fs, z) || zone_held(&fs->zones[z])) continue;
    if (cheapest < 0 || zone_end(fs, z) - fs->zones[z].wp < zone_end(fs, (uint32_t)cheapest) - fs->zones[cheapest].wp)
      cheapest = z;
  }
  if (cheapest < 0 || !zone_claim(&fs->zones[cheapest])) return 0;
  zone_state *s = &fs->zones[cheapest];
  pthread_mutex_unlock(&fs->mu); /* the device command without the lock: the claim keeps the zone */
  int rc = zkv_dev_zone_mgmt(fs->dev, (uint32_t)cheapest, ZKV_ZONE_FINISH);
  pthread_mutex_lock(&fs->mu);
  if (rc == 0) {
    s->wp = zone_end(fs, (uint32_t)cheapest);
    fs->st.zone_finishes++;
  }
  zone_unclaim(s);
  zones_changed(fs);
  return rc == 0;
}

int reserve_wal_zone(zfs *fs, const zfs_alloc_request *req, uint32_t target, uint32_t *out) {
  if (!within_space_reserve(fs, FOR_WAL) || !reserve_may_keep_one_more(fs, target)) return -ENOSPC;
  int rc = allocate_by_policy(fs, req, FOR_WAL, ZKV_CLASS_WAL, out);
  if (rc) return rc < 0 ? rc : -ENOSPC;
  const zone_state *s = &fs->zones[*out];
  return !zone_held(s) && s->wp == s->start ? 0 : -ENOSPC;
}

/* The owner's zone goes back to the pool, partly written (still active) or full. A WAL zone kept
 * apart (ZWAL mode) is finished instead: no other file continues it, and its active token is free
 * (a failed finish leaves it active until the WAL's delete resets it). */
void release_zone(zfs *fs, fobj *f) {
  if (f->zone < 0) return;
  uint32_t z = (uint32_t)f->zone;
  fs->zones[z].owner = NULL;
  f->zone = -1;
  if (wal_zone_apart(fs, z) && partly_written(fs, z) && !fs->zones[z].busy &&
      zkv_dev_zone_mgmt(fs->dev, z, ZKV_ZONE_FINISH) == 0) {
    fs->zones[z].wp = zone_end(fs, z);
    fs->st.wal_zone_finishes++;
    fs->st.zone_finishes++;
  }
  reset_if_unused(fs, z); /* the owner's data there may all be deleted already */
  zones_changed(fs);
}

/* Safety rule (counted in zone_steals): an owner that is not writing gives its zone up, the one
 * that wrote least recently first; it asks for a zone again on its next write-out. Taken when the
 * policy waits for a token that only idle owners hold, or no zone is free at all: ZenFS blocks the
 * writer until a file closes, which deadlocks when the holders wait for this writer (RocksDB's
 * MANIFEST holds its zone for the database's life and is written after a flush's SST), and fails
 * with NoSpace while owned zones have room. Writers other than the WAL leave the WAL its zone
 * while another idle owner exists (LIZA's WAL priority). Where zones serve one class, only a zone
 * the asking writer may use (zone_takes_class) helps it. Returns whether a zone was freed. */
static int release_idle_owner(zfs *fs, const fobj *asking, int spare_wal) {
  fobj *victim = NULL;
  for (int pass = spare_wal ? 0 : 1; pass < 2 && !victim; pass++)
    for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
      fobj *o = fs->zones[z].owner;
      if (!o || o == asking || fs->zones[z].busy) continue;
      /* a WAL zone kept apart is finished on release: its token, not its room, is what helps; a
       * WAL may go on where another file was (the rule keeps others out of WAL zones only) */
      if (!zone_takes_class(fs, &fs->zones[z], class_of(asking)) && !wal_zone_apart(fs, z) &&
          !(class_of(asking) == ZKV_CLASS_WAL && !classes_bind_zones(fs)))
        continue;
      if (pass == 0 && o->m.n_names && is_wal_file(o->m.names[0])) continue;
      if (!victim || o->last_write < victim->last_write) victim = o;
    }
  if (!victim) return 0;
  release_zone(fs, victim);
  fs->st.zone_steals++;
  return 1;
}

/* The WAL a database's open created has its first zone (ZFS_SPACE_OPENING_WAL): what it writes
 * after the open grows the database, at a WAL's tier of the space reserve. */
static void first_zone_taken(fobj *f) {
  if (f->space_class == ZFS_SPACE_OPENING_WAL) f->space_class = ZFS_SPACE_BY_NAME;
}

/* The zone a writer writes next: the one it owns (it is released when full), else a new one from
 * the policy, which it then owns until close or full. Called with fs->mu held. */
int take_zone(zfs *fs, fobj *f, int safety, uint64_t want, uint32_t *out, int *from_reserve) {
  *from_reserve = 0;
  if (f->zone >= 0) {
    *out = (uint32_t)f->zone;
    return 0;
  }
  if (!within_space_reserve(fs, purpose_of(f, 0))) {
    fs->st.reserve_refusals++;
    return ALLOC_RESERVED;
  }
  /* A WAL's next zone from the reserve: no view, no policy call, no device command, no GC. */
  if (wal_reserve_take(fs, f, out) == 0) {
    *from_reserve = 1;
    first_zone_taken(f);
    return 0;
  }
  zfs_alloc_request req = {.file_id = f->m.id, .file_name = "", .lifetime = f->m.lifetime, .expected_size = want};
  pthread_mutex_lock(&f->wmu);                           /* mu before wmu, as end_write takes them */
  if (f->m.n_extents == 0 && f->wdone == 0 && f->wbuf) { /* the writer's own buffer: once */
    req.head_len = (uint32_t)(f->wlen < ZFS_REQUEST_HEAD ? f->wlen : ZFS_REQUEST_HEAD);
    memcpy(req.head, f->wbuf, req.head_len);
  }
  pthread_mutex_unlock(&f->wmu);
  for (;;) {
    /* The policy's call releases fs->mu: a rename meanwhile frees the name read before it. */
    req.file_name = f->m.n_names ? f->m.names[0] : "";
    int rc;
    if (safety == TAKE_BY_POLICY)
      rc = allocate_by_policy(fs, &req, purpose_of(f, 0), class_of(f), out);
    else if ((rc = safety_zone(fs, req.lifetime, purpose_of(f, 0), class_of(f), safety == TAKE_GC_ZONE_TOO, out)) == 0)
      count_override(fs, ZFS_OVERRIDE_NO_SPACE);
    if (rc == ALLOC_NEED_GC) {
      if (wal_reserve_give_back(fs)) continue; /* an empty zone before a collection */
      return rc;
    }
    if (rc == 0) {
      take_zone_class(fs, *out, class_of(f));
      fs->zones[*out].owner = f;
      f->zone = (int32_t)*out;
      first_zone_taken(f);
      return 0;
    }
    if (rc != ALLOC_WAIT && rc != -ENOSPC) return rc;
    /* an idle reserved zone is cheaper to give than an owner's zone or a collection */
    if (wal_reserve_give_back(fs)) continue;
    if (release_idle_owner(fs, f, rc == ALLOC_WAIT && !is_sparse(f))) {
      run_deferred_now(fs); /* the zone it gave up may be empty once reset: asked for next */
      continue;
    }
    /* Every owner is writing: one of them finishes its write soon, then ask again. With no write
     * under way nothing will change: the caller collects garbage or reports NoSpace. */
    if (!any_write_in_flight(fs)) return -ENOSPC;
    uint64_t events = fs->zone_events;
    run_deferred_now(fs); /* nothing of this scope waits for the others while they wait for it */
    /* A ZWAL writer between calls may hold its zone with appends in flight until its next call,
     * which may never come before this writer gets a zone: reap them for it, then ask again. */
    if (fs->reap_idle_writer(fs)) {
      run_deferred_now(fs); /* a zone it gave up may be empty once reset */
      continue;
    }
    if (fs->zone_events != events) continue; /* this scope's own resets freed a zone: no wake-up comes */
    pthread_cond_wait(&fs->zone_released, &fs->mu);
  }
}
