/* Zone allocation: the active-zone limit and a full device, an external placement policy and
 * the checks on its decisions, and the reserves a policy cannot take. */
#include "zfs_fixture.h"

static void test_active_limit_and_full_device(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  enum { W = 9 };
  zfs_file *w[W];
  uint8_t *buf = malloc(1 << 20);
  for (int i = 0; i < W; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/w%d.sst", i);
    int rc = 0;
    w[i] = zfs_create(fs, name, (uint32_t)(2 + i % 4), &rc);
    CHECK(w[i] != NULL);
  }
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < W; i++) {
      fill(buf, 100 + (uint64_t)i, (uint64_t)round << 20, 1 << 20);
      CHECK_EQ(zfs_append(w[i], buf, 1 << 20), 0);
      CHECK_EQ(zfs_sync(w[i]), 0);
    }
  for (int i = 0; i < W; i++) CHECK_EQ(zfs_close(w[i]), 0);
  /* contents intact */
  for (int i = 0; i < W; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/w%d.sst", i);
    check_file(fs, name, 100 + (uint64_t)i, 3 << 20);
  }
  /* fill the device: the error is ENOSPC, nothing already written is harmed */
  int rc = 0, filled = 0;
  zfs_file *f = zfs_create(fs, "/db/filler", 2, &rc);
  CHECK(f != NULL);
  for (int i = 0; i < 200 && !rc; i++) {
    fill(buf, 999, (uint64_t)i << 20, 1 << 20);
    rc = zfs_append(f, buf, 1 << 20);
    filled += !rc;
  }
  CHECK_EQ(rc, -ENOSPC);
  CHECK(filled > 20);
  zfs_close(f);
  CHECK_EQ(zfs_delete(fs, "/db/filler"), 0);
  for (int i = 0; i < W; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/w%d.sst", i);
    check_file(fs, name, 100 + (uint64_t)i, 3 << 20);
    CHECK_EQ(zfs_delete(fs, name), 0);
  }
  /* after deletes, writes resume */
  write_file(fs, "/db/again.sst", 8, 5 << 20, 0);
  check_file(fs, "/db/again.sst", 8, 5 << 20);
  free(buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}
typedef struct test_policy {
  int mode; /* 0 highest zone, 1 a meta zone (invalid), 2 no space, 3 lowest empty zone finishing the rest */
  int calls;
  uint64_t last_file;
  zfs *fs;             /* mode 4: tags the zones it opens and reads the view's files */
  uint64_t live_of[8]; /* mode 4: live bytes reported per file id (ids below 8) */
  uint32_t zone_of[8]; /* ... and the last zone reported for it */
  int report_rc;
} test_policy;

static int test_allocator(void *ctx, const zfs_alloc_request *req, const zfs_view *view, zfs_alloc_decision *out) {
  const zfs_zone_info *zones = view->zones;
  uint32_t n = view->n_zones;
  test_policy *p = ctx;
  p->calls++;
  p->last_file = req->file_id;
  if (p->mode == 1) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_USE, .zone = 0};
    return 0;
  }
  if (p->mode == 2) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_NO_SPACE};
    return 0;
  }
  if (p->mode == 4) {
    memset(p->live_of, 0, sizeof p->live_of);
    for (size_t i = 0; i < view->n_files; i++) {
      const zfs_zone_file *zf = &view->files[i];
      if (zf->file_id < 8) p->live_of[zf->file_id] += zf->live, p->zone_of[zf->file_id] = zf->zone;
      if (zf->file_id < 8 && strncmp(zf->name, "/db/", 4) != 0) p->report_rc = -EINVAL; /* names in the view */
    }
    for (uint32_t z = 0; z < n; z++)
      if (!zones[z].meta && !zones[z].busy && zones[z].wp == zones[z].start) {
        *out = (zfs_alloc_decision){.action = ZFS_ALLOC_OPEN_EMPTY,
                                    .zone = z,
                                    .has_tag = 1,
                                    .tag = (int32_t)(100 + z),
                                    .has_lifetime = 1,
                                    .lifetime = 5};
        return 0;
      }
    out->action = ZFS_ALLOC_NO_SPACE;
    return 0;
  }
  if (p->mode == 3) {
    *out = (zfs_alloc_decision){.action = ZFS_ALLOC_NO_SPACE};
    for (uint32_t z = 0; z < n; z++) {
      if (zones[z].meta || zones[z].busy) continue;
      if (zones[z].wp == zones[z].start && out->action != ZFS_ALLOC_OPEN_EMPTY) {
        out->action = ZFS_ALLOC_OPEN_EMPTY;
        out->zone = z;
      } else if (zones[z].wp > zones[z].start && zones[z].wp < zones[z].start + zones[z].capacity &&
                 out->n_finish < ZFS_ALLOC_MAX_FINISH) {
        out->finish[out->n_finish++] = z;
      }
    }
    return 0;
  }
  for (uint32_t z = n; z-- > 0;) {
    if (zones[z].meta || zones[z].busy || zones[z].wp - zones[z].start >= zones[z].capacity) continue;
    out->action = zones[z].wp == zones[z].start ? ZFS_ALLOC_OPEN_EMPTY : ZFS_ALLOC_USE;
    out->zone = z;
    return 0;
  }
  out->action = ZFS_ALLOC_NO_SPACE;
  return 0;
}

/* The file of a name, as zfs_walk_files shows it: its id and the zone of its first extent. */
typedef struct named_file {
  const char *name;
  uint64_t id;
  int64_t zone;
} named_file;

static void match_name(const zfs_file_meta *m, void *arg) {
  named_file *n = arg;
  if (!m->n_names || strcmp(m->names[0], n->name) != 0) return;
  n->id = m->id;
  if (m->n_extents) n->zone = (int64_t)(m->extents[0].start / GEO.zone_size);
}

static named_file file_named(zfs *fs, const char *name) {
  named_file n = {name, UINT64_MAX, -1};
  CHECK_EQ(zfs_walk_files(fs, match_name, &n), 0);
  return n;
}

static uint64_t file_id_of(zfs *fs, const char *name) { return file_named(fs, name).id; }

static void record_zones(const zfs_file_meta *m, void *arg) {
  uint32_t *lowest = arg;
  for (uint32_t i = 0; i < m->n_extents; i++) {
    uint32_t z = (uint32_t)(m->extents[i].start / GEO.zone_size);
    if (z < *lowest) *lowest = z;
  }
}

/* The file system asks the installed policy at every allocation, and checks what it answers. */
static void test_external_allocator(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  test_policy p = {0};
  zfs_set_allocator(fs, test_allocator, &p);
  write_file(fs, "/db/p.sst", 41, 4 << 20, 0); /* two zones' worth: two allocations at least */
  CHECK(p.calls >= 2);
  uint32_t lowest = UINT32_MAX;
  zfs_walk_files(fs, record_zones, &lowest);
  CHECK(lowest >= GEO.nr_zones - 2); /* the policy's choice, not the safety rule's (zone 3 up) */
  check_file(fs, "/db/p.sst", 41, 4 << 20);
  zfs_stats s;
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  CHECK_EQ(s.fallback_allocations, 0);
  p.mode = 1; /* a policy bug: a meta zone; the safety rule places the data instead, counted */
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/bad.sst", 3, &rc);
  uint8_t buf[8192] = {1};
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), 0);
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  CHECK_EQ(s.overrides[ZFS_OVERRIDE_INVALID], 1);
  CHECK_EQ(s.fallback_allocations, 1);
  CHECK(file_named(fs, "/db/bad.sst").zone >= 3); /* never the metadata zone it named */
  CHECK_EQ(zfs_close(f), 0);
  f = zfs_create(fs, "/db/bad.sst", 3, &rc); /* a new writer: a new allocation */
  p.mode = 2; /* the policy finds no zone, but zones have room: the safety rule places the data */
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), 0);
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  CHECK_EQ(s.overrides[ZFS_OVERRIDE_NO_SPACE], 1);
  CHECK_EQ(zfs_close(f), 0);
  zfs_set_allocator(fs, NULL, NULL); /* no policy: the safety rule, counted */
  f = zfs_create(fs, "/db/bad.sst", 3, &rc);
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), 0);
  CHECK_EQ(zfs_close(f), 0);
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  CHECK_EQ(s.overrides[ZFS_OVERRIDE_NO_POLICY], 1);
  CHECK_EQ(s.fallback_allocations, 3);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* zfs_set_strict_no_space: the policy's NoSpace for a data file stands (ZenFS's answer), with
 * nothing to collect; RocksDB's metadata files keep the safety rule; turned off, the rule is back. */
static void test_strict_no_space(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  test_policy p = {.mode = 2}; /* always NoSpace, while every zone has room */
  zfs_set_allocator(fs, test_allocator, &p);
  CHECK_EQ(zfs_set_strict_no_space(fs, 1), 0);
  uint8_t buf[8192] = {7};
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/000012.sst", 3, &rc);
  CHECK(f != NULL);
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), -ENOSPC);
  zfs_close(f);
  zfs_file *w = zfs_create(fs, "/db/000013.log", 3, &rc);
  CHECK(w != NULL);
  CHECK_EQ(zfs_append(w, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(w), -ENOSPC);
  zfs_close(w);
  zfs_stats s;
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  CHECK_EQ(s.overrides[ZFS_OVERRIDE_NO_SPACE], 0);
  zfs_file *m = zfs_create(fs, "/db/MANIFEST-000001", 0, &rc);
  CHECK(m != NULL);
  CHECK_EQ(zfs_append(m, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(m), 0);
  CHECK_EQ(zfs_close(m), 0);
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  CHECK_EQ(s.overrides[ZFS_OVERRIDE_NO_SPACE], 1);
  CHECK_EQ(zfs_set_strict_no_space(fs, 0), 0);
  write_file(fs, "/db/000014.sst", 71, 64 << 10, 0);
  check_file(fs, "/db/000014.sst", 71, 64 << 10);
  CHECK_EQ(zfs_stats_get(fs, &s), 0);
  CHECK_EQ(s.overrides[ZFS_OVERRIDE_NO_SPACE], 2);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A policy sees which file has what in each zone (the zone view's files), and the tag and lifetime
 * it gives a zone it opens stay on the zone, across a remount, until the zone is reset. */
static void test_callout_sees_files_per_zone_and_keeps_tags(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  test_policy p = {.mode = 4, .fs = fs};
  zfs_set_allocator(fs, test_allocator, &p);
  write_file(fs, "/db/a.sst", 5, 4 << 20, 0); /* more than a zone: two zones */
  write_file(fs, "/db/b.sst", 6, 1 << 20, 0);
  uint64_t a = file_id_of(fs, "/db/a.sst"), b = file_id_of(fs, "/db/b.sst");
  CHECK(a < 8 && b < 8);
  write_file(fs, "/db/c.sst", 7, 64 << 10, 0); /* its allocation takes the report */
  CHECK_EQ(p.report_rc, 0);
  CHECK_EQ(p.live_of[a], 4u << 20);
  CHECK_EQ(p.live_of[b], 1u << 20);
  zfs_zone_info zi;
  CHECK_EQ(zfs_zone_info_get(fs, p.zone_of[b], &zi), 0);
  CHECK_EQ(zi.tag, (int32_t)(100 + p.zone_of[b]));
  uint32_t zb = p.zone_of[b];
  CHECK_EQ(zfs_delete(fs, "/db/b.sst"), 0); /* its zone empties and is reset: the tag goes */
  CHECK_EQ(zfs_zone_info_get(fs, zb, &zi), 0);
  CHECK_EQ(zi.wp, zi.start);
  CHECK_EQ(zi.tag, -1);
  uint32_t za = p.zone_of[a];
  zfs_stats st;
  zfs_stats_get(fs, &st);
  CHECK_EQ(st.policy_decisions, (uint64_t)p.calls);
  zfs_unmount(fs); /* the tag of a's zone is in the metadata log and survives a remount */
  fs = mount_ok(d);
  zfs_stats_get(fs, &st); /* so do the placement counts, as totals since format */
  CHECK_EQ(st.policy_decisions, 0);
  CHECK_EQ(st.policy_decisions_total, (uint64_t)p.calls);
  CHECK_EQ(zfs_zone_info_get(fs, za, &zi), 0);
  CHECK_EQ(zi.tag, (int32_t)(100 + za));
  CHECK_EQ(zi.lifetime, 5u); /* the policy's, not the files' (3) */
  CHECK_EQ(zfs_zone_info_get(fs, zb, &zi), 0);
  CHECK_EQ(zi.tag, -1);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Only the reserved empty zones are left and one zone has room: a policy asking for an empty zone
 * (and finishing the partly written one to get a token, as LIZA does) must not make the write fail
 * or waste that room. The file system writes into the room instead and finishes nothing. */
static void test_policy_refused_the_reserve(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint64_t cap = GEO.zone_cap, data_zones = GEO.nr_zones - 3;
  write_file(fs, "/db/big.sst", 61, (data_zones - 2) * cap - cap / 2, 0);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.empty_zones, 2);
  test_policy p = {.mode = 3};
  zfs_set_allocator(fs, test_allocator, &p);
  write_file(fs, "/db/small.sst", 62, cap / 4, 0);
  CHECK(p.calls >= 1);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.empty_zones, 2); /* the reserves are intact */
  CHECK_EQ(s.open_zones, 1);  /* the room was used, not finished */
  check_file(fs, "/db/small.sst", 62, cap / 4);
  check_file(fs, "/db/big.sst", 61, (data_zones - 2) * cap - cap / 2);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* ---------- zone ownership ---------- */

typedef struct zone_masks {
  const char *names[8];
  uint32_t bits[8]; /* zones each named file has extents in (24 zones fit) */
  int n;
} zone_masks;

static void collect_masks(const zfs_file_meta *m, void *arg) {
  zone_masks *zm = arg;
  for (int i = 0; i < zm->n; i++)
    if (strcmp(m->names[0], zm->names[i]) == 0)
      for (uint32_t k = 0; k < m->n_extents; k++) zm->bits[i] |= 1u << (m->extents[k].start / GEO.zone_size);
}

/* Interleaves synced 64 KiB appends of `n` open writers (each sync writes the file's data out, so
 * every writer allocates while the others hold zones), checks the data, and returns the zones
 * each file has extents in. */
static zone_masks write_interleaved(zfs *fs, int n, int rounds, uint32_t *owned_while_open) {
  static char names[8][32];
  zone_masks zm = {.n = n};
  zfs_file *w[8];
  int rc = 0;
  for (int i = 0; i < n; i++) {
    snprintf(names[i], sizeof names[i], "/db/w%d.sst", i);
    zm.names[i] = names[i];
    CHECK((w[i] = zfs_create(fs, names[i], 3, &rc)) != NULL);
  }
  uint8_t *buf = malloc(64 << 10);
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < n; i++) {
      fill(buf, 700 + (uint64_t)i, (uint64_t)r * (64 << 10), 64 << 10);
      CHECK_EQ(zfs_append(w[i], buf, 64 << 10), 0);
      CHECK_EQ(zfs_sync(w[i]), 0);
    }
  free(buf);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  *owned_while_open = s.owned_zones;
  for (int i = 0; i < n; i++) CHECK_EQ(zfs_close(w[i]), 0);
  for (int i = 0; i < n; i++) check_file(fs, names[i], 700 + (uint64_t)i, (uint64_t)rounds * (64 << 10));
  zfs_walk_files(fs, collect_masks, &zm);
  return zm;
}

/* ZenFS's ownership: a writer holds its zone from allocation to close, so files written at the same
 * time never share a zone while open tokens allow (GEO: max open 6, 2 kept back: 4 writers). The
 * zones go back at close, explicitly closed on the device (still active, no longer open). Under
 * the tests' LIZA, another policy and the safety rule alone (no policy) alike. */
static void test_writers_own_their_zones(void) {
  for (int mode = 0; mode < 3; mode++) { /* the tests' LIZA, test_allocator, no policy */
    fresh("");
    zkv_dev *d = open_dev();
    zfs *fs = mount_ok(d);
    test_policy p = {0};
    if (mode > 0) zfs_set_allocator(fs, mode == 1 ? test_allocator : NULL, mode == 1 ? &p : NULL);
    uint32_t owned = 0;
    zone_masks zm = write_interleaved(fs, 4, 12, &owned);
    CHECK_EQ(owned, 4);
    uint32_t all = 0;
    for (int i = 0; i < zm.n; i++) {
      CHECK(zm.bits[i] != 0);
      CHECK_EQ(zm.bits[i] & all, 0); /* no zone shared with another file */
      all |= zm.bits[i];
    }
    zfs_stats s;
    zfs_stats_get(fs, &s);
    CHECK_EQ(s.owned_zones, 0);
    CHECK_EQ(s.zone_steals, 0);
    CHECK_EQ(s.policy_decisions, mode < 2 ? 4u : 0u); /* one allocation per file */
    CHECK_EQ(s.overrides[ZFS_OVERRIDE_NO_POLICY], mode < 2 ? 0u : 4u);
    CHECK_EQ(s.fallback_allocations, mode < 2 ? 0u : 4u);
    zkv_zone rep[24];
    CHECK_EQ(zkv_dev_report(d, 0, rep, GEO.nr_zones), (int)GEO.nr_zones);
    for (uint32_t z = 0; z < GEO.nr_zones; z++)
      if (all & (1u << z)) CHECK_EQ(rep[z].cond, ZKV_ZONE_CLOSED);
    zfs_unmount(fs);
    zkv_dev_close(d);
  }
}

/* More writers than open tokens: writing goes on (a writer takes the zone of the owner that wrote
 * least recently and is not writing, and says so in zone_steals), and every byte reads back. */
static void test_more_writers_than_tokens(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  uint32_t owned = 0;
  write_interleaved(fs, 6, 8, &owned);
  CHECK(owned <= 4);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK(s.zone_steals > 0);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A full zone goes back at once (its active token with it); the writer goes on in a new zone. */
static void test_full_zone_is_released(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/long.sst", 3, &rc);
  CHECK(f != NULL);
  uint64_t total = GEO.zone_cap + (2 << 20); /* whole MiB: the loop appends 1 MiB at a time */
  uint8_t *buf = malloc(1 << 20);
  for (uint64_t done = 0; done < total; done += 1 << 20) {
    fill(buf, 71, done, 1 << 20);
    CHECK_EQ(zfs_append(f, buf, 1 << 20), 0);
  }
  CHECK_EQ(zfs_sync(f), 0);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.full_zones, 1);
  CHECK_EQ(s.owned_zones, 1);
  CHECK_EQ(zfs_close(f), 0);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.owned_zones, 0);
  check_file(fs, "/db/long.sst", 71, total);
  free(buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A file deleted while its writer still holds a zone: the zone is not reset under the writer, and
 * is reset when the writer lets it go (nothing in it is live any more). */
static void test_zone_of_a_deleted_writer_resets_at_close(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  zfs_stats before, s;
  zfs_stats_get(fs, &before);
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/gone.sst", 3, &rc);
  uint8_t buf[8192] = {7};
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), 0);
  CHECK_EQ(zfs_delete(fs, "/db/gone.sst"), 0);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.empty_zones, before.empty_zones - 1); /* still held */
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_sync(f), 0);
  CHECK_EQ(zfs_close(f), 0);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.empty_zones, before.empty_zones);
  CHECK_EQ(s.resets_without_copy, before.resets_without_copy + 1);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* The zones holding data of WAL files (*.log). */
typedef struct wal_zones {
  uint8_t used[256];
} wal_zones;

static void collect_wal_zones(const zfs_file_meta *m, void *arg) {
  wal_zones *w = arg;
  size_t n = m->n_names ? strlen(m->names[0]) : 0;
  if (n < 4 || strcmp(m->names[0] + n - 4, ".log") != 0) return;
  for (uint32_t k = 0; k < m->n_extents; k++) w->used[m->extents[k].start / GEO.zone_size] = 1;
}

static int64_t zone_of_file_named(zfs *fs, const char *name) {
  int64_t zone = file_named(fs, name).zone;
  CHECK(zone >= 0);
  return zone;
}

/* 16 KiB of the seed's pattern (check_file reads it back), with the given lifetime hint. */
static void write_small(zfs *fs, const char *name, uint32_t lifetime, uint64_t seed) {
  int rc = 0;
  uint8_t buf[16384];
  zfs_file *f = zfs_create(fs, name, lifetime, &rc);
  CHECK(f != NULL);
  fill(buf, seed, 0, sizeof buf);
  CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
  CHECK_EQ(zfs_close(f), 0);
}

static uint64_t meta_set_reads(zkv_dev *d) {
  zkv_emu_plm_stats st;
  CHECK_EQ(zkv_emu_plm_stats_get(d, 1, &st), 0);
  return st.reads_deterministic + st.reads_nondeterministic;
}

/* `bytes` of the seed's pattern in 16 KiB appends; 0, or the first append's error. */
static int write_bytes(zfs *fs, const char *name, uint32_t lifetime, uint64_t seed, uint64_t bytes) {
  int rc = 0;
  uint8_t buf[16384];
  zfs_file *f = zfs_create(fs, name, lifetime, &rc);
  CHECK(f != NULL);
  for (uint64_t off = 0; !rc && off < bytes; off += sizeof buf) {
    fill(buf, seed, off, sizeof buf);
    rc = zfs_append(f, buf, sizeof buf);
  }
  if (!rc) rc = zfs_sync(f);
  int closed = zfs_close(f);
  return rc ? rc : closed;
}

/* A plmarray: over a new emulated PLM device of `zones` zones of 4 MiB (GEO: the device's). */
static zkv_dev *new_plm_array(uint32_t zones) {
  GEO =
      (zkv_geometry){.lba_size = 4096, .nr_zones = zones, .zone_size = 4 << 20, .zone_cap = 4 << 20, .zasl = 256 << 10};
  unlink(path);
  CHECK_EQ(zkv_emu_format(path, &GEO), 0);
  snprintf(uri, sizeof uri, "plmarray:emu:%s?profile=plm&clock=manual", path);
  return open_dev();
}

/* A plmarray: binds a zone to the meta set (WAL) or the kv-sets (SSTs) by its first write, so the
 * file system never gives a WAL's zone to an SST (or the other way round), even where the built-in
 * rule would share it (a WAL zone of a longer lifetime): the SST is read from the kv-sets only,
 * never from the meta set, where a Get would wait behind the WAL's writes. Also after a remount,
 * which derives the zones' classes from their files. On a plain device the same files share the
 * zone (the control). */
static void test_zones_bound_to_a_class(void) {
  zkv_geometry saved = GEO;
  /* 32 zones: 8 per NVM Set, 3 meta groups, too few for the 3 meta zones and a WAL zone. */
  zkv_dev *small = new_plm_array(32);
  CHECK_EQ(zfs_mkfs(small, NULL, err, sizeof err), -EINVAL);
  CHECK(strstr(err, "gives WAL and metadata 3 of its 11 zones") != NULL);
  zkv_dev_close(small);
  /* 64 zones: 7 meta groups (3 meta zones, 4 for the WAL) and 16 stripe groups. */
  GEO.nr_zones = 64;
  for (int array = 0; array < 2; array++) {
    unlink(path);
    CHECK_EQ(zkv_emu_format(path, &GEO), 0);
    snprintf(uri, sizeof uri, "%semu:%s?profile=plm&clock=manual", array ? "plmarray:" : "", path);
    zkv_dev *d = open_dev();
    zkv_geometry g;
    zkv_dev_geometry(d, &g);
    CHECK_EQ(!!(g.flags & ZKV_GEO_CLASS_BOUND_ZONES), array);
    CHECK_EQ(zfs_mkfs(d, NULL, err, sizeof err), 0);
    zfs *fs = mount_ok(d);
    GEO.zone_size = g.zone_size; /* the array's zones, for zone_of_file_named */
    write_small(fs, "/db/000001.log", 5, 5);
    write_small(fs, "/db/000002.sst", 3, 6);
    int64_t wal_zone = zone_of_file_named(fs, "/db/000001.log");
    if (!array) { /* the control: the scenario does share a zone where classes do not bind */
      CHECK_EQ(zone_of_file_named(fs, "/db/000002.sst"), wal_zone);
    } else {
      CHECK(zone_of_file_named(fs, "/db/000002.sst") != wal_zone);
      uint64_t before = meta_set_reads(d);
      check_file(fs, "/db/000002.sst", 6, 16384);
      CHECK_EQ(meta_set_reads(d), before);
      zfs_unmount(fs);
      fs = mount_ok(d);
      write_small(fs, "/db/000003.sst", 3, 7);
      CHECK(zone_of_file_named(fs, "/db/000003.sst") != wal_zone);
      write_small(fs, "/db/000004.log", 2, 8);
      CHECK(zone_of_file_named(fs, "/db/000004.log") != zone_of_file_named(fs, "/db/000003.sst"));
      check_file(fs, "/db/000001.log", 5, 16384);
      /* SSTs (each the lifetime of the zones before it: a new zone while the reserves allow) leave
       * the WAL class a zone of its own, and a second WAL takes over the first's while it idles. */
      char name[64];
      CHECK_EQ(zfs_delete(fs, "/db/000001.log"), 0); /* no WAL zone is left: theirs are reset */
      CHECK_EQ(zfs_delete(fs, "/db/000004.log"), 0);
      for (int k = 0; k < 24; k++) {
        snprintf(name, sizeof name, "/db/%06d.sst", 10 + k);
        write_small(fs, name, 3, (uint64_t)(10 + k));
      }
      int rc = 0;
      uint8_t buf[16384];
      zfs_file *w1 = zfs_create(fs, "/db/000100.log", 2, &rc), *w2 = zfs_create(fs, "/db/000101.log", 2, &rc);
      CHECK(w1 != NULL && w2 != NULL);
      fill(buf, 100, 0, sizeof buf);
      CHECK_EQ(zfs_append(w1, buf, sizeof buf), 0);
      CHECK_EQ(zfs_sync(w1), 0);
      fill(buf, 101, 0, sizeof buf);
      CHECK_EQ(zfs_append(w2, buf, sizeof buf), 0);
      CHECK_EQ(zfs_sync(w2), 0);
      CHECK_EQ(zfs_close(w1), 0);
      CHECK_EQ(zfs_close(w2), 0);
      check_file(fs, "/db/000100.log", 100, 16384);
      check_file(fs, "/db/000101.log", 101, 16384);
      /* 24 SSTs wanting a zone each, more than the 16 stripe groups: none is on the meta set. */
      before = meta_set_reads(d);
      for (int k = 0; k < 24; k++) {
        snprintf(name, sizeof name, "/db/%06d.sst", 10 + k);
        CHECK(zone_of_file_named(fs, name) != zone_of_file_named(fs, "/db/000100.log"));
        check_file(fs, name, (uint64_t)(10 + k), 16384);
      }
      CHECK_EQ(meta_set_reads(d), before);
      /* WAL data beyond its share (4 zones of 8 MiB: 5 files of 7.5 MiB, all live) goes on in the
       * other share, written as its class, so the device binds those zones there: no NoSpace, no
       * WAL zone past the meta groups. A remount takes each zone's class from the device. */
      CHECK_EQ(zfs_delete(fs, "/db/000100.log"), 0);
      CHECK_EQ(zfs_delete(fs, "/db/000101.log"), 0);
      const uint64_t wal_bytes = 7680 << 10;
      for (int k = 0; k < 5; k++) {
        snprintf(name, sizeof name, "/db/%06d.log", 200 + k);
        CHECK_EQ(write_bytes(fs, name, 2, (uint64_t)(200 + k), wal_bytes), 0);
      }
      wal_zones z = {0};
      CHECK_EQ(zfs_walk_files(fs, collect_wal_zones, &z), 0);
      int in_wal_share = 0, elsewhere = 0;
      for (uint32_t k = 0; k < GEO.nr_zones; k++) {
        if (!z.used[k]) continue;
        int cls = zkv_dev_zone_class(d, k);
        in_wal_share += cls == ZKV_CLASS_WAL;
        elsewhere += cls == ZKV_CLASS_INTERNAL;
      }
      CHECK(in_wal_share <= 4);
      CHECK(elsewhere >= 1);
      zfs_unmount(fs);
      fs = mount_ok(d);
      for (int k = 0; k < 5; k++) {
        snprintf(name, sizeof name, "/db/%06d.log", 200 + k);
        check_file(fs, name, (uint64_t)(200 + k), wal_bytes);
      }
      write_small(fs, "/db/000300.sst", 3, 300);
      CHECK_EQ(zkv_dev_zone_class(d, (uint32_t)zone_of_file_named(fs, "/db/000300.sst")), ZKV_CLASS_INTERNAL);
    }
    zfs_unmount(fs);
    zkv_dev_close(d);
    GEO =
        (zkv_geometry){.lba_size = 4096, .nr_zones = 64, .zone_size = 4 << 20, .zone_cap = 4 << 20, .zasl = 256 << 10};
  }
  GEO = saved;
}

/* A victim policy that looks only at what a zone would cost to copy, as the Java greedy one does
 * (it ignores victim_ok): the full, idle data zone with the least live blocks. */
static int least_copy_chooser(void *ctx, const zfs_view *view, uint32_t *victim) {
  (void)ctx;
  const zfs_zone_info *zones = view->zones;
  uint32_t n = view->n_zones;
  int64_t best = -1;
  for (uint32_t z = 0; z < n; z++)
    if (!zones[z].meta && !zones[z].busy && zones[z].wp >= zones[z].start + zones[z].capacity &&
        zones[z].copy < zones[z].capacity && (best < 0 || zones[z].copy < zones[best].copy))
      best = z;
  if (best < 0) return -ENOSPC;
  *victim = (uint32_t)best;
  return 0;
}

/* Garbage collection run because an SST writer found no room, on a plmarray: whose zones serve one
 * class each: the WAL zones hold less live data than the SST zones, so a greedy choice would take
 * one of them, move its live WAL data into the SST share and leave the writer no better off. It
 * empties an SST zone instead: afterwards the write succeeded and every WAL file is still in the
 * WAL's share. With a victim policy that ignores which zones help (`with_chooser`), the file
 * system replaces such a choice by its own. */
static void test_gc_frees_the_share_its_writer_needs(int with_chooser) {
  zkv_geometry saved = GEO;
  zkv_dev *d = new_plm_array(64);
  zkv_geometry g;
  zkv_dev_geometry(d, &g);
  CHECK_EQ(zfs_mkfs(d, NULL, err, sizeof err), 0);
  zfs *fs = mount_ok(d);
  tp_set_gc_level(fs, 0); /* only the writer's collections, below */
  if (with_chooser) zfs_set_victim_chooser(fs, least_copy_chooser, NULL);
  /* Free for data: the non-WAL share's 16 zones but the two reserves, not the WAL's 4. */
  CHECK_EQ(g.nr_zones - g.meta_class_zones, 16);
  CHECK_EQ(zfs_free_bytes(fs), 14 * g.zone_cap);
  GEO.zone_size = g.zone_size; /* the array's zones, for file_named */
  char name[64];
  /* 14 WAL files of 2 MiB one after the other, packed (the lifetime "none" matches its zones'):
   * 3.5 of the WAL share's 4 zones; one kept per zone. */
  int64_t kept_in[64];
  for (int k = 0; k < 64; k++) kept_in[k] = -1;
  for (int k = 0; k < 14; k++) {
    snprintf(name, sizeof name, "/db/%06d.log", 100 + k);
    CHECK_EQ(write_bytes(fs, name, 1, (uint64_t)(100 + k), 2 << 20), 0);
    int64_t z = zone_of_file_named(fs, name);
    CHECK_EQ(zkv_dev_zone_class(d, (uint32_t)z), ZKV_CLASS_WAL);
    if (kept_in[z] < 0)
      kept_in[z] = 100 + k;
    else
      CHECK_EQ(zfs_delete(fs, name), 0);
  }
  /* SSTs of 4 MiB (lifetime "not set": two per zone) until the data writers' room is used up, then
   * every second one deleted: the SST zones hold 4 MiB live, the full WAL zones about 2 MiB. */
  int ssts = 0;
  for (; ssts < 64; ssts++) {
    snprintf(name, sizeof name, "/db/%06d.sst", 200 + ssts);
    int rc = write_bytes(fs, name, 0, (uint64_t)(200 + ssts), 4 << 20);
    if (rc) {
      CHECK_EQ(rc, -ENOSPC);
      CHECK_EQ(zfs_delete(fs, name), 0);
      break;
    }
  }
  CHECK(ssts >= 20);
  for (int k = 1; k < ssts; k += 2) {
    snprintf(name, sizeof name, "/db/%06d.sst", 200 + k);
    CHECK_EQ(zfs_delete(fs, name), 0);
  }
  CHECK_EQ(write_bytes(fs, "/db/000900.sst", 0, 900, 8 << 20), 0);
  check_file(fs, "/db/000900.sst", 900, 8 << 20);
  for (int z = 0; z < 64; z++) /* the WAL zones were not collected: their files did not move */
    if (kept_in[z] >= 0) {
      snprintf(name, sizeof name, "/db/%06d.log", (int)kept_in[z]);
      CHECK_EQ(zone_of_file_named(fs, name), z);
    }
  wal_zones w = {0};
  CHECK_EQ(zfs_walk_files(fs, collect_wal_zones, &w), 0);
  for (uint32_t k = 0; k < g.nr_zones; k++)
    if (w.used[k]) CHECK_EQ(zkv_dev_zone_class(d, k), ZKV_CLASS_WAL);
  /* Collections for free space in general take the WAL zones too, and keep their live data in
   * the WAL's share (it has room for the copies). */
  zfs_reclaim(fs, UINT64_MAX);
  memset(&w, 0, sizeof w);
  CHECK_EQ(zfs_walk_files(fs, collect_wal_zones, &w), 0);
  for (uint32_t k = 0; k < g.nr_zones; k++)
    if (w.used[k]) CHECK_EQ(zkv_dev_zone_class(d, k), ZKV_CLASS_WAL);
  for (int z = 0; z < 64; z++)
    if (kept_in[z] >= 0) {
      snprintf(name, sizeof name, "/db/%06d.log", (int)kept_in[z]);
      check_file(fs, name, (uint64_t)kept_in[z], 2 << 20);
    }
  zfs_unmount(fs);
  zkv_dev_close(d);
  GEO = saved;
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_alloc seed=%llu\n", (unsigned long long)rng);
  test_active_limit_and_full_device();
  test_external_allocator();
  test_callout_sees_files_per_zone_and_keeps_tags();
  test_policy_refused_the_reserve();
  test_strict_no_space();
  test_writers_own_their_zones();
  test_more_writers_than_tokens();
  test_full_zone_is_released();
  test_zone_of_a_deleted_writer_resets_at_close();
  test_zones_bound_to_a_class();
  test_gc_frees_the_share_its_writer_needs(0);
  test_gc_frees_the_share_its_writer_needs(1); /* a policy's choice the writer cannot use */
  remove_temp_dir();
  TEST_DONE("test_zonefs_alloc");
  return 0;
}
