/* The policies are called without the file system's lock (zonefs/decisions.c): a placement
 * policy, a victim policy or a GC trigger that blocks until another file's append and sync have
 * completed does not stop them (with the lock held it deadlocked); a decision made on a view that
 * went stale meanwhile is asked again, never carried out on a zone another writer took; and
 * installing a policy waits for the call-outs under way. A sync's metadata record is written
 * without the lock too (zonefs/meta_log.c). Progress, not speed: every wait is
 * bounded (a deadlock fails the test instead of hanging it). */
#include <time.h>

#include "test_blocker.h"
#include "zfs_fixture.h"
#include "zonefs_internal.h" /* the log's state: a metadata write held in progress */

/* A freshly formatted device, mounted (GC started). */
static zfs *fresh_mount(zkv_dev **d) {
  fresh("");
  *d = open_dev();
  return mount_ok(*d);
}

/* The highest zone a writer may use, as the view shows it (a plain placement decision). */
static int highest_zone(const zfs_view *view, zfs_alloc_decision *out) {
  for (uint32_t z = view->n_zones; z-- > 0;) {
    const zfs_zone_info *zi = &view->zones[z];
    if (zi->meta || zi->busy || zi->wp - zi->start >= zi->capacity) continue;
    *out = (zfs_alloc_decision){.action = zi->wp == zi->start ? ZFS_ALLOC_OPEN_EMPTY : ZFS_ALLOC_USE, .zone = z};
    return 0;
  }
  out->action = ZFS_ALLOC_NO_SPACE;
  return 0;
}

/* highest_zone, once the blocker lets the call go on. */
static int blocking_allocator(void *ctx, const zfs_alloc_request *req, const zfs_view *view, zfs_alloc_decision *out) {
  (void)req;
  blocker_enter(ctx);
  return highest_zone(view, out);
}

static int blocking_victim(void *ctx, const zfs_view *view, uint32_t *victim) {
  blocker_enter(ctx);
  for (uint32_t z = 0; z < view->n_zones; z++)
    if (view->zones[z].victim_ok) {
      *victim = z;
      return 0;
    }
  return -ENOSPC;
}

static int blocking_trigger(void *ctx, const zfs_view *view, uint64_t *max_live) {
  (void)view;
  blocker_enter(ctx);
  *max_live = 0;
  return 0;
}

/* The other writer: a file that owns its zone already (written and synced once) appends and syncs
 * again; its reads then match. */
typedef struct owner_file {
  zfs_file *f;
  uint64_t seed, size;
} owner_file;

static void owner_write(zfs *fs, owner_file *o, size_t n) {
  uint8_t *buf = malloc(n);
  CHECK(buf != NULL);
  fill(buf, o->seed, o->size, n);
  CHECK_EQ(zfs_append(o->f, buf, n), 0);
  CHECK_EQ(zfs_sync(o->f), 0);
  o->size += n;
  free(buf);
  (void)fs;
}

static owner_file owner_open(zfs *fs, const char *name, uint64_t seed) {
  int rc = 0;
  owner_file o = {zfs_create(fs, name, 3, &rc), seed, 0};
  CHECK(o.f != NULL);
  owner_write(fs, &o, 64 << 10); /* takes its zone and keeps it (the writer stays open) */
  return o;
}

static void owner_close_and_check(zfs *fs, owner_file *o, const char *name) {
  CHECK_EQ(zfs_close(o->f), 0);
  check_file(fs, name, o->seed, o->size);
}

typedef struct named {
  const char *name;
  uint64_t id;
} named;

static void find_id(const zfs_file_meta *m, void *arg) {
  named *n = arg;
  if (m->n_names && strcmp(m->names[0], n->name) == 0) n->id = m->id;
}

/* The id of the file of this name. */
static uint64_t file_named_id(zfs *fs, const char *name) {
  named n = {name, ZFS_NO_OWNER};
  CHECK_EQ(zfs_walk_files(fs, find_id, &n), 0);
  return n.id;
}

/* A thread's zfs call and its result. */
typedef struct call {
  zfs *fs;
  const char *name;
  int rc;
  uint64_t got;
} call;

static void *write_new_file(void *arg) {
  call *c = arg;
  int rc = 0;
  zfs_file *f = zfs_create(c->fs, c->name, 3, &rc);
  if (!f) {
    c->rc = rc;
    return NULL;
  }
  uint8_t *buf = malloc(128 << 10);
  fill(buf, 5, 0, 128 << 10);
  c->rc = zfs_append(f, buf, 128 << 10);
  if (!c->rc) c->rc = zfs_sync(f);
  int close_rc = zfs_close(f);
  if (!c->rc) c->rc = close_rc;
  free(buf);
  return NULL;
}

static void *reclaim_all(void *arg) {
  call *c = arg;
  c->got = zfs_reclaim(c->fs, UINT64_MAX);
  return NULL;
}

/* A placement policy that waits, inside allocate, for another file's append and sync. */
static void test_blocked_placement_policy_lets_others_write(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  blocker b;
  blocker_init(&b);
  zfs_set_allocator(fs, blocking_allocator, &b);
  owner_file o = owner_open(fs, "/db/owner.sst", 21);
  blocker_arm(&b);
  call c = {fs, "/db/new.sst", 0, 0};
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, write_new_file, &c), 0);
  blocker_wait_entered(&b);
  owner_write(fs, &o, 200 << 10); /* while the policy decides for new.sst */
  owner_write(fs, &o, 4096);
  blocker_release(&b);
  CHECK_EQ(pthread_join(t, NULL), 0);
  CHECK_EQ(b.timed_out, 0);
  CHECK_EQ(c.rc, 0);
  check_file(fs, "/db/new.sst", 5, 128 << 10);
  owner_close_and_check(fs, &o, "/db/owner.sst");
  zfs_set_allocator(fs, NULL, NULL);
  blocker_destroy(&b);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Packs files: a partly written zone nobody holds, else the first empty one. */
static int packing_allocator(void *ctx, const zfs_alloc_request *req, const zfs_view *view, zfs_alloc_decision *out) {
  (void)ctx, (void)req;
  int64_t empty = -1;
  for (uint32_t z = 0; z < view->n_zones; z++) {
    const zfs_zone_info *zi = &view->zones[z];
    if (zi->meta || zi->busy || zi->wp - zi->start >= zi->capacity) continue;
    if (zi->wp > zi->start) {
      *out = (zfs_alloc_decision){.action = ZFS_ALLOC_USE, .zone = z};
      return 0;
    }
    if (empty < 0) empty = z;
  }
  *out = (zfs_alloc_decision){.action = empty < 0 ? ZFS_ALLOC_NO_SPACE : ZFS_ALLOC_OPEN_EMPTY,
                              .zone = empty < 0 ? 0 : (uint32_t)empty};
  return 0;
}

/* Two full zones of which half is garbage: four files of half a zone one after the other, packed
 * two to a zone, then the first of each pair deleted. */
static void make_garbage(zfs *fs) {
  zfs_set_allocator(fs, packing_allocator, NULL);
  char name[32];
  for (int i = 0; i < 4; i++) {
    snprintf(name, sizeof name, "/db/g%d.sst", i);
    write_file(fs, name, 40 + (uint64_t)i, GEO.zone_cap / 2, 0);
  }
  zfs_set_allocator(fs, NULL, NULL);
  CHECK_EQ(zfs_delete(fs, "/db/g0.sst"), 0);
  CHECK_EQ(zfs_delete(fs, "/db/g2.sst"), 0);
}

/* A victim policy that waits, inside its choice, for another file's append and sync. */
static void test_blocked_victim_policy_lets_others_write(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  tp_set_gc_level(fs, 0); /* only the collection below */
  make_garbage(fs);
  owner_file o = owner_open(fs, "/db/owner.sst", 22);
  blocker b;
  blocker_init(&b);
  zfs_set_victim_chooser(fs, blocking_victim, &b);
  blocker_arm(&b);
  call c = {fs, NULL, 0, 0};
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, reclaim_all, &c), 0);
  blocker_wait_entered(&b);
  owner_write(fs, &o, 200 << 10);
  blocker_release(&b);
  CHECK_EQ(pthread_join(t, NULL), 0);
  CHECK_EQ(b.timed_out, 0);
  zfs_stats st;
  zfs_stats_get(fs, &st);
  CHECK(st.gc_bytes > 0); /* the victims it chose were collected */
  check_file(fs, "/db/g1.sst", 41, GEO.zone_cap / 2);
  check_file(fs, "/db/g3.sst", 43, GEO.zone_cap / 2);
  owner_close_and_check(fs, &o, "/db/owner.sst");
  zfs_set_victim_chooser(fs, NULL, NULL);
  blocker_destroy(&b);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A GC trigger that waits, inside its round, for another file's append and sync. */
static void test_blocked_gc_trigger_lets_others_write(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  owner_file o = owner_open(fs, "/db/owner.sst", 23);
  blocker b;
  blocker_init(&b);
  blocker_arm(&b);
  zfs_set_gc_trigger(fs, blocking_trigger, &b); /* the background worker asks it within 100 ms */
  blocker_wait_entered(&b);
  owner_write(fs, &o, 200 << 10);
  blocker_release(&b);
  zfs_set_gc_trigger(fs, NULL, NULL); /* returns once the blocked round is over */
  CHECK_EQ(b.timed_out, 0);
  owner_close_and_check(fs, &o, "/db/owner.sst");
  blocker_destroy(&b);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A placement policy whose view goes stale while it decides: its first answer (the zone another
 * writer takes meanwhile) is asked again, never carried out; the stale decision is counted. */
typedef struct racing_policy {
  blocker b;
  uint32_t first_choice;
  int answers;
} racing_policy;

static int first_empty_allocator(void *ctx, const zfs_alloc_request *req, const zfs_view *view,
                                 zfs_alloc_decision *out) {
  (void)req;
  racing_policy *p = ctx;
  blocker_enter(&p->b);
  for (uint32_t z = 0; z < view->n_zones; z++) {
    const zfs_zone_info *zi = &view->zones[z];
    if (zi->meta || zi->busy || zi->wp != zi->start) continue;
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_OPEN_EMPTY, .zone = z};
    pthread_mutex_lock(&p->b.mu);
    if (p->answers++ == 0) p->first_choice = z;
    pthread_mutex_unlock(&p->b.mu);
    return 0;
  }
  out->action = ZFS_ALLOC_NO_SPACE;
  return 0;
}

static void test_stale_decision_is_asked_again(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  racing_policy p = {0};
  blocker_init(&p.b);
  zfs_set_allocator(fs, first_empty_allocator, &p);
  zfs_stats before;
  zfs_stats_get(fs, &before);
  blocker_arm(&p.b);
  call c = {fs, "/db/slow.sst", 0, 0};
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, write_new_file, &c), 0);
  blocker_wait_entered(&p.b);                        /* its view is taken; the view goes stale now */
  owner_file o = owner_open(fs, "/db/fast.sst", 24); /* asks the same policy: the same empty zone */
  /* The first answer is fast.sst's: slow.sst's call answers only once released (read here, not
   * before owner_open: then nothing had answered yet and the check below looked at zone 0, a
   * metadata zone, which always holds data). */
  pthread_mutex_lock(&p.b.mu);
  CHECK(p.answers >= 1);
  uint32_t first = p.first_choice;
  pthread_mutex_unlock(&p.b.mu);
  CHECK_EQ(o.f->f->zone, (int32_t)first); /* fast.sst holds the zone both calls chose */
  blocker_release(&p.b);
  CHECK_EQ(pthread_join(t, NULL), 0);
  CHECK_EQ(c.rc, 0);
  CHECK_EQ(p.b.timed_out, 0);
  zfs_stats after;
  zfs_stats_get(fs, &after);
  CHECK(after.stale_decisions > before.stale_decisions);
  CHECK_EQ(after.fallback_allocations, before.fallback_allocations);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, first, &zi), 0);
  CHECK(zi.wp > zi.start); /* fast.sst's zone: the first choice went to the writer that committed */
  check_file(fs, "/db/slow.sst", 5, 128 << 10);
  owner_close_and_check(fs, &o, "/db/fast.sst");
  zfs_set_allocator(fs, NULL, NULL);
  blocker_destroy(&p.b);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A policy that answers NeedGc (with a zone to finish) at first, then the highest zone with room. */
typedef struct need_gc_policy {
  int calls, need_gc_answers; /* calls for file writes (GC's migrations ask too, answered plainly) */
  uint32_t finish;            /* the zone its NeedGc names to finish first */
} need_gc_policy;

static int need_gc_allocator(void *ctx, const zfs_alloc_request *req, const zfs_view *view, zfs_alloc_decision *out) {
  need_gc_policy *p = ctx;
  if (!req->for_gc && p->calls++ < p->need_gc_answers) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_NEED_GC, .n_finish = 1, .finish = {p->finish}};
    return 0;
  }
  return highest_zone(view, out);
}

/* NeedGc means: collect, then ask again; the zones it names to finish are finished. */
static void test_need_gc_collects_then_asks_again(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  tp_set_gc_level(fs, 0); /* only the writer's collection */
  make_garbage(fs);
  zfs_set_allocator(fs, packing_allocator, NULL);
  write_file(fs, "/db/part.sst", 50, 64 << 10, 0); /* leaves a partly written zone nobody holds */
  need_gc_policy p = {.need_gc_answers = 1};
  zfs_zone_info zi;
  for (p.finish = 0; p.finish < GEO.nr_zones; p.finish++) {
    CHECK_EQ(zfs_zone_info_get(fs, p.finish, &zi), 0);
    if (!zi.meta && !zi.busy && zi.wp > zi.start && zi.wp < zi.start + zi.capacity) break;
  }
  CHECK(p.finish < GEO.nr_zones);
  zfs_set_allocator(fs, need_gc_allocator, &p);
  zfs_stats before, after;
  zfs_stats_get(fs, &before);
  write_file(fs, "/db/next.sst", 51, 64 << 10, 0);
  zfs_stats_get(fs, &after);
  CHECK_EQ(p.calls, 2);                    /* NeedGc, then the zone after the collection */
  CHECK(after.gc_bytes > before.gc_bytes); /* the writer collected */
  CHECK_EQ(after.fallback_allocations, before.fallback_allocations);
  CHECK_EQ(zfs_zone_info_get(fs, p.finish, &zi), 0);
  /* Finished as the decision said: full, or, being nearly all garbage then, collected and reset;
   * without the finish it would still hold its 64 KiB partly written. */
  CHECK(zi.wp == zi.start + zi.capacity || zi.wp == zi.start);
  check_file(fs, "/db/next.sst", 51, 64 << 10);
  check_file(fs, "/db/part.sst", 50, 64 << 10);
  check_file(fs, "/db/g1.sst", 41, GEO.zone_cap / 2);
  /* NeedGc with nothing left to collect: the built-in rule places the data, counted. */
  p = (need_gc_policy){.need_gc_answers = 1000, .finish = GEO.nr_zones - 1};
  zfs_stats_get(fs, &before);
  write_file(fs, "/db/last.sst", 52, 64 << 10, 0);
  zfs_stats_get(fs, &after);
  CHECK_EQ(after.fallback_allocations, before.fallback_allocations + 1);
  check_file(fs, "/db/last.sst", 52, 64 << 10);
  zfs_set_allocator(fs, NULL, NULL);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* What the policy is shown: the writer holding a zone and the bytes the asking writer will write. */
typedef struct seen_policy {
  uint64_t owner_seen, expected_size;
  int calls;
} seen_policy;

static int recording_allocator(void *ctx, const zfs_alloc_request *req, const zfs_view *view, zfs_alloc_decision *out) {
  seen_policy *p = ctx;
  if (p->calls++ == 0) {
    p->expected_size = req->expected_size;
    for (uint32_t z = 0; z < view->n_zones; z++)
      if (view->zones[z].owner_file != ZFS_NO_OWNER) p->owner_seen = view->zones[z].owner_file;
  }
  return highest_zone(view, out);
}

static void test_view_shows_owners_and_expected_size(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  owner_file o = owner_open(fs, "/db/owner.sst", 25);
  uint64_t owner_id = file_named_id(fs, "/db/owner.sst");
  seen_policy p = {.owner_seen = ZFS_NO_OWNER};
  zfs_set_allocator(fs, recording_allocator, &p);
  call c = {fs, "/db/new.sst", 0, 0};
  write_new_file(&c); /* 128 KiB, one write-out at the sync */
  CHECK_EQ(c.rc, 0);
  CHECK_EQ(p.owner_seen, owner_id);
  CHECK_EQ(p.expected_size, 128u << 10);
  zfs_set_allocator(fs, NULL, NULL);
  owner_close_and_check(fs, &o, "/db/owner.sst");
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* zfs_inspect_view hands the caller the policies' view without the file system's lock: every
 * zone, and the owner file's live bytes (its writer still open) where its data is; the callback's
 * result is returned. */
typedef struct inspected {
  zfs *fs;
  uint64_t file_id;
  uint32_t zones;
  uint64_t live;
  int lock_was_free;
} inspected;

static int inspect(void *ctx, const zfs_view *view) {
  inspected *in = ctx;
  in->zones = view->n_zones;
  for (size_t i = 0; i < view->n_files; i++)
    if (view->files[i].file_id == in->file_id) in->live += view->files[i].live;
  in->lock_was_free = pthread_mutex_trylock(&in->fs->mu) == 0;
  if (in->lock_was_free) pthread_mutex_unlock(&in->fs->mu);
  return 7;
}

static void test_inspected_view_is_the_policies_view_without_the_lock(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  owner_file o = owner_open(fs, "/db/owner.sst", 33);
  inspected in = {fs, file_named_id(fs, "/db/owner.sst"), 0, 0, 0};
  zkv_geometry g;
  CHECK_EQ(zkv_dev_geometry(d, &g), 0);
  CHECK_EQ(zfs_inspect_view(fs, inspect, &in), 7);
  CHECK_EQ(in.zones, g.nr_zones);
  CHECK_EQ(in.live, o.size);
  CHECK(in.lock_was_free);
  owner_close_and_check(fs, &o, "/db/owner.sst");
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Installing a policy waits for a call-out under way, so the old policy's context may be freed
 * when it returns. */
typedef struct swap_call {
  zfs *fs;
  int returned;
} swap_call;

static void *uninstall_allocator(void *arg) {
  swap_call *s = arg;
  zfs_set_allocator(s->fs, NULL, NULL);
  __atomic_store_n(&s->returned, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void test_installing_waits_for_callouts(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  blocker b;
  blocker_init(&b);
  zfs_set_allocator(fs, blocking_allocator, &b);
  blocker_arm(&b);
  call c = {fs, "/db/x.sst", 0, 0};
  pthread_t writer, swapper;
  CHECK_EQ(pthread_create(&writer, NULL, write_new_file, &c), 0);
  blocker_wait_entered(&b);
  swap_call s = {fs, 0};
  CHECK_EQ(pthread_create(&swapper, NULL, uninstall_allocator, &s), 0);
  usleep(100000); /* not proof of waiting, only a chance to return too early */
  CHECK_EQ(__atomic_load_n(&s.returned, __ATOMIC_ACQUIRE), 0);
  blocker_release(&b);
  CHECK_EQ(pthread_join(swapper, NULL), 0);
  CHECK_EQ(pthread_join(writer, NULL), 0);
  CHECK_EQ(c.rc, 0);
  CHECK_EQ(b.timed_out, 0);
  blocker_destroy(&b);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* ---------- metadata writes without the file system's lock ---------- */

typedef struct sync_call {
  zfs_file *f;
  int rc;
} sync_call;

static void *sync_file(void *arg) {
  sync_call *c = arg;
  __atomic_store_n(&c->rc, zfs_sync(c->f), __ATOMIC_RELEASE);
  return NULL;
}

typedef struct write_out_call {
  zfs *fs;
  owner_file *o;
  int done;
} write_out_call;

/* A write-out of the owner's whole buffer (1 MiB: no sync) and a read of what it wrote. */
static void *owner_write_out_and_read(void *arg) {
  write_out_call *c = arg;
  size_t n = 1 << 20;
  uint8_t *buf = malloc(n), *back = malloc(n);
  CHECK(buf && back);
  fill(buf, c->o->seed, c->o->size, n);
  CHECK_EQ(zfs_append(c->o->f, buf, n), 0);
  CHECK_EQ(zfs_pread(c->o->f, c->o->size, back, n), (int64_t)n);
  CHECK(memcmp(buf, back, n) == 0);
  c->o->size += n;
  free(buf);
  free(back);
  __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* Where the log's next record will be reserved, or 0 when fs->mu cannot be had within a
 * millisecond: someone holds it (a sync writing its record under the lock, the deadlock the test
 * below is about, ends the test there instead of hanging it). */
static uint64_t log_reserved_end(zfs *fs) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += 1000 * 1000;
  if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
  if (pthread_mutex_timedlock(&fs->mu, &until)) return 0;
  uint64_t wp = fs->meta_wp;
  pthread_mutex_unlock(&fs->mu);
  return wp;
}

/* A metadata write another thread has reserved and not finished (a slow device write): its place
 * at the log's end, taken as reserve_record takes it. */
typedef struct stuck_record {
  uint64_t at, seq;
  size_t size;
} stuck_record;

static stuck_record stuck_record_begin(zfs *fs) {
  pthread_mutex_lock(&fs->mu);
  stuck_record r = {fs->meta_wp, ++fs->meta_seq, zfs_record_size(4, fs->g.lba_size)};
  fs->meta_wp += r.size;
  fs->st.meta_bytes += r.size;
  pthread_mutex_unlock(&fs->mu);
  return r;
}

/* Writes it (an empty zone labels record, harmless on replay) and lets the log go on. */
static void stuck_record_end(zfs *fs, const stuck_record *r) {
  uint8_t payload[4] = {0}, *rec = malloc(r->size);
  CHECK(rec != NULL);
  CHECK(zfs_record_encode(ZFS_REC_ZONE_LABELS, r->seq, payload, 4, fs->g.lba_size, rec, r->size) >= 0);
  CHECK_EQ(zkv_dev_write(fs->dev, r->at, rec, r->size, ZKV_IO_FUA), 0);
  free(rec);
  pthread_mutex_lock(&fs->meta_mu);
  fs->meta_done = r->at + r->size;
  pthread_cond_broadcast(&fs->meta_progress);
  pthread_mutex_unlock(&fs->meta_mu);
}

/* While the log is held up by `stuck`, a call that came after it (whose result `waiting_rc` stays 1
 * until it returns) has reserved its record; another file's writer must then write a buffer out
 * and read it back before the log goes on. Ends the stuck record; returns whether the writer got
 * through while it was stuck. The reservation is asserted on the value the poll saw: a second look
 * could find fs->mu held for over a millisecond by a thread the host preempted (the GC worker's
 * or the WAL reserve's round on a loaded host) and read 0. */
static int owner_progresses_behind_stuck_log(zfs *fs, owner_file *o, const stuck_record *stuck, const int *waiting_rc) {
  uint64_t reserved_end = 0;
  for (int i = 0; i < BLOCK_BOUND_SECONDS * 1000 && (reserved_end = log_reserved_end(fs)) <= stuck->at + stuck->size;
       i++)
    usleep(1000);
  CHECK(reserved_end > stuck->at + stuck->size); /* the call's record is reserved, waits its turn */
  write_out_call w = {fs, o, 0};
  pthread_t tw;
  CHECK_EQ(pthread_create(&tw, NULL, owner_write_out_and_read, &w), 0);
  for (int i = 0; i < BLOCK_BOUND_SECONDS * 1000 && !__atomic_load_n(&w.done, __ATOMIC_ACQUIRE); i++) usleep(1000);
  int progressed = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE);
  CHECK_EQ(__atomic_load_n(waiting_rc, __ATOMIC_ACQUIRE), 1); /* the call still waits for the log */
  stuck_record_end(fs, stuck);
  CHECK_EQ(pthread_join(tw, NULL), 0);
  return progressed;
}

/* A sync's metadata record is written without the file system's lock: while the log is busy with
 * a slow write that came first, the sync waits for its turn holding no lock, and another file's
 * writer meanwhile writes its buffer out into the zone it owns and reads it back. (With records
 * written under fs->mu, the other writer's write-out waited for the log.) */
static void test_sync_record_is_written_without_the_lock(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  owner_file o = owner_open(fs, "/db/owner.sst", 31);
  int rc = 0;
  zfs_file *a = zfs_create(fs, "/db/a.sst", 3, &rc);
  CHECK(a != NULL);
  uint8_t buf[8192];
  fill(buf, 32, 0, sizeof buf);
  CHECK_EQ(zfs_append(a, buf, sizeof buf), 0);
  stuck_record stuck = stuck_record_begin(fs);
  sync_call s = {a, 1};
  pthread_t ts;
  CHECK_EQ(pthread_create(&ts, NULL, sync_file, &s), 0);
  int progressed = owner_progresses_behind_stuck_log(fs, &o, &stuck, &s.rc);
  CHECK_EQ(pthread_join(ts, NULL), 0);
  CHECK(progressed);
  CHECK_EQ(s.rc, 0);
  CHECK_EQ(zfs_close(a), 0);
  owner_close_and_check(fs, &o, "/db/owner.sst");
  check_file(fs, "/db/a.sst", 32, sizeof buf);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  fs = mount_ok(d); /* the records, written in reservation order, replay */
  check_file(fs, "/db/a.sst", 32, sizeof buf);
  check_file(fs, "/db/owner.sst", 31, o.size);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A namespace change's records, and the resets of the zones it empties, are written without the
 * file system's lock: while the log is busy with a slow write that came first, a create, a rename
 * and a delete (of a file whose zone it empties) wait for their turn holding no lock, and another
 * file's writer meanwhile writes out into the zone it owns and reads it back. Each change is
 * complete when its call returns: the deleted file's zone is reset, and a mount replays all three. */
enum { CHANGE_CREATE, CHANGE_RENAME, CHANGE_DELETE };

#define CLOSED_FILE_SIZE 8192

/* A file written and closed: its zone, partly written, is nobody's now. */
static void write_closed_file(zfs *fs, const char *name, uint64_t seed) {
  uint8_t buf[CLOSED_FILE_SIZE];
  fill(buf, seed, 0, sizeof buf);
  int rc = 0;
  zfs_file *f = zfs_create(fs, name, 3, &rc);
  CHECK(f != NULL);
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_close(f), 0);
}
typedef struct namespace_call {
  zfs *fs;
  int change;
  int rc;
  zfs_file *created;
} namespace_call;

static void *change_namespace(void *arg) {
  namespace_call *c = arg;
  int rc = 0;
  if (c->change == CHANGE_CREATE) {
    c->created = zfs_create(c->fs, "/db/new.sst", 3, &rc);
  } else if (c->change == CHANGE_RENAME) {
    rc = zfs_rename(c->fs, "/db/a.sst", "/db/b.sst");
  } else {
    rc = zfs_delete(c->fs, "/db/gone.sst");
  }
  __atomic_store_n(&c->rc, rc, __ATOMIC_RELEASE);
  return NULL;
}

static void test_namespace_records_and_resets_are_written_without_the_lock(void) {
  for (int change = CHANGE_CREATE; change <= CHANGE_DELETE; change++) {
    zkv_dev *d;
    zfs *fs = fresh_mount(&d);
    owner_file o = owner_open(fs, "/db/owner.sst", 41);
    write_closed_file(fs, "/db/a.sst", 42);
    write_closed_file(fs, "/db/gone.sst", 42);
    zfs_stats before;
    CHECK_EQ(zfs_stats_get(fs, &before), 0);
    stuck_record stuck = stuck_record_begin(fs);
    namespace_call c = {fs, change, 1, NULL};
    pthread_t tc;
    CHECK_EQ(pthread_create(&tc, NULL, change_namespace, &c), 0);
    int progressed = owner_progresses_behind_stuck_log(fs, &o, &stuck, &c.rc);
    CHECK_EQ(pthread_join(tc, NULL), 0);
    CHECK(progressed);
    CHECK_EQ(c.rc, 0);
    zfs_stats after;
    CHECK_EQ(zfs_stats_get(fs, &after), 0);
    CHECK_EQ(after.resets - before.resets, change == CHANGE_DELETE ? 1u : 0u); /* done when delete returned */
    if (c.created) CHECK_EQ(zfs_close(c.created), 0);
    owner_close_and_check(fs, &o, "/db/owner.sst");
    CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
    zfs_unmount(fs);
    fs = mount_ok(d); /* the records, written in reservation order, replay */
    check_file(fs, change == CHANGE_RENAME ? "/db/b.sst" : "/db/a.sst", 42, CLOSED_FILE_SIZE);
    CHECK_EQ(zfs_stat(fs, "/db/gone.sst", NULL), change == CHANGE_DELETE ? -ENOENT : 0);
    CHECK_EQ(zfs_stat(fs, "/db/new.sst", NULL), change == CHANGE_CREATE ? 0 : -ENOENT);
    check_file(fs, "/db/owner.sst", 41, o.size);
    zfs_unmount(fs);
    zkv_dev_close(d);
  }
}

/* The namespace and the zones have locks of their own: with the zones' lock held (an allocation
 * being carried out), open, stat and list answer; with the namespace's held (a long listing), a
 * writer writes out into the zone it owns, syncs and reads back. */
typedef struct lookup_call {
  zfs *fs;
  zfs_file *opened;
  uint64_t size;
  int listed, done;
} lookup_call;

static void count_listed(const char *name, uint64_t size, void *arg) {
  (void)name, (void)size;
  ((lookup_call *)arg)->listed++;
}

static void *look_up(void *arg) {
  lookup_call *c = arg;
  int rc = 0;
  c->opened = zfs_open(c->fs, "/db/a.sst", &rc);
  CHECK_EQ(rc, 0);
  CHECK_EQ(zfs_stat(c->fs, "/db/a.sst", &c->size), 0);
  CHECK_EQ(zfs_list(c->fs, "/db/", count_listed, c), 0);
  __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *write_out_and_sync(void *arg) {
  write_out_call *c = arg;
  owner_write_out_and_read(c);
  CHECK_EQ(zfs_sync(c->o->f), 0);
  __atomic_store_n(&c->done, 2, __ATOMIC_RELEASE);
  return NULL;
}

static void test_namespace_and_zones_have_their_own_locks(void) {
  zkv_dev *d;
  zfs *fs = fresh_mount(&d);
  owner_file o = owner_open(fs, "/db/owner.sst", 51);
  write_closed_file(fs, "/db/a.sst", 52);

  pthread_mutex_lock(&fs->mu);
  lookup_call l = {fs, NULL, 0, 0, 0};
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, look_up, &l), 0);
  for (int i = 0; i < BLOCK_BOUND_SECONDS * 1000 && !__atomic_load_n(&l.done, __ATOMIC_ACQUIRE); i++) usleep(1000);
  int looked_up = __atomic_load_n(&l.done, __ATOMIC_ACQUIRE);
  pthread_mutex_unlock(&fs->mu);
  CHECK_EQ(pthread_join(t, NULL), 0);
  CHECK(looked_up);
  CHECK_EQ(l.size, CLOSED_FILE_SIZE);
  CHECK_EQ(l.listed, 2);
  CHECK_EQ(zfs_close(l.opened), 0);

  pthread_mutex_lock(&fs->ns_mu);
  write_out_call w = {fs, &o, 0};
  CHECK_EQ(pthread_create(&t, NULL, write_out_and_sync, &w), 0);
  for (int i = 0; i < BLOCK_BOUND_SECONDS * 1000 && __atomic_load_n(&w.done, __ATOMIC_ACQUIRE) != 2; i++) usleep(1000);
  int wrote = __atomic_load_n(&w.done, __ATOMIC_ACQUIRE) == 2;
  pthread_mutex_unlock(&fs->ns_mu);
  CHECK_EQ(pthread_join(t, NULL), 0);
  CHECK(wrote);
  owner_close_and_check(fs, &o, "/db/owner.sst");
  check_file(fs, "/db/a.sst", 52, CLOSED_FILE_SIZE);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_decisions seed=%llu\n", (unsigned long long)rng);
  test_blocked_placement_policy_lets_others_write();
  test_blocked_victim_policy_lets_others_write();
  test_blocked_gc_trigger_lets_others_write();
  test_stale_decision_is_asked_again();
  test_need_gc_collects_then_asks_again();
  test_view_shows_owners_and_expected_size();
  test_inspected_view_is_the_policies_view_without_the_lock();
  test_installing_waits_for_callouts();
  test_sync_record_is_written_without_the_lock();
  test_namespace_records_and_resets_are_written_without_the_lock();
  test_namespace_and_zones_have_their_own_locks();
  remove_temp_dir();
  TEST_DONE("test_zonefs_decisions");
  return 0;
}
