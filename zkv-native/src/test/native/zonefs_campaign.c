/* A randomized crash campaign for the zone file system (docs/zone-fs.md, "The crash campaign").
 *
 *   zonefs_campaign [cycles=60] [seed=time]
 *
 * Each cycle forks a child that mounts the device, runs a random sequence of operations (create,
 * append, sync, close, rename, delete, remount, filling the device to NoSpace and freeing it
 * again, reclaim), and reports every operation to the parent through a pipe before it starts
 * ("pending") and after it is acknowledged. The cycle ends in one of five ways: a clean unmount,
 * SIGKILL at a random moment, a power cut between operations (every cached write lost, or each
 * kept, lost or torn), or a power cut in the middle of an operation (the device fails every write
 * from a random step on, then loses power). The parent then mounts the device and checks it
 * against its model: every acknowledged operation is there, the one in flight is there wholly or
 * not at all, every file holds exactly its own bytes, its size lies between what was synced and
 * what was written, and fsck finds nothing. Geometries rotate per cycle, each on its own device
 * that lives across cycles: zones with capacity below and equal to their size, small and large
 * zones, active limits 4 and 14. Every mount keeps a seeded WAL reserve (wal_reserve.c). Exits non-zero at the first
 * violation, naming seed and cycle. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "zfs_fixture.h"

enum { NAMES = 8, IDENTS = 4096, WRITERS = 3 };

typedef struct ident {
  uint64_t seed;
  uint64_t synced;  /* acknowledged by a sync */
  uint64_t written; /* appended (perhaps not durable) */
  int name;         /* index in NAMES, or -1 once deleted */
} ident;

typedef struct model {
  int name_of[NAMES]; /* ident per name, -1 = absent */
  ident id[IDENTS];
  int n_ids;
} model;

/* Messages from the child. */
enum { M_PENDING = 1, M_ACK = 2 };
enum { OP_CREATE = 1, OP_APPEND, OP_SYNC, OP_RENAME, OP_DELETE };
typedef struct msg {
  int kind, op;
  int a, b;      /* names, or ident for append/sync */
  uint64_t size; /* create: seed; append: bytes; sync: size synced */
} msg;

typedef struct geometry_case {
  const char *label;
  zkv_geometry geo;
  char path[120];
  model m;
} geometry_case;

static geometry_case CASES[] = {
    {"small zones, capacity < size, active 6",
     {.lba_size = 4096,
      .nr_zones = 24,
      .zone_size = 4 << 20,
      .zone_cap = 3 << 20,
      .max_open = 6,
      .max_active = 6,
      .zasl = 256 << 10},
     "",
     {{0}, {{0}}, 0}},
    {"small zones, capacity = size, active 14",
     {.lba_size = 4096,
      .nr_zones = 24,
      .zone_size = 4 << 20,
      .zone_cap = 4 << 20,
      .max_open = 14,
      .max_active = 14,
      .zasl = 256 << 10},
     "",
     {{0}, {{0}}, 0}},
    {"large zones, capacity < size, active 4",
     {.lba_size = 4096,
      .nr_zones = 12,
      .zone_size = 16 << 20,
      .zone_cap = 11 << 20,
      .max_open = 4,
      .max_active = 4,
      .zasl = 256 << 10},
     "",
     {{0}, {{0}}, 0}},
    {"large zones, capacity = size, active 4",
     {.lba_size = 4096,
      .nr_zones = 12,
      .zone_size = 16 << 20,
      .zone_cap = 16 << 20,
      .max_open = 4,
      .max_active = 4,
      .zasl = 256 << 10},
     "",
     {{0}, {{0}}, 0}},
};
#define N_CASES (sizeof CASES / sizeof *CASES)

static const char *name_str(int i) {
  static char buf[NAMES][32];
  /* every other name a WAL: sparse files, whose synced chunks a mount reads back from the zone */
  snprintf(buf[i], sizeof buf[i], i % 2 ? "/db/%06d.log" : "/db/%06d.sst", i);
  return buf[i];
}

/* ---------- the model ---------- */

static void apply(model *m, const msg *x) {
  switch (x->op) {
    case OP_CREATE: {
      int old = m->name_of[x->a];
      if (old >= 0) m->id[old].name = -1;
      CHECK(m->n_ids < IDENTS);
      m->id[m->n_ids] = (ident){x->size, 0, 0, x->a};
      m->name_of[x->a] = m->n_ids++;
      break;
    }
    case OP_APPEND: m->id[x->a].written += x->size; break;
    case OP_SYNC:
      if (x->size > m->id[x->a].synced) m->id[x->a].synced = x->size;
      break;
    case OP_RENAME: {
      int moved = m->name_of[x->a], old = m->name_of[x->b];
      if (old >= 0 && old != moved) m->id[old].name = -1;
      m->name_of[x->b] = moved;
      m->name_of[x->a] = -1;
      m->id[moved].name = x->b;
      break;
    }
    case OP_DELETE: {
      int old = m->name_of[x->a];
      m->name_of[x->a] = -1;
      m->id[old].name = -1;
      break;
    }
  }
}

/* Returns NULL if the mounted file system matches the model, else what differs. */
static const char *compare(zfs *fs, const model *m, char *why, size_t n) {
  for (int i = 0; i < NAMES; i++) {
    uint64_t size = 0;
    int present = zfs_stat(fs, name_str(i), &size) == 0;
    int idx = m->name_of[i];
    if (!present && idx < 0) continue;
    if (present != (idx >= 0)) {
      snprintf(why, n, "%s is %s", name_str(i), present ? "present, the model has it deleted" : "missing");
      return why;
    }
    const ident *d = &m->id[idx];
    if (size < d->synced || size > d->written) {
      snprintf(why, n, "%s has %llu bytes, synced %llu, written %llu", name_str(i), (unsigned long long)size,
               (unsigned long long)d->synced, (unsigned long long)d->written);
      return why;
    }
    int rc = 0;
    zfs_file *f = zfs_open(fs, name_str(i), &rc);
    CHECK(f != NULL);
    uint8_t *buf = malloc(size + 1), *want = malloc(size + 1);
    int64_t got = zfs_pread(f, 0, buf, size);
    fill(want, d->seed, 0, size);
    int same = got == (int64_t)size && memcmp(buf, want, size) == 0;
    free(buf);
    free(want);
    zfs_close(f);
    if (!same) {
      snprintf(why, n, "%s (%llu bytes) does not hold its own bytes (read %lld)", name_str(i), (unsigned long long)size,
               (long long)got);
      return why;
    }
  }
  return NULL;
}

/* ---------- the child ---------- */

typedef struct child {
  int fd; /* pipe to the parent */
  zkv_dev *dev;
  zfs *fs;
  model m; /* the child's own view, to choose valid operations */
  zfs_file *w[WRITERS];
  int w_ident[WRITERS];
  uint64_t rng;
  uint64_t next_seed;
} child;

static void send_msg(child *c, int kind, int op, int a, int b, uint64_t size) {
  msg x = {kind, op, a, b, size};
  CHECK_EQ(write(c->fd, &x, sizeof x), (ssize_t)sizeof x);
  if (kind == M_ACK) apply(&c->m, &x);
}

static int writer_of(child *c, int ident_idx) {
  for (int i = 0; i < WRITERS; i++)
    if (c->w[i] && c->w_ident[i] == ident_idx) return i;
  return -1;
}

static void abandon_writer(child *c, int slot) {
  zfs_close(c->w[slot]); /* its sync may fail again: nothing more is acknowledged */
  c->w[slot] = NULL;
}

static uint64_t rnd(child *c, uint64_t n) { return zkv_rng_next(&c->rng) % n; }

/* One random operation; returns the device's result (a failure ends the cycle's work). */
static int one_op(child *c) {
  int name = (int)rnd(c, NAMES), other = (int)rnd(c, NAMES), slot = (int)rnd(c, WRITERS);
  int idx = c->m.name_of[name];
  int op = (int)rnd(c, 12);
  if (op >= 2 && op <= 6) /* appends and syncs go to an open writer, if there is one */
    for (int k = 0; k < WRITERS && !c->w[slot]; k++) slot = (slot + 1) % WRITERS;
  switch (op) {
    case 0:
    case 1: { /* create (a writer) */
      if (c->w[slot] || (idx >= 0 && writer_of(c, idx) >= 0)) return 0;
      uint64_t seed = c->next_seed++;
      send_msg(c, M_PENDING, OP_CREATE, name, 0, seed);
      int rc = 0;
      zfs_file *f = zfs_create(c->fs, name_str(name), (uint32_t)rnd(c, 6), &rc);
      if (!f) return rc;
      send_msg(c, M_ACK, OP_CREATE, name, 0, seed);
      c->w[slot] = f;
      c->w_ident[slot] = c->m.name_of[name];
      return 0;
    }
    case 2:
    case 3:
    case 4: { /* append */
      if (!c->w[slot]) return 0;
      ident *d = &c->m.id[c->w_ident[slot]];
      size_t n = 1 + rnd(c, rnd(c, 4) ? 20000 : 1500000);
      uint8_t *buf = malloc(n);
      fill(buf, d->seed, d->written, n);
      send_msg(c, M_ACK, OP_APPEND, c->w_ident[slot], 0, n); /* before: `written` is an upper bound */
      int rc = zfs_append(c->w[slot], buf, n);
      free(buf);
      if (rc == -ENOSPC) abandon_writer(c, slot); /* a prefix may have gone in: no more appends */
      return rc;
    }
    case 5:
    case 6: { /* sync or close */
      if (!c->w[slot]) return 0;
      int id = c->w_ident[slot];
      uint64_t size = c->m.id[id].written;
      int close_it = rnd(c, 2);
      int rc = close_it ? zfs_close(c->w[slot]) : zfs_sync(c->w[slot]);
      if (close_it) c->w[slot] = NULL;
      if (rc == -ENOSPC && !close_it) abandon_writer(c, slot);
      if (rc) return rc;
      send_msg(c, M_ACK, OP_SYNC, id, 0, size);
      return 0;
    }
    case 7: { /* rename over whatever `other` is */
      if (idx < 0 || other == name) return 0;
      int old = c->m.name_of[other];
      if (old >= 0 && writer_of(c, old) >= 0) return 0;
      send_msg(c, M_PENDING, OP_RENAME, name, other, 0);
      int rc = zfs_rename(c->fs, name_str(name), name_str(other));
      if (rc) return rc;
      send_msg(c, M_ACK, OP_RENAME, name, other, 0);
      return 0;
    }
    case 8:
    case 9: { /* delete (also of a file being written) */
      if (idx < 0) return 0;
      send_msg(c, M_PENDING, OP_DELETE, name, 0, 0);
      int rc = zfs_delete(c->fs, name_str(name));
      if (rc) return rc;
      send_msg(c, M_ACK, OP_DELETE, name, 0, 0);
      return 0;
    }
    case 10: { /* fill the device to NoSpace, then free it (GC pressure, full device) */
      int rc = 0;
      zfs_file *f = zfs_create(c->fs, "/db/filler", 2, &rc);
      if (!f) return rc == -ENOSPC ? 0 : rc;
      uint8_t *buf = calloc(1, 1 << 20);
      for (int i = 0; i < 400 && !rc; i++) rc = zfs_append(f, buf, 1 << 20);
      free(buf);
      int crc = zfs_close(f);
      if (rc && rc != -ENOSPC) return rc;
      if (crc && crc != -ENOSPC) return crc;
      rc = zfs_delete(c->fs, "/db/filler");
      return rc;
    }
    default: /* reclaim */ zfs_reclaim(c->fs, UINT64_MAX); return 0;
  }
}

/* Half the cycles write their WALs (*.log) in ZWAL mode (zone appends completing out of order on a
 * reordering device), at a seeded buffer and queue depth; the parent verifies in the FILE mode. */
static int cycle_zwal;
static uint64_t zwal_cycles;

static void mount_child(child *c) {
  c->dev = open_dev();
  c->fs = mount_ok(c->dev);
  /* WALTZ's WAL reserve (0, 1 or 2 zones; the active limit 4 keeps none), half the time with a
   * switch room of up to 1 MiB, so that WALs move to reserved zones often and the zones they left
   * are finished in the background while the cycle ends */
  CHECK_EQ(zfs_set_wal_reserve(c->fs, (uint32_t)rnd(c, 3), rnd(c, 2) ? 0 : (uint64_t)(1 + rnd(c, 8)) << 17), 0);
  if (cycle_zwal) {
    uint32_t buffers[] = {4096, 8192, 65536, 1u << 20};
    CHECK_EQ(zfs_set_wal_buffer(c->fs, buffers[rnd(c, 4)]), 0);
    CHECK_EQ(zfs_set_wal_mode(c->fs, ZFS_WAL_ZWAL, 1 + (uint32_t)rnd(c, 16), 0), 0);
  }
}

enum { END_CLEAN, END_KILL, END_CUT_DROP, END_CUT_RANDOM, END_CUT_MIDOP, N_ENDS };
static const char *END_NAMES[] = {"clean unmount", "SIGKILL", "power cut (all cached writes lost)",
                                  "power cut (cached writes kept, lost or torn)", "power cut inside an operation"};

static void run_child(int fd, const model *m, uint64_t seed, int end) {
  child c = {.fd = fd, .rng = seed, .next_seed = seed << 8};
  c.m = *m;
  mount_child(&c);
  zfs_delete(c.fs, "/db/filler"); /* a crash may have left the last cycle's filler */
  tp_set_gc_level(c.fs, (uint32_t)(zkv_rng_next(&c.rng) % 2 ? 20 : 0));
  if (zkv_rng_next(&c.rng) % 4 == 0) { /* a quarter of the cycles: the safety rule decides alone */
    zfs_set_allocator(c.fs, NULL, NULL);
    zfs_set_victim_chooser(c.fs, NULL, NULL);
  }
  int ops = 20 + (int)(zkv_rng_next(&c.rng) % 60);
  int cut_at = (int)(zkv_rng_next(&c.rng) % (uint64_t)ops);
  if (end == END_CUT_MIDOP)
    zkv_emu_inject_error(c.dev, ZKV_FAULT_WRITE | ZKV_FAULT_APPEND | ZKV_FAULT_MGMT | ZKV_FAULT_FLUSH, -1,
                         (uint32_t)(zkv_rng_next(&c.rng) % 200), 1u << 30, -EIO);
  for (int i = 0; end == END_KILL || i < ops; i++) {
    if (i % 25 == 24 && end != END_CUT_MIDOP) { /* remount: writers close first */
      for (int k = 0; k < WRITERS; k++)
        if (c.w[k]) {
          int id = c.w_ident[k];
          uint64_t size = c.m.id[id].written;
          if (zfs_close(c.w[k]) == 0) send_msg(&c, M_ACK, OP_SYNC, id, 0, size);
          c.w[k] = NULL;
        }
      zfs_unmount(c.fs);
      zkv_dev_close(c.dev);
      mount_child(&c);
    }
    if ((end == END_CUT_DROP || end == END_CUT_RANDOM) && i == cut_at) break;
    int rc = one_op(&c);
    if (rc && rc != -ENOSPC) {
      if (end == END_CUT_MIDOP) break; /* the injected failure: the power cut follows */
      fprintf(stderr, "operation %d failed: %d (%s)\n", i, rc, zkv_dev_last_error());
      _exit(2);
    }
  }
  if (end == END_CUT_DROP || end == END_CUT_RANDOM || end == END_CUT_MIDOP)
    zkv_emu_power_cut(c.dev, end == END_CUT_DROP ? ZKV_CUT_DROP_ALL : ZKV_CUT_RANDOM, seed);
  for (int k = 0; k < WRITERS; k++)
    if (c.w[k]) {
      int id = c.w_ident[k];
      uint64_t size = c.m.id[id].written;
      if (zfs_close(c.w[k]) == 0) send_msg(&c, M_ACK, OP_SYNC, id, 0, size);
    }
  zfs_unmount(c.fs);
  zkv_dev_close(c.dev);
  _exit(0);
}

/* ---------- the parent ---------- */

static void fsck_problem(const char *msg_text, void *arg) {
  fprintf(stderr, "fsck: %s\n", msg_text);
  (*(int *)arg)++;
}

static uint64_t acked[OP_DELETE + 1], verified_bytes, present_files;
enum { TRACE_MAX = 4096 };
static msg trace[TRACE_MAX]; /* the cycle's messages, shown when it fails */
static int n_trace;

static void show_trace(void) {
  static const char *OPS[] = {"", "create", "append", "sync", "rename", "delete"};
  for (int i = 0; i < n_trace; i++)
    fprintf(stderr, "  %-7s %-6s a=%d b=%d size=%llu\n", trace[i].kind == M_PENDING ? "pending" : "ack",
            OPS[trace[i].op], trace[i].a, trace[i].b, (unsigned long long)trace[i].size);
}

static void cycle(geometry_case *gc, uint64_t seed, int n, int end) {
  GEO = gc->geo;
  snprintf(path, sizeof path, "%s", gc->path);
  cycle_zwal = (int)(seed % 2);
  zwal_cycles += (uint64_t)cycle_zwal;
  snprintf(uri, sizeof uri, "emu:%s?wcache=1&discard=1%s", path, cycle_zwal ? "&reorder=1" : "");
  int p[2];
  CHECK_EQ(pipe(p), 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    run_child(p[1], &gc->m, seed, end);
  }
  close(p[1]);
  if (end == END_KILL) { /* kill after a random delay, or when the child is done */
    struct timespec t = {0, (long)(1 + seed % 40) * 1000000L};
    nanosleep(&t, NULL);
    kill(pid, SIGKILL);
  }
  msg x, pending = {0};
  int have_pending = 0;
  n_trace = 0;
  while (read(p[0], &x, sizeof x) == (ssize_t)sizeof x) {
    if (n_trace < TRACE_MAX) trace[n_trace++] = x;
    if (x.kind == M_PENDING) {
      pending = x, have_pending = 1;
    } else {
      apply(&gc->m, &x);
      acked[x.op]++;
      if (x.op != OP_APPEND && x.op != OP_SYNC) have_pending = 0;
    }
  }
  close(p[0]);
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (end != END_KILL && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    fprintf(stderr, "cycle %d (seed %llu): the child failed (status %d)\n", n, (unsigned long long)seed, status);
    show_trace();
    exit(1);
  }
  zkv_dev *d = open_dev();
  int rc = 0;
  zfs *fs = zfs_mount(d, &rc, err, sizeof err);
  if (!fs) {
    fprintf(stderr, "cycle %d (seed %llu, %s, %s): the device no longer mounts: %s\n", n, (unsigned long long)seed,
            gc->label, END_NAMES[end], err);
    exit(1);
  }
  char why[512];
  const char *diff = compare(fs, &gc->m, why, sizeof why);
  if (diff && have_pending) { /* the operation in flight took effect wholly */
    model with = gc->m;
    apply(&with, &pending);
    char why2[512];
    if (!compare(fs, &with, why2, sizeof why2)) {
      gc->m = with;
      diff = NULL;
    }
  }
  int problems = 0;
  zfs_check(fs, fsck_problem, &problems);
  if (diff || problems) {
    fprintf(stderr, "cycle %d (seed %llu, %s, %s): %s\n", n, (unsigned long long)seed, gc->label, END_NAMES[end],
            diff ? diff : "fsck found problems");
    show_trace();
    exit(1);
  }
  /* After a crash, unsynced bytes may be gone: the model keeps what the device holds. */
  for (int i = 0; i < NAMES; i++) {
    int idx = gc->m.name_of[i];
    if (idx < 0) continue;
    uint64_t size = 0;
    zfs_stat(fs, name_str(i), &size);
    verified_bytes += size, present_files++;
    gc->m.id[idx].synced = gc->m.id[idx].written = size;
  }
  zfs_unmount(fs);
  zkv_dev_close(d);
}

int main(int argc, char **argv) {
  int cycles = argc > 1 ? atoi(argv[1]) : 60;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
  make_temp_dir();
  printf("zonefs_campaign: %d cycles, seed %llu (replay: zonefs_campaign %d %llu)\n", cycles, (unsigned long long)seed,
         cycles, (unsigned long long)seed);
  for (size_t i = 0; i < N_CASES; i++) {
    snprintf(CASES[i].path, sizeof CASES[i].path, "%s/dev%zu.zkvemu", dir, i);
    CHECK_EQ(zkv_emu_format(CASES[i].path, &CASES[i].geo), 0);
    GEO = CASES[i].geo;
    snprintf(path, sizeof path, "%s", CASES[i].path);
    snprintf(uri, sizeof uri, "emu:%s", path);
    zkv_dev *d = open_dev();
    CHECK_EQ(zfs_mkfs(d, NULL, err, sizeof err), 0);
    zkv_dev_close(d);
    for (int k = 0; k < NAMES; k++) CASES[i].m.name_of[k] = -1;
  }
  int ends[N_ENDS] = {0};
  uint64_t rng = seed;
  for (int n = 0; n < cycles; n++) {
    int end = (int)(zkv_rng_next(&rng) % N_ENDS);
    cycle(&CASES[n % N_CASES], zkv_rng_next(&rng), n, end);
    ends[end]++;
  }
  for (size_t i = 0; i < N_CASES; i++) unlink(CASES[i].path);
  rmdir(dir);
  printf("zonefs_campaign: %d cycles passed on %zu geometries (", cycles, N_CASES);
  for (int e = 0; e < N_ENDS; e++) printf("%s%s %d", e ? ", " : "", END_NAMES[e], ends[e]);
  printf("); %llu of them with the WALs in ZWAL mode; every acknowledged operation verified after each\n",
         (unsigned long long)zwal_cycles);
  printf(
      "zonefs_campaign: acknowledged %llu creates, %llu appends, %llu syncs, %llu renames, %llu deletes; verified "
      "%llu files, %llu MiB\n",
      (unsigned long long)acked[OP_CREATE], (unsigned long long)acked[OP_APPEND], (unsigned long long)acked[OP_SYNC],
      (unsigned long long)acked[OP_RENAME], (unsigned long long)acked[OP_DELETE], (unsigned long long)present_files,
      (unsigned long long)(verified_bytes >> 20));
  return 0;
}
