/* Zone allocation: the reserves that protect the file system, checking and carrying out the
 * placement policy's decision (asked through decisions.c), the built-in rule used without a
 * policy, and which zone a writer writes next. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zonefs_internal.h"

#define LIFETIME_DIFF_NOT_GOOD 100
#define LIFETIME_DIFF_COULD_BE_WORSE 50

/* ZenFS GetLifeTimeDiff: a zone holding data that lives at least as long is a good match. */
static unsigned lifetime_diff(uint32_t zone_lt, uint32_t file_lt) {
  if (file_lt <= 1) return zone_lt == file_lt ? 0 : LIFETIME_DIFF_NOT_GOOD;
  if (zone_lt > file_lt) return zone_lt - file_lt;
  if (zone_lt == file_lt) return LIFETIME_DIFF_COULD_BE_WORSE;
  return LIFETIME_DIFF_NOT_GOOD;
}

/* Held: a writer owns it, or a write or GC is under way in it. Nobody else allocates it. */
int zone_held(const zone_state *s) { return s->owner != NULL || s->busy; }

static int partly_written(const zfs *fs, uint32_t z) {
  return fs->zones[z].wp > fs->zones[z].start && fs->zones[z].wp < zone_end(fs, z);
}

/* Active zones: partly written, or held while still empty (taken, first write not yet done). */
static uint32_t active_data_zones(const zfs *fs) {
  uint32_t n = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    n += partly_written(fs, z) || (zone_held(&fs->zones[z]) && fs->zones[z].wp == fs->zones[z].start);
  return n;
}

/* Zones writers hold: the open tokens in use. */
static uint32_t owned_zones(const zfs *fs) {
  uint32_t n = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) n += fs->zones[z].owner != NULL;
  return n;
}

/* Finishes the partially written zone nobody holds with the least room left (ZenFS
 * FinishCheapestIOZone). */
static int finish_cheapest(zfs *fs) {
  int64_t best = -1;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    if (zone_held(&fs->zones[z]) || !partly_written(fs, z)) continue;
    if (best < 0 || zone_end(fs, z) - fs->zones[z].wp < zone_end(fs, (uint32_t)best) - fs->zones[best].wp) best = z;
  }
  if (best < 0) return -ENOSPC;
  int rc = zkv_dev_zone_mgmt(fs->dev, (uint32_t)best, ZKV_ZONE_FINISH);
  if (rc == 0) fs->zones[best].wp = zone_end(fs, (uint32_t)best);
  return rc;
}

static const char *base_name(const char *name) {
  const char *base = strrchr(name, '/');
  return base ? base + 1 : name;
}

static int is_metadata_file(const char *name) {
  const char *base = base_name(name);
  size_t n = strlen(base);
  return strncmp(base, "MANIFEST-", 9) == 0 || strcmp(base, "CURRENT") == 0 || strncmp(base, "OPTIONS-", 8) == 0 ||
         strcmp(base, "IDENTITY") == 0 || (n > 6 && strcmp(base + n - 6, ".dbtmp") == 0);
}

/* RocksDB's WAL files are NNNNNN.log (the info log is LOG, without a dot). */
int is_wal_file(const char *name) {
  const char *base = base_name(name);
  size_t n = strlen(base);
  return n > 4 && strcmp(base + n - 4, ".log") == 0;
}

/* RocksDB's info logs: LOG, and LOG.old.<time> once rolled. */
int is_info_log_file(const char *name) {
  const char *base = base_name(name);
  return strcmp(base, "LOG") == 0 || strncmp(base, "LOG.old.", 8) == 0;
}

int purpose_of(const fobj *f, int for_gc) {
  const char *name = f->m.n_names ? f->m.names[0] : "";
  if (for_gc) return FOR_GC;
  if (is_metadata_file(name)) return FOR_METADATA;
  if (f->space_class == ZFS_SPACE_COMPACTION) return FOR_COMPACTION;
  if (f->space_class == ZFS_SPACE_RECOVERY_FLUSH) return FOR_RECOVERY;
  return is_wal_file(name) ? FOR_WAL : FOR_FREEING;
}

static int serves_meta_groups(int cls) { return cls == ZKV_CLASS_WAL || cls == ZKV_CLASS_META; }

static int classes_bind_zones(const zfs *fs) {
  return (fs->g.flags & ZKV_GEO_CLASS_BOUND_ZONES) && fs->g.meta_class_zones;
}

/* Empty zones each share can still give. Where zones serve one class, the device has
 * meta_class_zones zones for the WAL and metadata and the rest for other data (a plmarray:'s
 * meta and stripe groups): the file system's own metadata zones count as always taken from the
 * first share (its log moves between them), and WAL zones beyond the rest of it are in the second
 * (the device puts the WAL there once its own groups are bound; SST data it never puts in the
 * first, where a Get would read a set whose PLM is off). Elsewhere both are the empty zones. */
typedef struct share_room {
  uint32_t wal, other;
  uint32_t wal_used, wal_share; /* zones in use serving the WAL's class, its share (bound only) */
} share_room;

static share_room room_by_share(const zfs *fs) {
  uint32_t empty = 0, wal = 0, other = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    const zone_state *s = &fs->zones[z];
    if (!zone_held(s) && s->wp == s->start)
      empty++;
    else if (serves_meta_groups(s->io_class))
      wal++;
    else
      other++;
  }
  share_room r = {empty, empty, wal, 0};
  if (!classes_bind_zones(fs)) return r;
  uint32_t mz = fs->g.meta_class_zones;
  uint32_t wal_share = mz > fs->sb.meta_zones ? mz - fs->sb.meta_zones : 0;
  r.wal_share = wal_share;
  uint32_t other_share = fs->g.nr_zones > mz ? fs->g.nr_zones - mz : 0;
  uint32_t other_used = other + (wal > wal_share ? wal - wal_share : 0);
  r.wal = wal < wal_share ? wal_share - wal : 0;
  r.other = other_share > other_used ? other_share - other_used : 0;
  if (r.wal > empty) r.wal = empty;
  if (r.other > empty) r.other = empty;
  return r;
}

/* The class a writer of class cls writes as: its own, except that a WAL past its share writes
 * where SST data goes, as SST data (io_class_in); SST data never goes where the WAL is. */
static int class_to_claim(const zfs *fs, int cls) {
  return classes_bind_zones(fs) && serves_meta_groups(cls) && room_by_share(fs).wal == 0 ? ZKV_CLASS_INTERNAL : cls;
}

int zone_takes_class(const zfs *fs, const zone_state *s, int cls) {
  if (!(fs->g.flags & ZKV_GEO_CLASS_BOUND_ZONES) || s->wp == s->start || s->io_class == ZKV_CLASS_NONE ||
      s->io_class == cls)
    return 1;
  return s->io_class == class_to_claim(fs, cls);
}

void claim_zone(zfs *fs, uint32_t z, int cls) {
  zone_state *s = &fs->zones[z];
  if (s->wp == s->start) s->io_class = (uint8_t)class_to_claim(fs, cls);
}

uint64_t free_bytes_for_data(const zfs *fs) {
  uint64_t n = 0;
  int bound = classes_bind_zones(fs);
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    const zone_state *s = &fs->zones[z];
    if ((s->wp != s->start || zone_held(s)) && (!bound || !serves_meta_groups(s->io_class)))
      n += zone_end(fs, z) - s->wp;
  }
  /* Empty zones a data file may start (where zones serve one class, those of the non-WAL share);
   * two are GC's and the metadata files' (the reserves), not free for data. */
  uint32_t usable = room_by_share(fs).other;
  usable = usable > 2 ? usable - 2 : 0;
  return n + (uint64_t)usable * fs->g.zone_cap;
}

/* Whether an allocation of this purpose (and I/O class) may start an empty zone without eating
 * into the reserves: GC may take any, metadata files all but one, data files all but two. Where
 * zones serve one class, the reserves are in the share GC and RocksDB's metadata files write to;
 * the WAL's own share keeps none, and a WAL that has used it up goes on in the other share. */
static int may_take_empty_zone(const zfs *fs, int purpose, int cls) {
  uint32_t keep = purpose == FOR_GC ? 0u : purpose == FOR_METADATA ? 1u : 2u;
  share_room r = room_by_share(fs);
  if (classes_bind_zones(fs) && serves_meta_groups(cls) && r.wal > 0) return 1;
  return r.other > keep;
}

/* Bytes no live data occupies: every data zone's capacity less its live blocks, whether unwritten
 * or garbage that GC gets back. */
uint64_t unoccupied_bytes(const zfs *fs) {
  uint64_t n = 0;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    uint64_t live = fs->zones[z].live_phys;
    n += live < fs->g.zone_cap ? fs->g.zone_cap - live : 0;
  }
  return n;
}

/* The space reserve (safety rule, counted in reserve_refusals): a writer gets a new zone only while
 * more than its tier's reserve of unoccupied bytes (zone capacities) is left, so that what frees
 * space can always run on a device that stopped taking writes. Tiers, from the last reserve up:
 * GC, RocksDB's metadata files and the flush that replays a WAL at open none (the empty-zone rule
 * keeps GC's and the metadata's; without that flush a stopped database cannot reopen, and live
 * flushes may have used the flushes' tier down to its end while the WAL still had room in its
 * zone); flushes (their WAL is
 * deleted after), compactions the user asked for (run after deleting data, their inputs deleted
 * after), the info log and other files one zone; WAL files, the one way a database grows, two;
 * automatic compactions, which need their whole output before the inputs go, three: they stop
 * first, so a device is never filled by a compaction's transient copy. */
uint64_t space_reserve(const zfs *fs, int purpose) {
  static const uint32_t zones[] = {
      [FOR_GC] = 0, [FOR_METADATA] = 0, [FOR_RECOVERY] = 0, [FOR_FREEING] = 1, [FOR_WAL] = 2, [FOR_COMPACTION] = 3};
  return (uint64_t)zones[purpose] * fs->g.zone_cap;
}

int within_space_reserve(const zfs *fs, int purpose) { return unoccupied_bytes(fs) > space_reserve(fs, purpose); }

int gc_spares_wal_share(const zfs *fs, int cls) {
  if (!classes_bind_zones(fs) || cls != ZKV_CLASS_INTERNAL) return 0;
  /* An SST writer needs room in the non-WAL share: a zone of that share, or a WAL zone past the
   * WAL's share (it counts in the other), frees some; a WAL zone within its share does not, and
   * moving its live data would take the room the writer waits for. (A WAL writer gains from any
   * victim: a WAL zone's room is its own share's, another zone's the share it goes on in.) */
  share_room r = room_by_share(fs);
  return r.wal_used <= r.wal_share;
}

int victim_helps(const zfs *fs, uint32_t zone, int spare_wal_share) {
  return !spare_wal_share || !serves_meta_groups(fs->zones[zone].io_class);
}

/* A zone GC may empty now: a full data zone nobody holds, whose live data occupies less than the
 * zone (by blocks: a zone of padded WAL syncs holds little live data but moving it frees nothing)
 * and at most max_live bytes. */
int victim_eligible(zfs *fs, uint32_t zone, uint64_t max_live) {
  zone_state *s = &fs->zones[zone];
  return zone >= fs->sb.meta_zones && !zone_held(s) && s->wp >= zone_end(fs, zone) && s->live_phys < fs->g.zone_cap &&
         s->live_phys <= max_live;
}

void fill_zone_info(zfs *fs, uint32_t zone, zfs_zone_info *out) {
  zone_state *z = &fs->zones[zone];
  *out = (zfs_zone_info){.index = zone,
                         .start = z->start,
                         .capacity = fs->g.zone_cap,
                         .wp = z->wp,
                         .live = z->live,
                         .lifetime = z->lifetime,
                         .meta = zone < fs->sb.meta_zones,
                         .busy = zone_held(z),
                         .copy = z->live_phys,
                         .victim_ok = victim_eligible(fs, zone, UINT64_MAX),
                         .tag = z->tag,
                         .io_class = classes_bind_zones(fs) ? z->io_class : ZKV_CLASS_NONE,
                         .owner_file = z->owner ? z->owner->m.id : ZFS_NO_OWNER};
}

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
  }
  return 0;
}

/* Decisions retried on a fresh view before the built-in rule decides (counted, both). */
#define MAX_STALE_DECISIONS 8

/* The safety rule's allocation in place of the policy's (counted in fallback_allocations). */
static int fall_back(zfs *fs, const zfs_alloc_request *req, int purpose, int cls, uint32_t *out) {
  int rc = allocate_zone_for(fs, req->lifetime, purpose, cls, out);
  if (rc == 0) fs->st.fallback_allocations++;
  return rc == ALLOC_WAIT ? -ENOSPC : rc; /* the built-in tokens do not apply under a policy */
}

/* Asks the external policy, without the file system's lock, on a view of the zones, and carries
 * out its decision under the lock after checking it: a decision the view already contradicts is a
 * policy bug and a clear error (-EINVAL), never a write into the wrong zone; one the view allowed
 * but the zones no longer do (another writer took the zone meanwhile) is asked again on a fresh
 * view. Called with fs->mu held; releases it during the call. Returns 0 with the zone in *out,
 * ALLOC_WAIT when the policy waits for a token, or an error.
 *
 * Every decision's zones to finish are finished first (ZenFS finishes them before it looks
 * further). NeedGc returns ALLOC_NEED_GC: the writer collects garbage and asks again (begin_write).
 *
 * Safety rule (counted in fallback_allocations): where the policy finds no zone (NO_SPACE; a
 * NEED_GC with nothing to collect, or for GC's own migration), asks for an empty zone the
 * reserves keep from this writer, or keeps deciding on stale views, the built-in rule decides
 * instead: it writes into any partly written zone with room (relaxing the lifetime match) or, for
 * GC, an empty zone. ZenFS
 * fails such writes with NoSpace while open zones have room, and its GC migrates only into open
 * zones; both are the false "No space left" its users report. GC runs only when no zone has room. */
int allocate_by_policy(zfs *fs, const zfs_alloc_request *req, int purpose, int cls, uint32_t *out) {
  zfs_alloc_decision d;
  for (int attempt = 0;; attempt++) {
    decision_view view;
    int rc = view_take(fs, &view, NULL, NULL);
    if (rc) return rc;
    d = (zfs_alloc_decision){0};
    rc = call_allocator(fs, req, &view, &d); /* fs->mu released meanwhile */
    if (rc == -ENOENT) {                     /* the policy was uninstalled meanwhile */
      view_free(&view);
      return allocate_zone_for(fs, req->lifetime, purpose, cls, out);
    }
    if (rc) {
      view_free(&view);
      return rc;
    }
    fs->st.policy_decisions++;
    int stale = 0, action = d.action;
    if (!decision_holds(fs, &d, view.zones))
      rc = -EINVAL;
    else /* a Wait is stale too when a zone came free while it decided */
      stale = !decision_holds(fs, &d, NULL) || (action == ZFS_ALLOC_WAIT && fs->zone_events != view.zone_events);
    view_free(&view);
    if (rc) return rc;
    if (stale) {
      fs->st.stale_decisions++;
      if (attempt < MAX_STALE_DECISIONS) continue;
      return fall_back(fs, req, purpose, cls, out);
    }
    if (action == ZFS_ALLOC_WAIT) return (rc = finish_zones(fs, &d)) ? rc : ALLOC_WAIT;
    if (action == ZFS_ALLOC_NEED_GC || action == ZFS_ALLOC_NO_SPACE) {
      if ((rc = finish_zones(fs, &d))) return rc;
      /* NeedGc: the writer collects, then asks again (begin_write); GC itself cannot. */
      if (action == ZFS_ALLOC_NEED_GC && purpose != FOR_GC) return ALLOC_NEED_GC;
      return fall_back(fs, req, purpose, cls, out);
    }
    break;
  }
  /* The reserves hold whatever the policy says: GC may take any empty zone, metadata files all but
   * the last, data files all but the last two. A zone that serves another class (a plmarray:'s
   * meta or stripe group) is not the policy's to give either. */
  uint32_t z = d.zone;
  if ((d.action == ZFS_ALLOC_OPEN_EMPTY && !may_take_empty_zone(fs, purpose, cls)) ||
      !zone_takes_class(fs, &fs->zones[z], cls))
    return fall_back(fs, req, purpose, cls, out);
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

int zfs_set_gc_start_percent(zfs *fs, uint32_t percent) {
  if (percent > 100) return -EINVAL;
  pthread_mutex_lock(&fs->mu);
  fs->gc_free_percent = percent;
  pthread_cond_signal(&fs->gc_wake);
  pthread_mutex_unlock(&fs->mu);
  return 0;
}

/* The built-in rule (no policy installed, or the fallback above): a zone nobody holds for a writer
 * of the given lifetime. A file write waits (ALLOC_WAIT) while writers hold every open token of the
 * built-in rule; GC writes on its own reserved token. */
int allocate_zone_for(zfs *fs, uint32_t lifetime, int purpose, int cls, uint32_t *out) {
  int for_gc = purpose == FOR_GC;
  if (!for_gc && !fs->allocator && fs->open_limit && owned_zones(fs) >= fs->open_limit) return ALLOC_WAIT;
  int64_t best = -1;
  unsigned best_diff = LIFETIME_DIFF_NOT_GOOD + 1;
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
    zone_state *s = &fs->zones[z];
    if (zone_held(s) || s->wp == s->start || zone_end(fs, z) - s->wp < fs->g.lba_size) continue;
    if (!zone_takes_class(fs, s, cls)) continue;
    unsigned d = lifetime_diff(s->lifetime, lifetime);
    if (d <= best_diff) best = z, best_diff = d;
  }
  if (best >= 0 && best_diff < LIFETIME_DIFF_COULD_BE_WORSE) goto take;
  /* Empty zones beyond the reserves (see may_take_empty_zone); GC may use them all. */
  for (int attempt = 0; attempt < 2; attempt++) {
    if (!may_take_empty_zone(fs, purpose, cls)) break; /* only reserves are left */
    if (!fs->active_limit || active_data_zones(fs) < fs->active_limit + (for_gc ? 1u : 0u)) {
      for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++) {
        zone_state *s = &fs->zones[z];
        if (!zone_held(s) && s->wp == s->start) {
          s->lifetime = lifetime;
          best = z;
          goto take;
        }
      }
      break; /* no empty zone */
    }
    if (best >= 0) goto take; /* relax the lifetime match rather than finish a zone */
    if (finish_cheapest(fs)) break;
  }
  if (best < 0) return -ENOSPC;
take:
  *out = (uint32_t)best;
  return 0;
}

/* The owner's zone goes back to the pool, partly written (still active) or full. */
void release_zone(zfs *fs, fobj *f) {
  if (f->zone < 0) return;
  uint32_t z = (uint32_t)f->zone;
  fs->zones[z].owner = NULL;
  f->zone = -1;
  reset_if_unused(fs, z); /* the owner's data there may all be deleted already */
  zones_changed(fs);
}

static int any_write_in_flight(const zfs *fs) {
  for (uint32_t z = fs->sb.meta_zones; z < fs->g.nr_zones; z++)
    if (fs->zones[z].busy) return 1;
  return 0;
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
      if (!zone_takes_class(fs, &fs->zones[z], class_of(asking))) continue;
      if (pass == 0 && o->m.n_names && is_wal_file(o->m.names[0])) continue;
      if (!victim || o->last_write < victim->last_write) victim = o;
    }
  if (!victim) return 0;
  release_zone(fs, victim);
  fs->st.zone_steals++;
  return 1;
}

/* The zone a writer writes next: the one it owns (it is released when full), else a new one from
 * the policy, which it then owns until close or full. Called with fs->mu held. */
int take_zone(zfs *fs, fobj *f, int built_in, uint64_t want, uint32_t *out) {
  if (f->zone >= 0) {
    *out = (uint32_t)f->zone;
    return 0;
  }
  if (!within_space_reserve(fs, purpose_of(f, 0))) {
    fs->st.reserve_refusals++;
    return ALLOC_RESERVED;
  }
  for (;;) {
    /* The policy's call releases fs->mu: a rename meanwhile frees the name read before it. */
    const char *name = f->m.n_names ? f->m.names[0] : "";
    zfs_alloc_request req = {f->m.id, name, f->m.lifetime, 0, want};
    int rc = fs->allocator && !built_in ? allocate_by_policy(fs, &req, purpose_of(f, 0), class_of(f), out)
                                        : allocate_zone_for(fs, f->m.lifetime, purpose_of(f, 0), class_of(f), out);
    if (rc == 0 && built_in && fs->allocator) fs->st.fallback_allocations++;
    if (rc == ALLOC_NEED_GC) return rc;
    if (rc == 0) {
      claim_zone(fs, *out, class_of(f));
      fs->zones[*out].owner = f;
      f->zone = (int32_t)*out;
      return 0;
    }
    if (rc != ALLOC_WAIT && rc != -ENOSPC) return rc;
    if (release_idle_owner(fs, f, rc == ALLOC_WAIT && !is_sparse(f))) continue;
    /* Every owner is writing: one of them finishes its write soon, then ask again. With no write
     * under way nothing will change: the caller collects garbage or reports NoSpace. */
    if (!any_write_in_flight(fs)) return -ENOSPC;
    pthread_cond_wait(&fs->zone_released, &fs->mu);
  }
}
