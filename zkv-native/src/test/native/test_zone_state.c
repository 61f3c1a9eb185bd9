/* Tests of the pure NVMe ZNS zone state machine (zone_state.c) on in-memory tables, no I/O:
 * every transition of open/close/finish/reset and writes/appends from every condition, write
 * pointer handling, zone capacity < zone size, the open/active resource limits (implicit opens
 * counted, round-robin implicit close), ZASL, read checks and every status code; then a seeded
 * random op sequence checked against an independent reference model (seed from ZKV_SEED). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/zone_state.h"
#include "test_util.h"

#define E(s) ZKV_ERR(ZKV_NVME_##s)
#define EMPTY ZKV_ZONE_EMPTY
#define IOPEN ZKV_ZONE_IMP_OPEN
#define EOPEN ZKV_ZONE_EXP_OPEN
#define CLOSED ZKV_ZONE_CLOSED
#define RO ZKV_ZONE_READ_ONLY
#define FULL ZKV_ZONE_FULL
#define OFFLINE ZKV_ZONE_OFFLINE
#define KB 1024ull

#define MAXZ 64

/* ---------- fixture: a table plus a shadow copy kept only through on_change ---------- */

typedef struct fixture {
  zs_table t;
  zs_entry zones[MAXZ];
  zs_entry shadow[MAXZ]; /* what the owner learned through on_change (the emulator's CRCs) */
  uint64_t notifications;
} fixture;

static void on_change(zs_table *t, uint32_t zone) {
  fixture *f = t->owner;
  CHECK(zone < t->geo.nr_zones);
  f->shadow[zone] = t->zones[zone];
  f->notifications++;
}

static void fx_init(fixture *f, const zkv_geometry *g) {
  memset(f, 0, sizeof *f);
  CHECK(g->nr_zones <= MAXZ);
  f->t.geo = *g;
  f->t.zones = f->zones;
  f->t.on_change = on_change;
  f->t.owner = f;
  for (uint32_t i = 0; i < g->nr_zones; i++) f->zones[i].cond = f->shadow[i].cond = EMPTY;
  zs_recount(&f->t);
}

static int is_open(uint32_t c) { return c == IOPEN || c == EOPEN; }
static int is_active(uint32_t c) { return is_open(c) || c == CLOSED; }

/* Counters agree with the conditions, limits hold, every change was notified. */
static void fx_check(const fixture *f) {
  const zs_table *t = &f->t;
  uint32_t o = 0, io = 0, a = 0;
  for (uint32_t i = 0; i < t->geo.nr_zones; i++) {
    const zs_entry *z = &t->zones[i];
    CHECK(zs_cond_valid(z->cond));
    CHECK(z->written <= t->geo.zone_cap);
    if (z->cond == EMPTY) CHECK_EQ(z->written, 0);
    if (z->cond == FULL) CHECK_EQ(z->written, t->geo.zone_cap);
    if (z->cond == CLOSED || z->cond == IOPEN) CHECK(z->written > 0);
    if (is_open(z->cond) || z->cond == CLOSED) CHECK(z->written < t->geo.zone_cap);
    o += is_open(z->cond);
    io += z->cond == IOPEN;
    a += is_active(z->cond);
    CHECK_EQ(f->shadow[i].cond, z->cond);
    CHECK_EQ(f->shadow[i].written, z->written);
  }
  CHECK_EQ(t->n_open, o);
  CHECK_EQ(t->n_imp_open, io);
  CHECK_EQ(t->n_active, a);
  if (t->geo.max_open) CHECK(t->n_open <= t->geo.max_open);
  if (t->geo.max_active) CHECK(t->n_active <= t->geo.max_active);
}

/* ---------- status code coverage ---------- */

static const int ALL_CODES[] = {
    ZKV_NVME_INVALID_FIELD,       ZKV_NVME_LBA_OUT_OF_RANGE,
    ZKV_NVME_ZONE_BOUNDARY_ERROR, ZKV_NVME_ZONE_IS_FULL,
    ZKV_NVME_ZONE_IS_READ_ONLY,   ZKV_NVME_ZONE_IS_OFFLINE,
    ZKV_NVME_ZONE_INVALID_WRITE,  ZKV_NVME_TOO_MANY_ACTIVE_ZONES,
    ZKV_NVME_TOO_MANY_OPEN_ZONES, ZKV_NVME_INVALID_ZONE_STATE_TRANSITION,
};
#define NCODES (sizeof ALL_CODES / sizeof ALL_CODES[0])
static int code_seen[NCODES];

static void saw(int rc) {
  for (size_t i = 0; i < NCODES; i++)
    if (rc == ZKV_ERR(ALL_CODES[i])) code_seen[i] = 1;
}

/* Checks a result, records the status as covered, and re-validates the table. */
#define EXPECT(f, expr, want) \
  do {                        \
    int _rc = (expr);         \
    CHECK_EQ(_rc, (want));    \
    saw(_rc);                 \
    fx_check(f);              \
  } while (0)

static int wr(fixture *f, uint32_t zone, uint64_t rel, uint64_t len) {
  uint64_t assigned = 0xDEAD;
  int rc = zs_write(&f->t, zone, rel, len, 0, &assigned);
  if (rc == 0)
    CHECK_EQ(assigned, rel);
  else
    CHECK_EQ(assigned, 0xDEAD); /* untouched on failure */
  return rc;
}

static int app(fixture *f, uint32_t zone, uint64_t len, uint64_t *assigned) {
  uint64_t a = 0xDEAD;
  int rc = zs_write(&f->t, zone, 0, len, 1, &a);
  if (rc) CHECK_EQ(a, 0xDEAD);
  if (assigned) *assigned = a;
  return rc;
}

static uint32_t cond(const fixture *f, uint32_t z) { return f->zones[z].cond; }
static uint64_t wp(const fixture *f, uint32_t z) { return f->zones[z].written; }

static zkv_geometry geo(uint32_t lba, uint32_t nr, uint64_t size, uint64_t cap, uint32_t mo, uint32_t ma,
                        uint32_t zasl) {
  return (zkv_geometry){.lba_size = lba,
                        .nr_zones = nr,
                        .zone_size = size,
                        .zone_cap = cap,
                        .max_open = mo,
                        .max_active = ma,
                        .zasl = zasl};
}

/* ---------- directed tests ---------- */

/* Writes: write pointer rules, capacity < size, Full, and the write-side status codes. */
static void test_writes(void) {
  fixture f;
  zkv_geometry g = geo(4096, 8, 64 * KB, 48 * KB, 0, 0, 16 * KB);
  fx_init(&f, &g);
  fx_check(&f);

  /* Empty -> implicitly open at the first write; the write pointer advances. */
  EXPECT(&f, wr(&f, 0, 0, 4 * KB), 0);
  CHECK_EQ(cond(&f, 0), IOPEN);
  CHECK_EQ(wp(&f, 0), 4 * KB);
  EXPECT(&f, wr(&f, 0, 4 * KB, 8 * KB), 0);
  CHECK_EQ(wp(&f, 0), 12 * KB);
  CHECK_EQ(cond(&f, 0), IOPEN);
  /* Writes must be at the write pointer. */
  EXPECT(&f, wr(&f, 0, 0, 4 * KB), E(ZONE_INVALID_WRITE));
  EXPECT(&f, wr(&f, 0, 8 * KB, 4 * KB), E(ZONE_INVALID_WRITE));
  EXPECT(&f, wr(&f, 0, 16 * KB, 4 * KB), E(ZONE_INVALID_WRITE));
  EXPECT(&f, wr(&f, 0, 48 * KB, 4 * KB), E(ZONE_INVALID_WRITE)); /* in the gap beyond the capacity */
  EXPECT(&f, wr(&f, 0, 60 * KB, 4 * KB), E(ZONE_INVALID_WRITE));
  /* Misaligned or empty transfers are invalid fields. */
  EXPECT(&f, wr(&f, 0, 12 * KB, 0), E(INVALID_FIELD));
  EXPECT(&f, wr(&f, 0, 12 * KB, 1000), E(INVALID_FIELD));
  EXPECT(&f, wr(&f, 0, 12 * KB + 512, 4 * KB), E(INVALID_FIELD));
  EXPECT(&f, wr(&f, 0, 12 * KB, 4 * KB + 512), E(INVALID_FIELD));
  /* Crossing the zone capacity (not the zone size) is a boundary error, with no effect. */
  EXPECT(&f, wr(&f, 0, 12 * KB, 40 * KB), E(ZONE_BOUNDARY_ERROR));
  EXPECT(&f, wr(&f, 0, 12 * KB, 52 * KB), E(ZONE_BOUNDARY_ERROR)); /* up to the zone end */
  EXPECT(&f, wr(&f, 0, 12 * KB, 64 * KB), E(ZONE_BOUNDARY_ERROR));
  /* A length that would wrap the 64-bit end offset is still a boundary error. */
  EXPECT(&f, wr(&f, 0, 12 * KB, UINT64_MAX - 12 * KB + 1), E(ZONE_BOUNDARY_ERROR));
  EXPECT(&f, wr(&f, 0, 12 * KB, UINT64_MAX - 4095), E(ZONE_BOUNDARY_ERROR));
  CHECK_EQ(wp(&f, 0), 12 * KB);
  CHECK_EQ(cond(&f, 0), IOPEN);
  /* Reaching the capacity exactly makes the zone Full and releases its resources. */
  EXPECT(&f, wr(&f, 0, 12 * KB, 36 * KB), 0);
  CHECK_EQ(cond(&f, 0), FULL);
  CHECK_EQ(wp(&f, 0), 48 * KB);
  CHECK_EQ(f.t.n_open, 0);
  CHECK_EQ(f.t.n_active, 0);
  /* Writes and appends to a Full zone. */
  EXPECT(&f, wr(&f, 0, 48 * KB, 4 * KB), E(ZONE_IS_FULL));
  EXPECT(&f, wr(&f, 0, 0, 4 * KB), E(ZONE_IS_FULL));
  EXPECT(&f, app(&f, 0, 4 * KB, NULL), E(ZONE_IS_FULL));
  /* Zones beyond the namespace. */
  EXPECT(&f, wr(&f, 8, 0, 4 * KB), E(LBA_OUT_OF_RANGE));
  EXPECT(&f, wr(&f, UINT32_MAX, 0, 4 * KB), E(LBA_OUT_OF_RANGE));
  EXPECT(&f, app(&f, 8, 4 * KB, NULL), E(LBA_OUT_OF_RANGE));
  /* A write into an empty zone not at its start fails and leaves it empty, no resources taken. */
  EXPECT(&f, wr(&f, 1, 4 * KB, 4 * KB), E(ZONE_INVALID_WRITE));
  CHECK_EQ(cond(&f, 1), EMPTY);
  CHECK_EQ(f.t.n_active, 0);
  /* A single write of the whole capacity goes straight to Full. */
  EXPECT(&f, wr(&f, 1, 0, 48 * KB), 0);
  CHECK_EQ(cond(&f, 1), FULL);
  /* Non-append writes are not limited by ZASL. */
  EXPECT(&f, wr(&f, 2, 0, 32 * KB), 0);
  CHECK_EQ(cond(&f, 2), IOPEN);

  /* Appends: the assigned offset is the write pointer; ZASL bounds the length. */
  uint64_t a;
  EXPECT(&f, app(&f, 3, 4 * KB, &a), 0);
  CHECK_EQ(a, 0);
  CHECK_EQ(cond(&f, 3), IOPEN);
  EXPECT(&f, app(&f, 3, 16 * KB, &a), 0); /* == zasl */
  CHECK_EQ(a, 4 * KB);
  EXPECT(&f, app(&f, 3, 20 * KB, NULL), E(INVALID_FIELD)); /* > zasl */
  EXPECT(&f, app(&f, 3, 0, NULL), E(INVALID_FIELD));
  EXPECT(&f, app(&f, 3, 6 * KB, NULL), E(INVALID_FIELD));
  CHECK_EQ(wp(&f, 3), 20 * KB);
  EXPECT(&f, app(&f, 3, 16 * KB, &a), 0);
  CHECK_EQ(a, 20 * KB);
  EXPECT(&f, app(&f, 3, 16 * KB, NULL), E(ZONE_BOUNDARY_ERROR)); /* 36 + 16 > 48 */
  EXPECT(&f, app(&f, 3, 12 * KB, &a), 0);
  CHECK_EQ(a, 36 * KB);
  CHECK_EQ(cond(&f, 3), FULL);

  /* Closed -> implicitly open on write; explicitly open stays explicitly open. */
  EXPECT(&f, zs_mgmt(&f.t, 2, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(cond(&f, 2), CLOSED);
  EXPECT(&f, wr(&f, 2, 32 * KB, 4 * KB), 0);
  CHECK_EQ(cond(&f, 2), IOPEN);
  EXPECT(&f, zs_mgmt(&f.t, 2, ZKV_ZONE_CLOSE), 0);
  EXPECT(&f, app(&f, 2, 4 * KB, &a), 0);
  CHECK_EQ(a, 36 * KB);
  CHECK_EQ(cond(&f, 2), IOPEN);
  EXPECT(&f, zs_mgmt(&f.t, 4, ZKV_ZONE_OPEN), 0);
  EXPECT(&f, wr(&f, 4, 0, 4 * KB), 0);
  CHECK_EQ(cond(&f, 4), EOPEN);
  EXPECT(&f, app(&f, 4, 4 * KB, &a), 0);
  CHECK_EQ(a, 4 * KB);
  CHECK_EQ(cond(&f, 4), EOPEN);
  EXPECT(&f, wr(&f, 4, 8 * KB, 40 * KB), 0); /* explicitly open -> Full at the capacity */
  CHECK_EQ(cond(&f, 4), FULL);

  /* Read-only and offline zones (set as a failing device would) refuse writes, whatever else is wrong. */
  EXPECT(&f, wr(&f, 5, 0, 8 * KB), 0);
  zs_set(&f.t, 5, RO, wp(&f, 5));
  fx_check(&f);
  CHECK_EQ(f.t.n_open, 1); /* zone 2 only */
  EXPECT(&f, wr(&f, 5, 8 * KB, 4 * KB), E(ZONE_IS_READ_ONLY));
  EXPECT(&f, wr(&f, 5, 0, 4 * KB), E(ZONE_IS_READ_ONLY));
  EXPECT(&f, app(&f, 5, 4 * KB, NULL), E(ZONE_IS_READ_ONLY));
  EXPECT(&f, wr(&f, 5, 8 * KB, 64 * KB), E(ZONE_IS_READ_ONLY));
  zs_set(&f.t, 6, OFFLINE, 0);
  fx_check(&f);
  EXPECT(&f, wr(&f, 6, 0, 4 * KB), E(ZONE_IS_OFFLINE));
  EXPECT(&f, app(&f, 6, 4 * KB, NULL), E(ZONE_IS_OFFLINE));
  EXPECT(&f, wr(&f, 6, 4 * KB, 4 * KB), E(ZONE_IS_OFFLINE));
  /* A full zone turned offline reports offline, not full. */
  zs_set(&f.t, 1, OFFLINE, wp(&f, 1));
  EXPECT(&f, wr(&f, 1, 48 * KB, 4 * KB), E(ZONE_IS_OFFLINE));
  /* Field errors come before the zone's condition. */
  EXPECT(&f, wr(&f, 6, 0, 100), E(INVALID_FIELD));
  EXPECT(&f, app(&f, 5, 20 * KB, NULL), E(INVALID_FIELD));

  /* 512-byte blocks, capacity == size. */
  g = geo(512, 2, 8 * KB, 8 * KB, 0, 0, 1 * KB);
  fx_init(&f, &g);
  EXPECT(&f, wr(&f, 0, 0, 512), 0);
  EXPECT(&f, wr(&f, 0, 512, 1000), E(INVALID_FIELD));
  EXPECT(&f, app(&f, 0, 1536, NULL), E(INVALID_FIELD));
  EXPECT(&f, app(&f, 0, 1024, &a), 0);
  CHECK_EQ(a, 512);
  EXPECT(&f, wr(&f, 0, 1536, 8 * KB - 1536), 0);
  CHECK_EQ(cond(&f, 0), FULL);
  CHECK_EQ(wp(&f, 0), 8 * KB);
  printf("  writes and appends ok\n");
}

/* Every management action from every condition. */
enum start { S_EMPTY, S_IOPEN, S_EOPEN0, S_EOPENW, S_CLOSED, S_FULL, S_FINISHED, S_RO, S_OFFLINE, S_N };
static const char *START_NAME[] = {
    "empty",     "imp-open", "exp-open(unwritten)", "exp-open(written)", "closed", "full", "finished",
    "read-only", "offline"};

static void make_start(fixture *f, uint32_t z, int s) {
  uint64_t cap = f->t.geo.zone_cap;
  switch (s) {
    case S_EMPTY: break;
    case S_IOPEN: CHECK_EQ(wr(f, z, 0, 8 * KB), 0); break;
    case S_EOPEN0: CHECK_EQ(zs_mgmt(&f->t, z, ZKV_ZONE_OPEN), 0); break;
    case S_EOPENW:
      CHECK_EQ(zs_mgmt(&f->t, z, ZKV_ZONE_OPEN), 0);
      CHECK_EQ(wr(f, z, 0, 8 * KB), 0);
      break;
    case S_CLOSED:
      CHECK_EQ(wr(f, z, 0, 8 * KB), 0);
      CHECK_EQ(zs_mgmt(&f->t, z, ZKV_ZONE_CLOSE), 0);
      break;
    case S_FULL: CHECK_EQ(wr(f, z, 0, cap), 0); break;
    case S_FINISHED:
      CHECK_EQ(wr(f, z, 0, 8 * KB), 0);
      CHECK_EQ(zs_mgmt(&f->t, z, ZKV_ZONE_FINISH), 0);
      break;
    case S_RO:
      CHECK_EQ(wr(f, z, 0, 8 * KB), 0);
      zs_set(&f->t, z, RO, 8 * KB);
      break;
    case S_OFFLINE: zs_set(&f->t, z, OFFLINE, 0); break;
  }
  fx_check(f);
}

static void test_mgmt_matrix(void) {
  const uint64_t cap = 48 * KB, W = 8 * KB;
  const int bad = E(INVALID_ZONE_STATE_TRANSITION);
  struct {
    int start;
    uint32_t cond;
    uint64_t written;
  } initial[S_N] = {{S_EMPTY, EMPTY, 0},     {S_IOPEN, IOPEN, W},   {S_EOPEN0, EOPEN, 0},
                    {S_EOPENW, EOPEN, W},    {S_CLOSED, CLOSED, W}, {S_FULL, FULL, cap},
                    {S_FINISHED, FULL, cap}, {S_RO, RO, W},         {S_OFFLINE, OFFLINE, 0}};
  /* expected {rc, cond, written} per action, per start */
  struct exp {
    int rc;
    uint32_t cond;
    uint64_t written;
  };
  const struct exp open_[S_N] = {{0, EOPEN, 0},    {0, EOPEN, W},    {0, EOPEN, 0}, {0, EOPEN, W},    {0, EOPEN, W},
                                 {bad, FULL, cap}, {bad, FULL, cap}, {bad, RO, W},  {bad, OFFLINE, 0}};
  const struct exp close_[S_N] = {{bad, EMPTY, 0},  {0, CLOSED, W},   {0, EMPTY, 0}, {0, CLOSED, W},   {0, CLOSED, W},
                                  {bad, FULL, cap}, {bad, FULL, cap}, {bad, RO, W},  {bad, OFFLINE, 0}};
  const struct exp finish_[S_N] = {{0, FULL, cap}, {0, FULL, cap}, {0, FULL, cap}, {0, FULL, cap},   {0, FULL, cap},
                                   {0, FULL, cap}, {0, FULL, cap}, {bad, RO, W},   {bad, OFFLINE, 0}};
  const struct exp reset_[S_N] = {{0, EMPTY, 0}, {0, EMPTY, 0}, {0, EMPTY, 0}, {0, EMPTY, 0},    {0, EMPTY, 0},
                                  {0, EMPTY, 0}, {0, EMPTY, 0}, {bad, RO, W},  {bad, OFFLINE, 0}};
  const struct {
    int action;
    const struct exp *e;
  } actions[] = {
      {ZKV_ZONE_OPEN, open_}, {ZKV_ZONE_CLOSE, close_}, {ZKV_ZONE_FINISH, finish_}, {ZKV_ZONE_RESET, reset_}};
  /* Not Zone Send Actions this device implements: invalid field, whatever the zone's condition. */
  const int invalid_actions[] = {0, 5, 6, 0x10, 0xFF, -1};
  zkv_geometry g = geo(4096, 4, 64 * KB, cap, 0, 0, 16 * KB);

  for (int s = 0; s < S_N; s++) {
    for (size_t a = 0; a < sizeof actions / sizeof actions[0]; a++) {
      for (int twice = 0; twice < 2; twice++) {
        fixture f;
        fx_init(&f, &g);
        make_start(&f, 1, s);
        CHECK_EQ(cond(&f, 1), initial[s].cond);
        CHECK_EQ(wp(&f, 1), initial[s].written);
        const struct exp *e = &actions[a].e[s];
        int rc = zs_mgmt(&f.t, 1, actions[a].action);
        if (rc != e->rc || cond(&f, 1) != e->cond || wp(&f, 1) != e->written)
          fprintf(stderr, "action %d from %s: rc %d cond %u wp %" PRIu64 ", expected rc %d cond %u wp %" PRIu64 "\n",
                  actions[a].action, START_NAME[s], rc, cond(&f, 1), wp(&f, 1), e->rc, e->cond, e->written);
        saw(rc);
        CHECK_EQ(rc, e->rc);
        CHECK_EQ(cond(&f, 1), e->cond);
        CHECK_EQ(wp(&f, 1), e->written);
        fx_check(&f);
        /* Other zones untouched. */
        for (uint32_t z = 0; z < 4; z++)
          if (z != 1) CHECK_EQ(cond(&f, z), EMPTY);
        if (twice && e->rc == 0) { /* repeating it: a no-op success (closing a zone that went Empty: invalid) */
          uint64_t n = f.notifications;
          int again = actions[a].action == ZKV_ZONE_CLOSE && e->cond == EMPTY ? bad : 0;
          CHECK_EQ(zs_mgmt(&f.t, 1, actions[a].action), again);
          CHECK_EQ(cond(&f, 1), e->cond);
          CHECK_EQ(wp(&f, 1), e->written);
          if (actions[a].action != ZKV_ZONE_CLOSE || e->cond != EMPTY) CHECK_EQ(f.notifications, n);
          fx_check(&f);
        }
      }
    }
    for (size_t i = 0; i < sizeof invalid_actions / sizeof invalid_actions[0]; i++) {
      fixture f;
      fx_init(&f, &g);
      make_start(&f, 2, s);
      EXPECT(&f, zs_mgmt(&f.t, 2, invalid_actions[i]), E(INVALID_FIELD));
      CHECK_EQ(cond(&f, 2), initial[s].cond);
      CHECK_EQ(wp(&f, 2), initial[s].written);
    }
    /* Zones beyond the namespace. */
    fixture f;
    fx_init(&f, &g);
    EXPECT(&f, zs_mgmt(&f.t, 4, ZKV_ZONE_OPEN), E(LBA_OUT_OF_RANGE));
    EXPECT(&f, zs_mgmt(&f.t, UINT32_MAX, ZKV_ZONE_RESET), E(LBA_OUT_OF_RANGE));
  }

  /* After a reset the zone is writable from its start again; after a finish it is not. */
  fixture f;
  fx_init(&f, &g);
  EXPECT(&f, wr(&f, 0, 0, 16 * KB), 0);
  EXPECT(&f, zs_mgmt(&f.t, 0, ZKV_ZONE_RESET), 0);
  EXPECT(&f, wr(&f, 0, 16 * KB, 4 * KB), E(ZONE_INVALID_WRITE));
  EXPECT(&f, wr(&f, 0, 0, 4 * KB), 0);
  EXPECT(&f, zs_mgmt(&f.t, 0, ZKV_ZONE_FINISH), 0);
  EXPECT(&f, wr(&f, 0, 4 * KB, 4 * KB), E(ZONE_IS_FULL));
  EXPECT(&f, wr(&f, 0, cap, 4 * KB), E(ZONE_IS_FULL));
  /* A read-only or offline zone stays so: no action brings it back. */
  zs_set(&f.t, 3, RO, 0);
  for (int act = ZKV_ZONE_CLOSE; act <= ZKV_ZONE_RESET; act++) EXPECT(&f, zs_mgmt(&f.t, 3, act), bad);
  CHECK_EQ(cond(&f, 3), RO);
  printf("  management matrix ok\n");
}

/* zs_check_read: alignment, namespace end, zone boundary, offline. */
static void test_reads(void) {
  fixture f;
  zkv_geometry g = geo(4096, 4, 64 * KB, 48 * KB, 0, 0, 16 * KB);
  const uint64_t zs = 64 * KB, total = 4 * zs;
  fx_init(&f, &g);
  EXPECT(&f, wr(&f, 1, 0, 8 * KB), 0);
  /* Anywhere inside one zone, written or not, including the gap beyond the capacity. */
  EXPECT(&f, zs_check_read(&f.t, 0, 4 * KB), 0);
  EXPECT(&f, zs_check_read(&f.t, zs, 8 * KB), 0);
  EXPECT(&f, zs_check_read(&f.t, zs + 8 * KB, 16 * KB), 0);   /* above the write pointer */
  EXPECT(&f, zs_check_read(&f.t, zs, zs), 0);                 /* the whole zone */
  EXPECT(&f, zs_check_read(&f.t, zs + 48 * KB, 16 * KB), 0);  /* the gap */
  EXPECT(&f, zs_check_read(&f.t, total - 4 * KB, 4 * KB), 0); /* the last block */
  /* Field errors. */
  EXPECT(&f, zs_check_read(&f.t, 0, 0), E(INVALID_FIELD));
  EXPECT(&f, zs_check_read(&f.t, 0, 100), E(INVALID_FIELD));
  EXPECT(&f, zs_check_read(&f.t, 512, 4 * KB), E(INVALID_FIELD));
  /* Across a zone boundary. */
  EXPECT(&f, zs_check_read(&f.t, zs - 4 * KB, 8 * KB), E(ZONE_BOUNDARY_ERROR));
  EXPECT(&f, zs_check_read(&f.t, 0, 2 * zs), E(ZONE_BOUNDARY_ERROR));
  EXPECT(&f, zs_check_read(&f.t, 2 * zs + 60 * KB, 8 * KB), E(ZONE_BOUNDARY_ERROR));
  /* Beyond the namespace. */
  EXPECT(&f, zs_check_read(&f.t, total, 4 * KB), E(LBA_OUT_OF_RANGE));
  EXPECT(&f, zs_check_read(&f.t, total - 4 * KB, 8 * KB), E(LBA_OUT_OF_RANGE));
  EXPECT(&f, zs_check_read(&f.t, 100 * total, 4 * KB), E(LBA_OUT_OF_RANGE));
  EXPECT(&f, zs_check_read(&f.t, UINT64_MAX - 4095, 4 * KB), E(LBA_OUT_OF_RANGE));
  /* Lengths that wrap the 64-bit end offset are out of range, never accepted. */
  EXPECT(&f, zs_check_read(&f.t, 8 * KB, UINT64_MAX - 4095), E(LBA_OUT_OF_RANGE));
  EXPECT(&f, zs_check_read(&f.t, zs + 8 * KB, UINT64_MAX - 4095), E(LBA_OUT_OF_RANGE));
  EXPECT(&f, zs_check_read(&f.t, 4 * KB, UINT64_MAX - 4095), E(LBA_OUT_OF_RANGE));
  /* Full and read-only zones read fine; offline ones do not. */
  EXPECT(&f, zs_mgmt(&f.t, 1, ZKV_ZONE_FINISH), 0);
  EXPECT(&f, zs_check_read(&f.t, zs, 48 * KB), 0);
  zs_set(&f.t, 2, RO, 0);
  EXPECT(&f, zs_check_read(&f.t, 2 * zs, 4 * KB), 0);
  zs_set(&f.t, 3, OFFLINE, 0);
  EXPECT(&f, zs_check_read(&f.t, 3 * zs, 4 * KB), E(ZONE_IS_OFFLINE));
  EXPECT(&f, zs_check_read(&f.t, 3 * zs + 60 * KB, 4 * KB), E(ZONE_IS_OFFLINE));
  EXPECT(&f, zs_check_read(&f.t, 3 * zs, 100), E(INVALID_FIELD)); /* field first */
  EXPECT(&f, zs_check_read(&f.t, 2 * zs + 60 * KB, 8 * KB), E(ZONE_BOUNDARY_ERROR));
  printf("  reads ok\n");
}

/* Open limit: implicit opens counted, round-robin implicit close, explicit opens make TOO_MANY_OPEN. */
static void test_open_limit(void) {
  fixture f;
  zkv_geometry g = geo(4096, 8, 64 * KB, 64 * KB, 2, 0, 16 * KB);
  fx_init(&f, &g);
  EXPECT(&f, wr(&f, 0, 0, 4 * KB), 0);
  EXPECT(&f, wr(&f, 1, 0, 4 * KB), 0);
  CHECK_EQ(f.t.n_open, 2);
  CHECK_EQ(f.t.n_imp_open, 2);
  /* At the limit, an implicit open closes the implicitly open zones in turn. */
  EXPECT(&f, wr(&f, 2, 0, 4 * KB), 0);
  CHECK_EQ(cond(&f, 0), CLOSED);
  CHECK_EQ(cond(&f, 1), IOPEN);
  CHECK_EQ(cond(&f, 2), IOPEN);
  EXPECT(&f, wr(&f, 3, 0, 4 * KB), 0);
  CHECK_EQ(cond(&f, 1), CLOSED);
  CHECK_EQ(cond(&f, 2), IOPEN);
  CHECK_EQ(cond(&f, 3), IOPEN);
  /* Reopening a closed zone by writing also needs an open resource. */
  EXPECT(&f, wr(&f, 0, 4 * KB, 4 * KB), 0);
  CHECK_EQ(cond(&f, 0), IOPEN);
  CHECK_EQ(cond(&f, 2), CLOSED);
  CHECK_EQ(cond(&f, 3), IOPEN);
  EXPECT(&f, app(&f, 1, 4 * KB, NULL), 0);
  CHECK_EQ(cond(&f, 1), IOPEN);
  CHECK_EQ(cond(&f, 3), CLOSED);
  CHECK_EQ(cond(&f, 0), IOPEN);
  /* The cursor wraps: after zone 3 the next victim is found from zone 4 on, i.e. zone 0. */
  EXPECT(&f, wr(&f, 4, 0, 4 * KB), 0);
  CHECK_EQ(cond(&f, 0), CLOSED);
  CHECK_EQ(cond(&f, 1), IOPEN);
  EXPECT(&f, wr(&f, 5, 0, 4 * KB), 0);
  CHECK_EQ(cond(&f, 1), CLOSED);
  CHECK_EQ(cond(&f, 4), IOPEN);
  CHECK_EQ(cond(&f, 5), IOPEN);
  CHECK_EQ(f.t.n_open, 2);
  CHECK_EQ(f.t.n_active, 6);
  /* Writes to already open zones need nothing. */
  EXPECT(&f, wr(&f, 4, 4 * KB, 4 * KB), 0);
  EXPECT(&f, wr(&f, 5, 4 * KB, 4 * KB), 0);
  CHECK_EQ(cond(&f, 4), IOPEN);
  CHECK_EQ(cond(&f, 5), IOPEN);
  /* Explicitly opening an implicitly open zone takes no new resource. */
  EXPECT(&f, zs_mgmt(&f.t, 4, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(cond(&f, 4), EOPEN);
  CHECK_EQ(cond(&f, 5), IOPEN);
  CHECK_EQ(f.t.n_open, 2);
  /* An explicit open at the limit may close an implicitly open zone... */
  EXPECT(&f, zs_mgmt(&f.t, 6, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(cond(&f, 5), CLOSED);
  CHECK_EQ(cond(&f, 6), EOPEN);
  CHECK_EQ(f.t.n_imp_open, 0);
  /* ...but explicitly open zones are never closed behind the host's back. */
  EXPECT(&f, wr(&f, 7, 0, 4 * KB), E(TOO_MANY_OPEN_ZONES));
  EXPECT(&f, app(&f, 7, 4 * KB, NULL), E(TOO_MANY_OPEN_ZONES));
  EXPECT(&f, zs_mgmt(&f.t, 7, ZKV_ZONE_OPEN), E(TOO_MANY_OPEN_ZONES));
  EXPECT(&f, wr(&f, 0, 8 * KB, 4 * KB), E(TOO_MANY_OPEN_ZONES)); /* closed zone */
  EXPECT(&f, zs_mgmt(&f.t, 0, ZKV_ZONE_OPEN), E(TOO_MANY_OPEN_ZONES));
  CHECK_EQ(cond(&f, 7), EMPTY);
  CHECK_EQ(cond(&f, 0), CLOSED);
  CHECK_EQ(wp(&f, 0), 8 * KB);
  /* Actions needing no open resource still work at the limit. */
  EXPECT(&f, zs_mgmt(&f.t, 0, ZKV_ZONE_FINISH), 0); /* closed -> full */
  EXPECT(&f, zs_mgmt(&f.t, 7, ZKV_ZONE_FINISH), 0); /* empty -> full: needs only an active resource */
  EXPECT(&f, zs_mgmt(&f.t, 1, ZKV_ZONE_RESET), 0);
  EXPECT(&f, zs_mgmt(&f.t, 4, ZKV_ZONE_OPEN), 0); /* already explicitly open: no-op */
  EXPECT(&f, wr(&f, 4, 8 * KB, 4 * KB), 0);
  /* Closing an explicitly open zone frees its resource. */
  EXPECT(&f, zs_mgmt(&f.t, 6, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(cond(&f, 6), EMPTY); /* nothing was written */
  EXPECT(&f, wr(&f, 1, 0, 4 * KB), 0);
  CHECK_EQ(cond(&f, 1), IOPEN);
  /* Reaching the capacity releases the open resource. */
  EXPECT(&f, wr(&f, 4, 12 * KB, 52 * KB), 0);
  CHECK_EQ(cond(&f, 4), FULL);
  CHECK_EQ(f.t.n_open, 1);
  EXPECT(&f, zs_mgmt(&f.t, 6, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(cond(&f, 1), IOPEN);
  CHECK_EQ(f.t.n_open, 2);
  /* A zone made read-only or offline gives its resources back. */
  zs_set(&f.t, 6, OFFLINE, 0);
  fx_check(&f);
  CHECK_EQ(f.t.n_open, 1);
  EXPECT(&f, zs_mgmt(&f.t, 5, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(cond(&f, 1), IOPEN);

  /* max_open == 1: each implicit open closes the previous one. */
  g = geo(4096, 3, 16 * KB, 16 * KB, 1, 0, 16 * KB);
  fx_init(&f, &g);
  for (int round = 0; round < 3; round++)
    for (uint32_t z = 0; z < 3; z++) {
      EXPECT(&f, wr(&f, z, wp(&f, z), 4 * KB), 0);
      CHECK_EQ(cond(&f, z), round == 3 ? FULL : IOPEN);
      for (uint32_t o = 0; o < 3; o++)
        if (o != z) CHECK(cond(&f, o) == CLOSED || cond(&f, o) == EMPTY);
      CHECK_EQ(f.t.n_open, 1);
    }
  printf("  open limit ok\n");
}

/* Active limit: implicit opens count; closing does not free an active resource. */
static void test_active_limit(void) {
  fixture f;
  zkv_geometry g = geo(4096, 6, 64 * KB, 48 * KB, 0, 2, 16 * KB);
  fx_init(&f, &g);
  EXPECT(&f, wr(&f, 0, 0, 4 * KB), 0);
  EXPECT(&f, app(&f, 1, 4 * KB, NULL), 0);
  CHECK_EQ(f.t.n_active, 2);
  EXPECT(&f, wr(&f, 2, 0, 4 * KB), E(TOO_MANY_ACTIVE_ZONES));
  EXPECT(&f, app(&f, 2, 4 * KB, NULL), E(TOO_MANY_ACTIVE_ZONES));
  EXPECT(&f, zs_mgmt(&f.t, 2, ZKV_ZONE_OPEN), E(TOO_MANY_ACTIVE_ZONES));
  EXPECT(&f, zs_mgmt(&f.t, 2, ZKV_ZONE_FINISH), E(TOO_MANY_ACTIVE_ZONES));
  EXPECT(&f, wr(&f, 2, 0, 48 * KB), E(TOO_MANY_ACTIVE_ZONES)); /* even a write that would fill it */
  CHECK_EQ(cond(&f, 2), EMPTY);
  /* Closed zones are still active. */
  EXPECT(&f, zs_mgmt(&f.t, 0, ZKV_ZONE_CLOSE), 0);
  EXPECT(&f, zs_mgmt(&f.t, 1, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(f.t.n_open, 0);
  CHECK_EQ(f.t.n_active, 2);
  EXPECT(&f, wr(&f, 2, 0, 4 * KB), E(TOO_MANY_ACTIVE_ZONES));
  /* Active zones can be reopened (no new active resource). */
  EXPECT(&f, wr(&f, 0, 4 * KB, 4 * KB), 0);
  EXPECT(&f, zs_mgmt(&f.t, 1, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(f.t.n_open, 2);
  /* Finishing frees one. */
  EXPECT(&f, zs_mgmt(&f.t, 0, ZKV_ZONE_FINISH), 0);
  CHECK_EQ(f.t.n_active, 1);
  EXPECT(&f, wr(&f, 2, 0, 4 * KB), 0);
  EXPECT(&f, zs_mgmt(&f.t, 3, ZKV_ZONE_OPEN), E(TOO_MANY_ACTIVE_ZONES));
  /* Resetting frees one. */
  EXPECT(&f, zs_mgmt(&f.t, 2, ZKV_ZONE_RESET), 0);
  EXPECT(&f, zs_mgmt(&f.t, 3, ZKV_ZONE_OPEN), 0);
  EXPECT(&f, wr(&f, 4, 0, 4 * KB), E(TOO_MANY_ACTIVE_ZONES));
  /* Closing an unwritten explicitly open zone returns it to Empty and frees its resource. */
  EXPECT(&f, zs_mgmt(&f.t, 3, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(cond(&f, 3), EMPTY);
  EXPECT(&f, zs_mgmt(&f.t, 4, ZKV_ZONE_FINISH), 0); /* empty -> full with one resource free */
  CHECK_EQ(cond(&f, 4), FULL);
  CHECK_EQ(f.t.n_active, 1);
  /* Filling frees one. */
  EXPECT(&f, wr(&f, 5, 0, 48 * KB), 0);
  CHECK_EQ(cond(&f, 5), FULL);
  CHECK_EQ(f.t.n_active, 1);

  /* Both limits: open 2, active 3. An implicit close cannot make an active resource. */
  g = geo(4096, 6, 64 * KB, 48 * KB, 2, 3, 16 * KB);
  fx_init(&f, &g);
  EXPECT(&f, wr(&f, 0, 0, 4 * KB), 0);
  EXPECT(&f, wr(&f, 1, 0, 4 * KB), 0);
  EXPECT(&f, wr(&f, 2, 0, 4 * KB), 0); /* closes zone 0 */
  CHECK_EQ(cond(&f, 0), CLOSED);
  CHECK_EQ(f.t.n_active, 3);
  EXPECT(&f, wr(&f, 3, 0, 4 * KB), E(TOO_MANY_ACTIVE_ZONES));
  CHECK_EQ(cond(&f, 1), IOPEN); /* the failed attempt closed nothing */
  CHECK_EQ(cond(&f, 2), IOPEN);
  EXPECT(&f, zs_mgmt(&f.t, 3, ZKV_ZONE_OPEN), E(TOO_MANY_ACTIVE_ZONES));
  CHECK_EQ(cond(&f, 1), IOPEN);
  /* Reopening the closed zone swaps open resources. */
  EXPECT(&f, wr(&f, 0, 4 * KB, 4 * KB), 0);
  CHECK_EQ(cond(&f, 1), CLOSED);
  CHECK_EQ(f.t.n_open, 2);
  CHECK_EQ(f.t.n_active, 3);
  /* Both explicitly open + a closed one: open fails with too many open (active is free for closed). */
  EXPECT(&f, zs_mgmt(&f.t, 0, ZKV_ZONE_OPEN), 0);
  EXPECT(&f, zs_mgmt(&f.t, 2, ZKV_ZONE_OPEN), 0);
  EXPECT(&f, zs_mgmt(&f.t, 1, ZKV_ZONE_OPEN), E(TOO_MANY_OPEN_ZONES));
  EXPECT(&f, wr(&f, 1, 4 * KB, 4 * KB), E(TOO_MANY_OPEN_ZONES));
  EXPECT(&f, wr(&f, 3, 0, 4 * KB), E(TOO_MANY_ACTIVE_ZONES)); /* active checked first for an empty zone */
  printf("  active limit ok\n");
}

static void test_misc(void) {
  /* zs_cond_valid */
  const uint32_t valid[] = {EMPTY, IOPEN, EOPEN, CLOSED, RO, FULL, OFFLINE};
  for (size_t i = 0; i < 7; i++) CHECK(zs_cond_valid(valid[i]));
  const uint32_t invalid[] = {0, 5, 6, 0xC, 0x10, 0xFF, UINT32_MAX};
  for (size_t i = 0; i < 7; i++) CHECK(!zs_cond_valid(invalid[i]));
  /* zs_status_name: a distinct name for every status */
  CHECK(strcmp(zs_status_name(0), "success") == 0);
  CHECK(strcmp(zs_status_name(-EIO), "host error") == 0);
  for (size_t i = 0; i < NCODES; i++) {
    const char *n = zs_status_name(ZKV_ERR(ALL_CODES[i]));
    CHECK(n && strcmp(n, "NVMe error") != 0 && strcmp(n, "host error") != 0);
    for (size_t j = 0; j < i; j++) CHECK(strcmp(n, zs_status_name(ZKV_ERR(ALL_CODES[j]))) != 0);
  }
  CHECK(strcmp(zs_status_name(ZKV_ERR(ZKV_NVME_ZONE_IS_FULL)), "Zone Is Full") == 0);
  CHECK(strcmp(zs_status_name(ZKV_ERR(0x1FF)), "NVMe error") == 0);

  /* zs_recount rebuilds the counters from the conditions (after loading a table). */
  fixture f;
  zkv_geometry g = geo(4096, 8, 64 * KB, 64 * KB, 4, 6, 16 * KB);
  fx_init(&f, &g);
  CHECK_EQ(wr(&f, 0, 0, 4 * KB), 0);
  CHECK_EQ(zs_mgmt(&f.t, 1, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(wr(&f, 2, 0, 4 * KB), 0);
  CHECK_EQ(zs_mgmt(&f.t, 2, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(zs_mgmt(&f.t, 3, ZKV_ZONE_FINISH), 0);
  f.t.n_open = f.t.n_imp_open = f.t.n_active = 77;
  zs_recount(&f.t);
  CHECK_EQ(f.t.n_open, 2);
  CHECK_EQ(f.t.n_imp_open, 1);
  CHECK_EQ(f.t.n_active, 3);
  fx_check(&f);

  /* zs_set keeps the counters right and notifies. */
  uint64_t n = f.notifications;
  zs_set(&f.t, 0, CLOSED, 4 * KB);
  CHECK_EQ(f.notifications, n + 1);
  CHECK_EQ(f.t.n_open, 1);
  CHECK_EQ(f.t.n_imp_open, 0);
  CHECK_EQ(f.t.n_active, 3);
  fx_check(&f);

  /* A table without an owner callback works. */
  zs_entry z[2] = {{0, EMPTY, 0}, {0, EMPTY, 0}};
  zs_table t = {.geo = geo(4096, 2, 16 * KB, 16 * KB, 1, 1, 8 * KB), .zones = z};
  uint64_t a;
  CHECK_EQ(zs_write(&t, 0, 0, 0, 1, &a), E(INVALID_FIELD));
  CHECK_EQ(zs_write(&t, 0, 0, 8 * KB, 1, &a), 0);
  CHECK_EQ(zs_write(&t, 1, 0, 8 * KB, 1, &a), E(TOO_MANY_ACTIVE_ZONES));
  CHECK_EQ(zs_write(&t, 0, 0, 8 * KB, 1, &a), 0);
  CHECK_EQ(a, 8 * KB);
  CHECK_EQ(z[0].cond, FULL);
  CHECK_EQ(zs_write(&t, 1, 0, 8 * KB, 1, &a), 0);
  printf("  misc ok\n");
}

/* ---------- randomized comparison with a reference model ---------- */

typedef struct model {
  zkv_geometry g;
  uint32_t cond[MAXZ];
  uint64_t written[MAXZ];
  uint32_t cursor;
} model;

static uint32_t m_count(const model *m, int (*pred)(uint32_t)) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->g.nr_zones; i++) n += pred(m->cond[i]) != 0;
  return n;
}
static int pred_imp(uint32_t c) { return c == IOPEN; }

static void m_close(model *m, uint32_t z) { m->cond[z] = m->written[z] ? CLOSED : EMPTY; }

/* Resources to move zone z from Empty/Closed to an open condition. */
static int m_reserve(model *m, uint32_t z) {
  if (m->cond[z] == EMPTY && m->g.max_active && m_count(m, is_active) >= m->g.max_active)
    return E(TOO_MANY_ACTIVE_ZONES);
  if ((m->cond[z] == EMPTY || m->cond[z] == CLOSED) && m->g.max_open && m_count(m, is_open) >= m->g.max_open) {
    for (uint32_t k = 0; k < m->g.nr_zones; k++) {
      uint32_t v = (m->cursor + k) % m->g.nr_zones;
      if (m->cond[v] == IOPEN) {
        m_close(m, v);
        m->cursor = (v + 1) % m->g.nr_zones;
        return 0;
      }
    }
    return E(TOO_MANY_OPEN_ZONES);
  }
  return 0;
}

static int m_write(model *m, uint32_t z, uint64_t rel, uint64_t len, int append, uint64_t *assigned) {
  const zkv_geometry *g = &m->g;
  if (z >= g->nr_zones) return E(LBA_OUT_OF_RANGE);
  if (len == 0 || len % g->lba_size || rel % g->lba_size || (append && len > g->zasl)) return E(INVALID_FIELD);
  switch (m->cond[z]) {
    case OFFLINE: return E(ZONE_IS_OFFLINE);
    case RO: return E(ZONE_IS_READ_ONLY);
    case FULL: return E(ZONE_IS_FULL);
  }
  if (!append && rel != m->written[z]) return E(ZONE_INVALID_WRITE);
  if (len > g->zone_cap - m->written[z]) return E(ZONE_BOUNDARY_ERROR);
  int rc = m_reserve(m, z);
  if (rc) return rc;
  *assigned = m->written[z];
  m->written[z] += len;
  if (m->written[z] == g->zone_cap)
    m->cond[z] = FULL;
  else if (m->cond[z] != EOPEN)
    m->cond[z] = IOPEN;
  return 0;
}

static int m_read(const model *m, uint64_t off, uint64_t len) {
  const zkv_geometry *g = &m->g;
  uint64_t total = (uint64_t)g->nr_zones * g->zone_size;
  if (len == 0 || len % g->lba_size || off % g->lba_size) return E(INVALID_FIELD);
  if (off >= total || len > total - off) return E(LBA_OUT_OF_RANGE);
  if (off / g->zone_size != (off + len - 1) / g->zone_size) return E(ZONE_BOUNDARY_ERROR);
  if (m->cond[off / g->zone_size] == OFFLINE) return E(ZONE_IS_OFFLINE);
  return 0;
}

static int m_mgmt(model *m, uint32_t z, int action) {
  if (z >= m->g.nr_zones) return E(LBA_OUT_OF_RANGE);
  if (action != ZKV_ZONE_OPEN && action != ZKV_ZONE_CLOSE && action != ZKV_ZONE_FINISH && action != ZKV_ZONE_RESET)
    return E(INVALID_FIELD);
  uint32_t c = m->cond[z];
  const int bad = E(INVALID_ZONE_STATE_TRANSITION);
  if (c == RO || c == OFFLINE) return bad;
  int rc;
  switch (action) {
    case ZKV_ZONE_OPEN:
      if (c == FULL) return bad;
      if ((rc = m_reserve(m, z))) return rc;
      m->cond[z] = EOPEN;
      return 0;
    case ZKV_ZONE_CLOSE:
      if (c == CLOSED) return 0;
      if (c != IOPEN && c != EOPEN) return bad;
      m_close(m, z);
      return 0;
    case ZKV_ZONE_FINISH:
      if (c == FULL) return 0;
      if (c == EMPTY && m->g.max_active && m_count(m, is_active) >= m->g.max_active) return E(TOO_MANY_ACTIVE_ZONES);
      m->cond[z] = FULL;
      m->written[z] = m->g.zone_cap;
      return 0;
    default: /* reset */
      m->cond[z] = EMPTY;
      m->written[z] = 0;
      return 0;
  }
}

static uint64_t rng_state;
static uint64_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

static uint64_t g_seed;
static char op_desc[256];
#define RCHECK_EQ(a, b)                                                                                              \
  do {                                                                                                               \
    long long _x = (long long)(a), _y = (long long)(b);                                                              \
    if (_x != _y) {                                                                                                  \
      fprintf(stderr, "random test (ZKV_SEED=%" PRIu64 ") after %s: %s == %lld, model says %lld\n", g_seed, op_desc, \
              #a, _x, _y);                                                                                           \
    }                                                                                                                \
    CHECK_EQ(_x, _y);                                                                                                \
  } while (0)

static void compare(const fixture *f, const model *m) {
  for (uint32_t i = 0; i < m->g.nr_zones; i++) {
    RCHECK_EQ(f->zones[i].cond, m->cond[i]);
    RCHECK_EQ(f->zones[i].written, m->written[i]);
  }
  RCHECK_EQ(f->t.n_open, m_count(m, is_open));
  RCHECK_EQ(f->t.n_imp_open, m_count(m, pred_imp));
  RCHECK_EQ(f->t.n_active, m_count(m, is_active));
  if (m->g.max_open) CHECK(f->t.n_open <= m->g.max_open);
  if (m->g.max_active) CHECK(f->t.n_active <= m->g.max_active);
  fx_check(f);
}

static zkv_geometry random_geometry(void) {
  zkv_geometry g = {0};
  g.lba_size = below(2) ? 512 : 4096;
  g.nr_zones = 1 + (uint32_t)below(12);
  uint64_t zblocks = 1 + below(16);
  g.zone_size = zblocks * g.lba_size;
  uint64_t cblocks = below(3) ? 1 + below(zblocks) : zblocks;
  g.zone_cap = cblocks * g.lba_size;
  g.zasl = (uint32_t)((1 + below(cblocks)) * g.lba_size);
  switch (below(4)) {
    case 0: break; /* no limits */
    case 1: g.max_open = 1 + (uint32_t)below(g.nr_zones); break;
    case 2: g.max_active = 1 + (uint32_t)below(g.nr_zones); break;
    default: g.max_active = 1 + (uint32_t)below(g.nr_zones); g.max_open = 1 + (uint32_t)below(g.max_active);
  }
  return g;
}

static uint64_t random_len(const zkv_geometry *g, int append) {
  uint64_t lba = g->lba_size;
  switch (below(20)) {
    case 0: return 0;
    case 1: return lba * (1 + below(4)) + 1 + below(lba - 1); /* misaligned */
    case 2: return g->zone_cap + lba * below(3);
    case 3: return UINT64_MAX - lba + 1; /* wraps */
    case 4: return (uint64_t)g->zasl + lba;
    default: {
      uint64_t maxb = append ? g->zasl / lba : g->zone_cap / lba;
      return lba * (1 + below(below(3) ? (maxb < 4 ? maxb : 4) : maxb));
    }
  }
}

static uint64_t random_rel(const zkv_geometry *g, uint64_t written) {
  switch (below(8)) {
    case 0: return below(g->zone_size / g->lba_size) * g->lba_size;
    case 1: return written + 1 + below(g->lba_size - 1);
    default: return written;
  }
}

static uint32_t random_zone(const zkv_geometry *g) {
  if (below(40) == 0) return below(2) ? g->nr_zones + (uint32_t)below(3) : UINT32_MAX;
  return (uint32_t)below(g->nr_zones);
}

static void test_random(void) {
  const char *env = getenv("ZKV_SEED");
  g_seed = env && *env ? strtoull(env, NULL, 0) : ((uint64_t)time(NULL) * 1000003u) ^ (uint64_t)getpid();
  printf("  random test seed %" PRIu64 " (set ZKV_SEED to repeat)\n", g_seed);
  rng_state = g_seed * 0x9E3779B97F4A7C15ull + 1;
  if (!rng_state) rng_state = 1;
  uint64_t ops = 0, ok = 0;
  uint64_t by_code[NCODES] = {0};
  for (int round = 0; round < 300; round++) {
    fixture f;
    model m;
    zkv_geometry g = random_geometry();
    fx_init(&f, &g);
    memset(&m, 0, sizeof m);
    m.g = g;
    for (uint32_t i = 0; i < g.nr_zones; i++) m.cond[i] = EMPTY;
    compare(&f, &m);
    for (int step = 0; step < 1500; step++, ops++) {
      int kind = (int)below(100);
      int rc_t = 0, rc_m = 0;
      if (kind < 35) { /* write */
        uint32_t z = random_zone(&g);
        uint64_t rel = random_rel(&g, z < g.nr_zones ? m.written[z] : 0), len = random_len(&g, 0);
        uint64_t at = 0xAB, am = 0xAB;
        snprintf(op_desc, sizeof op_desc, "round %d step %d: write zone %u rel %" PRIu64 " len %" PRIu64, round, step,
                 z, rel, len);
        rc_t = zs_write(&f.t, z, rel, len, 0, &at);
        rc_m = m_write(&m, z, rel, len, 0, &am);
        RCHECK_EQ(rc_t, rc_m);
        RCHECK_EQ(at, am);
      } else if (kind < 60) { /* append */
        uint32_t z = random_zone(&g);
        uint64_t len = random_len(&g, 1), at = 0xAB, am = 0xAB;
        snprintf(op_desc, sizeof op_desc, "round %d step %d: append zone %u len %" PRIu64, round, step, z, len);
        rc_t = zs_write(&f.t, z, 0, len, 1, &at);
        rc_m = m_write(&m, z, 0, len, 1, &am);
        RCHECK_EQ(rc_t, rc_m);
        RCHECK_EQ(at, am);
      } else if (kind < 85) { /* zone management */
        uint32_t z = random_zone(&g);
        int action = below(25) ? 1 + (int)below(4) : (int)below(8) - 1;
        snprintf(op_desc, sizeof op_desc, "round %d step %d: mgmt zone %u action %d", round, step, z, action);
        rc_t = zs_mgmt(&f.t, z, action);
        rc_m = m_mgmt(&m, z, action);
        RCHECK_EQ(rc_t, rc_m);
      } else if (kind < 96) { /* read check */
        uint64_t total = (uint64_t)g.nr_zones * g.zone_size, off, len;
        off = below(10) ? below(total / g.lba_size + 2) * g.lba_size : below(total + 8192);
        len = below(6) ? g.lba_size * (1 + below(2 * g.zone_size / g.lba_size)) : random_len(&g, 0);
        snprintf(op_desc, sizeof op_desc, "round %d step %d: read %" PRIu64 "+%" PRIu64, round, step, off, len);
        rc_t = zs_check_read(&f.t, off, len);
        rc_m = m_read(&m, off, len);
        RCHECK_EQ(rc_t, rc_m);
      } else if (kind < 97) { /* a zone fails: read-only or offline (rare) */
        if (below(3)) continue;
        uint32_t z = (uint32_t)below(g.nr_zones), c = below(2) ? RO : OFFLINE;
        uint64_t w = c == RO ? m.written[z] : 0;
        snprintf(op_desc, sizeof op_desc, "round %d step %d: zone %u fails -> %u", round, step, z, c);
        zs_set(&f.t, z, c, w);
        m.cond[z] = c, m.written[z] = w;
      } else if (kind < 98) { /* a failed zone is replaced (reformatted) */
        uint32_t z = (uint32_t)below(g.nr_zones);
        if (m.cond[z] == RO || m.cond[z] == OFFLINE) {
          snprintf(op_desc, sizeof op_desc, "round %d step %d: zone %u replaced", round, step, z);
          zs_set(&f.t, z, EMPTY, 0);
          m.cond[z] = EMPTY, m.written[z] = 0;
        }
      } else if (kind < 99) { /* power cycle: open zones become closed (empty if unwritten) */
        snprintf(op_desc, sizeof op_desc, "round %d step %d: power cycle", round, step);
        zs_recount(&f.t);
        for (uint32_t i = 0; i < g.nr_zones; i++)
          if (f.zones[i].cond == IOPEN || f.zones[i].cond == EOPEN)
            zs_set(&f.t, i, f.zones[i].written ? CLOSED : EMPTY, f.zones[i].written);
        for (uint32_t i = 0; i < g.nr_zones; i++)
          if (is_open(m.cond[i])) m_close(&m, i);
      } else { /* recount agrees with the incremental counters */
        snprintf(op_desc, sizeof op_desc, "round %d step %d: recount", round, step);
        uint32_t o = f.t.n_open, io = f.t.n_imp_open, a = f.t.n_active;
        zs_recount(&f.t);
        RCHECK_EQ(f.t.n_open, o);
        RCHECK_EQ(f.t.n_imp_open, io);
        RCHECK_EQ(f.t.n_active, a);
      }
      if (rc_t == 0) ok++;
      for (size_t i = 0; i < NCODES; i++)
        if (rc_t == ZKV_ERR(ALL_CODES[i])) by_code[i]++;
      compare(&f, &m);
    }
  }
  printf("  random test: %" PRIu64 " ops, %" PRIu64 " succeeded; per status:", ops, ok);
  for (size_t i = 0; i < NCODES; i++) printf(" %x:%" PRIu64, ALL_CODES[i], by_code[i]);
  printf("\n");
  for (size_t i = 0; i < NCODES; i++) CHECK(by_code[i] > 0); /* the random mix reaches every status */
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  test_writes();
  test_mgmt_matrix();
  test_reads();
  test_open_limit();
  test_active_limit();
  test_misc();
  for (size_t i = 0; i < NCODES; i++) {
    if (!code_seen[i]) fprintf(stderr, "status 0x%x never produced by the directed tests\n", ALL_CODES[i]);
    CHECK(code_seen[i]);
  }
  test_random();
  TEST_DONE("test_zone_state");
  return 0;
}
