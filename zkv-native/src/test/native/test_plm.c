/* Tests of the emulator's plm profile against the NVMe I/O Determinism rules it models
 * (docs/timing-model.md, "The plm profile"): the admin commands' layouts, PLM off by default, a
 * write ending DTWIN autonomously (Event Type bit 14, the event aggregate, clearing by reading the
 * log), the NDWIN minimum delaying a DTWIN request, a lockdown growing with the bytes written in
 * the NDWIN before, DTWIN Time Maximum, the internal job queue's limit forcing NDWIN (bit 15),
 * read reclaim and live estimates, stalls only outside DTWIN, sets isolated from each other, and
 * URI validation. The window clock is virtual (clock=manual), so every check is exact whatever the
 * host's load; one check on the real clock asserts only a lower bound. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/le_bytes.h"
#include "test_util.h"
#include "zkv/device.h"

#define KiB 1024ull
#define MiB (1024ull * 1024ull)
#define MS 1000000ull
#define WIN_DT 1
#define WIN_ND 2
#define EV_BIT14 0x4000
#define EV_BIT15 0x8000
/* The model's constants, restated: a lockdown flushes at 16 dies x 96 KiB per 662 us. */
#define LOCKDOWN_NS(bytes) ((uint64_t)(bytes)*662000ull / (96ull * KiB * 16))
#define GC_NS 9800000ull
#define RECLAIM_NS 2500000ull

static char tmpdir[] = "/tmp/zkv-test-plm-XXXXXX";

static void cleanup(void) {
  DIR *d = opendir(tmpdir);
  if (!d) return;
  struct dirent *e;
  char p[512];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name), unlink(p);
  closedir(d);
  rmdir(tmpdir);
}

/* 32 zones of 1 MiB: 4 sets of 8 zones. */
static const zkv_geometry G = {.lba_size = 4096,
                               .nr_zones = 32,
                               .zone_size = 1 * MiB,
                               .zone_cap = 1 * MiB,
                               .max_open = 0,
                               .max_active = 0,
                               .zasl = 256 * KiB};

static zkv_dev *open_plm(const char *name, const char *opts) {
  char path[512], uri[700];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  unlink(path);
  CHECK_EQ(zkv_emu_format(path, &G), 0);
  snprintf(uri, sizeof uri, "emu:%s?profile=plm%s", path, opts);
  int err = 0;
  zkv_dev *d = zkv_dev_open(uri, &err);
  if (!d) fprintf(stderr, "open %s: %d %s\n", uri, err, zkv_dev_last_error());
  CHECK(d != NULL);
  return d;
}

static int admin(zkv_dev *d, uint8_t op, uint32_t cdw10, uint32_t cdw11, uint32_t cdw12, void *buf, uint32_t len,
                 uint32_t *dw0) {
  zkv_admin_cmd c = {.opcode = op, .cdw10 = cdw10, .cdw11 = cdw11, .cdw12 = cdw12, .buf = buf, .len = len};
  int rc = zkv_dev_nvme_admin(d, &c);
  if (dw0) *dw0 = c.result;
  if (rc < 0 && (-rc & ZKV_ZNS_BASE)) CHECK_EQ(c.status, (-rc & 0x7FF) | 0x4000); /* with Do Not Retry */
  return rc;
}

static void configure(zkv_dev *d, uint32_t set, int enable, uint16_t ee) {
  uint8_t cfg[512] = {0};
  put16(cfg, ee);
  CHECK_EQ(admin(d, 0x09, 0x13, set, (uint32_t)enable, cfg, 512, NULL), 0);
}

static int select_window(zkv_dev *d, uint32_t set, uint32_t w) { return admin(d, 0x09, 0x14, set, w, NULL, 0, NULL); }

typedef struct plm_log {
  int status, events;
  uint64_t reads_typical, writes_typical, time_max_ms, nd_min_high_ms, nd_min_low_ms, reads_est, writes_est,
      time_est_ms;
} plm_log;

/* Get Log Page 0x0A (RAE = retain: the events stay). */
static plm_log read_log(zkv_dev *d, uint32_t set, int retain) {
  uint8_t b[512];
  uint32_t cdw10 = 0x0A | (127u << 16) | (retain ? 1u << 15 : 0);
  CHECK_EQ(admin(d, 0x02, cdw10, set << 16, 0, b, sizeof b, NULL), 0);
  plm_log l = {b[0],          get16(b + 2),  get64(b + 32),  get64(b + 40),  get64(b + 48),
               get64(b + 56), get64(b + 64), get64(b + 128), get64(b + 136), get64(b + 144)};
  return l;
}

static zkv_emu_plm_stats stats(zkv_dev *d, uint32_t set) {
  zkv_emu_plm_stats s;
  CHECK_EQ(zkv_emu_plm_stats_get(d, set, &s), 0);
  return s;
}

static void write_zone(zkv_dev *d, uint32_t zone, uint64_t bytes) {
  static uint8_t buf[256 * KiB];
  memset(buf, (int)zone + 1, sizeof buf);
  for (uint64_t done = 0; done < bytes; done += sizeof buf)
    CHECK(zkv_dev_append(d, zone, buf, bytes - done < sizeof buf ? bytes - done : sizeof buf, 0) >= 0);
}

static void read_block(zkv_dev *d, uint32_t zone) {
  uint8_t buf[4096];
  CHECK_EQ(zkv_dev_read(d, (uint64_t)zone * G.zone_size, buf, sizeof buf), 0);
}

static void test_uri_and_admin_refusals(void) {
  char path[512], uri[700];
  snprintf(path, sizeof path, "%s/refusals", tmpdir);
  CHECK_EQ(zkv_emu_format(path, &G), 0);
  const char *bad[] = {"?profile=zn540&sets=2",        "?profile=plm&sets=0",         "?profile=plm&sets=33",
                       "?profile=plm&timescale=0",     "?profile=plm&timescale=1001", "?profile=plm&clock=fast",
                       "?profile=instant&clock=manual"};
  const char *why[] = {"options of profile=plm", "sets must be",  "fewer than the 33 NVM Sets", "timescale must be",
                       "timescale must be",      "clock must be", "options of profile=plm"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int err = 0;
    snprintf(uri, sizeof uri, "emu:%s%s", path, bad[i]);
    zkv_dev *d = zkv_dev_open(uri, &err);
    CHECK(d == NULL);
    CHECK_EQ(err, -EINVAL);
    if (!strstr(zkv_dev_last_error(), why[i])) fprintf(stderr, "%s: '%s'\n", uri, zkv_dev_last_error());
    CHECK(strstr(zkv_dev_last_error(), why[i]) != NULL);
  }
  /* other profiles answer no admin command */
  snprintf(uri, sizeof uri, "emu:%s?profile=instant", path);
  int err = 0;
  zkv_dev *d = zkv_dev_open(uri, &err);
  CHECK(d != NULL);
  uint8_t id[4096];
  CHECK_EQ(admin(d, 0x06, 1, 0, 0, id, sizeof id, NULL), -EOPNOTSUPP);
  CHECK(zkv_emu_plm_advance(d, 1) == -EOPNOTSUPP);
  zkv_dev_close(d);
  unlink(path);
}

static void test_identify_and_defaults(void) {
  zkv_dev *d = open_plm("defaults", "&sets=4&timescale=100&clock=manual");
  uint8_t id[4096];
  CHECK_EQ(admin(d, 0x06, 1, 0, 0, id, sizeof id, NULL), 0);
  CHECK_EQ(get32(id + 96) & 0x24, 0x24); /* CTRATT: NVM Sets, Predictable Latency Mode */
  CHECK_EQ(get16(id + 338), 4);          /* NSETIDMAX */
  CHECK_EQ(admin(d, 0x06, 0, 0, 0, id, sizeof id, NULL), ZKV_ERR(0x002)); /* only CNS 01h */
  for (uint32_t set = 1; set <= 4; set++) {
    zkv_emu_plm_stats s = stats(d, set);
    CHECK_EQ(s.first_zone, (set - 1) * 8);
    CHECK_EQ(s.nr_zones, 8);
    CHECK_EQ(s.window, 0);
    plm_log l = read_log(d, set, 0);
    CHECK_EQ(l.status, 0);         /* PLM is off until Set Features 0x13 enables it */
    CHECK_EQ(l.time_max_ms, 600);  /* 60 s / 100 */
    CHECK_EQ(l.nd_min_low_ms, 40); /* 4 s / 100 */
    CHECK_EQ(l.nd_min_high_ms, 40);
    CHECK_EQ(l.writes_typical, 0);     /* write-free DTWIN */
    CHECK_EQ(l.reads_typical, 129729); /* 60 s x 16 dies / 74 us, / 100 */
  }
  /* a window on a set without PLM: Command Sequence Error; bad set ids and windows: Invalid Field */
  CHECK_EQ(select_window(d, 1, WIN_DT), ZKV_ERR(0x00C));
  CHECK_EQ(select_window(d, 5, WIN_DT), ZKV_ERR(0x002));
  CHECK_EQ(select_window(d, 0, WIN_DT), ZKV_ERR(0x002));
  uint8_t b[512];
  CHECK_EQ(admin(d, 0x02, 0x0A | (127u << 16), 5u << 16, 0, b, sizeof b, NULL), ZKV_ERR(0x002));
  CHECK_EQ(admin(d, 0x02, 0x0C | (127u << 16), 1u << 16, 0, b, sizeof b, NULL), ZKV_ERR(0x109));
  /* PLM Config round trip; a set starts in NDWIN */
  uint8_t cfg[512] = {0}, got[512];
  put16(cfg, 0xC007);
  put64(cfg + 32, 1000), put64(cfg + 40, 7), put64(cfg + 48, 250);
  CHECK_EQ(admin(d, 0x09, 0x13, 2, 1, cfg, 512, NULL), 0);
  uint32_t dw0 = 9;
  CHECK_EQ(admin(d, 0x0A, 0x13, 2, 0, got, 512, &dw0), 0);
  CHECK_EQ(dw0, 1);
  CHECK(memcmp(cfg, got, 512) == 0);
  CHECK_EQ(admin(d, 0x0A, 0x14, 2, 0, NULL, 0, &dw0), 0);
  CHECK_EQ(dw0, WIN_ND);
  CHECK_EQ(select_window(d, 2, 3), ZKV_ERR(0x002));
  CHECK_EQ(read_log(d, 2, 0).status, WIN_ND);
  zkv_dev_close(d);
}

/* "A write in DTWIN makes the set return to NDWIN" (write-free DTWIN; DTWIN Writes Typical = 0):
 * Event Type bit 14, an aggregate entry when enabled, cleared by reading the log without RAE; the
 * other sets stay where they are. */
static void test_write_ends_dtwin(void) {
  zkv_dev *d = open_plm("write", "&timescale=100&clock=manual");
  for (uint32_t set = 1; set <= 4; set++) configure(d, set, 1, set == 1 ? EV_BIT14 : 0);
  zkv_emu_plm_advance(d, 40 * MS);
  for (uint32_t set = 1; set <= 4; set++) CHECK_EQ(select_window(d, set, WIN_DT), 0);
  for (uint32_t set = 1; set <= 4; set++) CHECK_EQ(read_log(d, set, 1).status, WIN_DT);
  read_block(d, 0); /* reads keep DTWIN */
  CHECK_EQ(read_log(d, 1, 1).status, WIN_DT);
  write_zone(d, 1, 4096); /* zone 1: set 1 */
  plm_log l = read_log(d, 1, 1);
  CHECK_EQ(l.status, WIN_ND);
  CHECK_EQ(l.events, EV_BIT14);
  CHECK_EQ(stats(d, 1).writes_in_dtwin, 1);
  CHECK_EQ(stats(d, 1).autonomous_exits, 1);
  write_zone(d, 9, 4096); /* set 2 leaves too, but its events are not enabled for the aggregate */
  for (uint32_t set = 3; set <= 4; set++) CHECK_EQ(read_log(d, set, 1).status, WIN_DT);
  uint8_t agg[64];
  CHECK_EQ(admin(d, 0x02, 0x0B | (15u << 16), 0, 0, agg, 64, NULL), 0);
  CHECK_EQ(get64(agg), 1);
  CHECK_EQ(get16(agg + 8), 1);
  CHECK_EQ(read_log(d, 2, 1).events, EV_BIT14);
  CHECK_EQ(read_log(d, 1, 0).events, EV_BIT14); /* RAE = 0: read once more, then cleared */
  CHECK_EQ(read_log(d, 1, 1).events, 0);
  CHECK_EQ(admin(d, 0x02, 0x0B | (15u << 16), 0, 0, agg, 64, NULL), 0);
  CHECK_EQ(get64(agg), 0);
  zkv_dev_close(d);
}

/* NDWIN Time Minimum: a DTWIN request is completed no earlier than the minimum after NDWIN began,
 * plus the lockdown; the lockdown flushes the bytes written in that NDWIN and grows with them. */
static void test_min_ndwin_and_lockdown(void) {
  zkv_dev *d = open_plm("minnd", "&timescale=100&clock=manual");
  configure(d, 1, 1, 0);
  uint64_t t0 = stats(d, 1).clock_ns;
  CHECK_EQ(select_window(d, 1, WIN_DT), 0); /* nothing written: no lockdown */
  zkv_emu_plm_stats s = stats(d, 1);
  CHECK_EQ(s.clock_ns - t0, 40 * MS);
  CHECK_EQ(s.last_lockdown_ns, 0);
  CHECK_EQ(s.window, WIN_DT);
  CHECK_EQ(select_window(d, 1, WIN_DT), 0); /* already in DTWIN: no wait */
  CHECK_EQ(stats(d, 1).clock_ns, s.clock_ns);
  uint64_t prev = 0;
  uint32_t zone = 0; /* set 1: zones 0-7, 1 + 2 + 4 of them written */
  for (uint64_t mib = 1; mib <= 4; mib *= 2) {
    CHECK_EQ(select_window(d, 1, WIN_ND), 0);
    uint64_t nd = stats(d, 1).clock_ns;
    for (uint32_t z = 0; z < mib; z++) write_zone(d, zone++, 1 * MiB);
    CHECK_EQ(stats(d, 1).dirty_bytes, mib * MiB);
    zkv_emu_plm_advance(d, 10 * MS); /* part of the minimum passes */
    CHECK_EQ(select_window(d, 1, WIN_DT), 0);
    s = stats(d, 1);
    CHECK_EQ(s.last_lockdown_bytes, mib * MiB);
    CHECK_EQ(s.last_lockdown_ns, LOCKDOWN_NS(mib * MiB));
    CHECK_EQ(s.clock_ns - nd, 40 * MS + s.last_lockdown_ns);
    CHECK_EQ(s.dirty_bytes, 0);
    CHECK(s.last_lockdown_ns > prev);
    prev = s.last_lockdown_ns;
  }
  CHECK(LOCKDOWN_NS(40 * MiB) < 20 * MS); /* tens of MB: under 20 ms (paper §5.2) */
  /* a DTWIN request after the minimum: only the lockdown */
  CHECK_EQ(select_window(d, 1, WIN_ND), 0);
  zkv_emu_plm_advance(d, 100 * MS);
  uint64_t before = stats(d, 1).clock_ns;
  CHECK_EQ(select_window(d, 1, WIN_DT), 0);
  CHECK_EQ(stats(d, 1).clock_ns, before);
  zkv_dev_close(d);
}

/* The same rule on the real clock: the command does not complete before the minimum. */
static void test_min_ndwin_real_clock(void) {
  zkv_dev *d = open_plm("realclock", "&timescale=1000");
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  configure(d, 3, 1, 0);
  CHECK_EQ(select_window(d, 3, WIN_DT), 0);
  clock_gettime(CLOCK_MONOTONIC, &b);
  uint64_t ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
  CHECK(ns >= 4 * MS); /* 4 s / 1000, counted from Set Features 0x13 */
  /* DTWIN was entered (whether it is still on depends on the host: its maximum is 60 ms here) */
  CHECK_EQ(stats(d, 3).dtwin_entries, 1);
  zkv_dev_close(d);
}

/* DTWIN Time Maximum: the set returns to NDWIN autonomously at the maximum (bit 14); the time
 * estimate counts down to it. */
static void test_max_dtwin(void) {
  zkv_dev *d = open_plm("maxdt", "&timescale=100&clock=manual");
  configure(d, 4, 1, 0);
  CHECK_EQ(select_window(d, 4, WIN_DT), 0);
  CHECK_EQ(read_log(d, 4, 1).time_est_ms, 600);
  zkv_emu_plm_advance(d, 250 * MS);
  CHECK_EQ(read_log(d, 4, 1).time_est_ms, 350);
  zkv_emu_plm_advance(d, 349 * MS);
  CHECK_EQ(read_log(d, 4, 1).status, WIN_DT);
  zkv_emu_plm_advance(d, 1 * MS);
  plm_log l = read_log(d, 4, 0);
  CHECK_EQ(l.status, WIN_ND);
  CHECK_EQ(l.events, EV_BIT14);
  /* the NDWIN began at the maximum: its minimum runs from there */
  uint64_t t = stats(d, 4).clock_ns;
  CHECK_EQ(select_window(d, 4, WIN_DT), 0);
  CHECK_EQ(stats(d, 4).clock_ns - t, 40 * MS);
  zkv_dev_close(d);
}

/* The internal job queue holds what one minimum NDWIN retires (4 s / timescale of work): DTWIN
 * suspends garbage collection of reset zones until the queue is full, then the set leaves DTWIN
 * autonomously (bit 15, deterministic excursion); in NDWIN the work drains with the clock. */
static void test_backlog_limit(void) {
  zkv_dev *d = open_plm("backlog", "&timescale=100&clock=manual");
  configure(d, 1, 1, EV_BIT15);
  for (uint32_t z = 0; z < 6; z++) write_zone(d, z, 4096);
  zkv_emu_plm_advance(d, 40 * MS); /* drains the writes' migration */
  CHECK_EQ(select_window(d, 1, WIN_DT), 0);
  zkv_emu_plm_stats s = stats(d, 1);
  CHECK_EQ(s.backlog_ns, 0);
  CHECK_EQ(s.capacity_ns, 40 * MS);
  for (uint32_t z = 0; z < 4; z++) CHECK_EQ(zkv_dev_zone_mgmt(d, z, ZKV_ZONE_RESET), 0); /* 39.2 ms queued */
  zkv_emu_plm_advance(d, 100 * MS); /* suspended: nothing drains in DTWIN */
  s = stats(d, 1);
  CHECK_EQ(s.window, WIN_DT);
  CHECK_EQ(s.backlog_ns, 4 * GC_NS);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 4, ZKV_ZONE_RESET), 0); /* 49 ms > 40 ms */
  plm_log l = read_log(d, 1, 0);
  CHECK_EQ(l.status, WIN_ND);
  CHECK_EQ(l.events, EV_BIT15);
  zkv_emu_plm_advance(d, 20 * MS);
  CHECK_EQ(stats(d, 1).backlog_ns, 5 * GC_NS - 20 * MS);
  zkv_emu_plm_advance(d, 40 * MS);
  CHECK_EQ(stats(d, 1).backlog_ns, 0);
  /* a DTWIN entered with more queued than the queue holds is left at once */
  for (uint32_t z = 0; z < 5; z++) write_zone(d, z, 4096);
  for (uint32_t z = 0; z < 5; z++) CHECK_EQ(zkv_dev_zone_mgmt(d, z, ZKV_ZONE_RESET), 0);
  uint64_t entries = stats(d, 1).dtwin_entries;
  CHECK_EQ(select_window(d, 1, WIN_DT), 0); /* the minimum has passed: nothing drains before DTWIN */
  s = stats(d, 1);
  CHECK_EQ(s.dtwin_entries, entries + 1);
  CHECK_EQ(s.window, WIN_ND);
  CHECK_EQ(read_log(d, 1, 0).events, EV_BIT15);
  zkv_dev_close(d);
}

/* n 4 KiB reads of a zone's first 64 KiB, 32 in flight. */
static void read_many(zkv_dev *d, uint32_t zone, uint64_t n) {
  int err = 0;
  zkv_queue *q = zkv_queue_create(d, 32, &err);
  CHECK(q != NULL);
  static uint8_t bufs[32][4096];
  zkv_completion c[32];
  uint64_t done = 0;
  for (uint64_t i = 0; i < n; i++) {
    zkv_request r = {
        .op = ZKV_OP_READ, .offset = zone * G.zone_size + (i % 16) * 4096, .buf = bufs[i % 32], .len = 4096};
    while (zkv_queue_submit(q, &r) == -EBUSY) done += (uint64_t)zkv_queue_reap(q, c, 1, 32, -1);
  }
  while (done < n) done += (uint64_t)zkv_queue_reap(q, c, 1, 32, -1);
  zkv_queue_destroy(q);
}

/* Read disturb: a zone read DISTURB times (810,810 / timescale) since its last reclaim or reset
 * queues its reclaim (2.5 ms of work); reads spread over zones do not add up. The DTWIN Reads
 * Estimate counts the reads the queue has room for, all on the most read zone, and falls with each
 * read. DTWIN reads never wait behind internal work; NDWIN reads with work queued do, for less than
 * the running op. */
static void test_reads(void) {
  const uint64_t disturb = 810; /* at timescale 1000 */
  zkv_dev *d = open_plm("reads", "&timescale=1000&clock=manual&seed=7");
  configure(d, 2, 1, EV_BIT15);
  write_zone(d, 8, 64 * KiB);
  write_zone(d, 9, 64 * KiB);
  zkv_emu_plm_advance(d, 4 * MS);
  CHECK_EQ(select_window(d, 2, WIN_DT), 0);
  /* a 4 ms queue holds one 2.5 ms reclaim: the second overflows it */
  CHECK_EQ(read_log(d, 2, 1).reads_est, disturb + disturb - 1);
  read_many(d, 8, disturb - 1);
  read_many(d, 9, disturb - 1);
  zkv_emu_plm_stats s = stats(d, 2);
  CHECK_EQ(s.reclaim_jobs, 0);
  CHECK_EQ(s.reads_deterministic, 2 * (disturb - 1));
  /* 32 in flight: at most 32 pipe slots (5.12 us) + 74 us + 20% jitter, never 200 us */
  CHECK_EQ(s.model_reads_over_200us[0], 0);
  CHECK(s.model_read_max_ns[0] < 200000);
  CHECK(s.model_read_sum_ns[0] >= s.reads_deterministic * 59000);
  CHECK_EQ(read_log(d, 2, 1).reads_est, disturb);
  read_many(d, 8, 1);
  s = stats(d, 2);
  CHECK_EQ(s.reclaim_jobs, 1);
  CHECK_EQ(s.backlog_ns, RECLAIM_NS);
  CHECK_EQ(s.window, WIN_DT);
  CHECK_EQ(s.reads_stalled, 0);
  CHECK_EQ(read_log(d, 2, 1).reads_est, 0); /* zone 9 is one read from a reclaim that does not fit */
  read_many(d, 9, 1);
  plm_log l = read_log(d, 2, 0);
  CHECK_EQ(l.status, WIN_ND);
  CHECK_EQ(l.events, EV_BIT15);
  /* NDWIN: the reclaims run, reads arriving meanwhile wait behind them */
  for (int i = 0; i < 20; i++) read_block(d, 8);
  s = stats(d, 2);
  CHECK_EQ(s.reads_nondeterministic, 20);
  CHECK_EQ(s.reads_stalled, 20);
  CHECK(s.max_stall_ns < RECLAIM_NS);
  CHECK(s.model_read_max_ns[1] >= s.max_stall_ns + 59000 && s.model_read_max_ns[1] < s.max_stall_ns + 89000);
  zkv_emu_plm_advance(d, 2 * RECLAIM_NS);
  read_block(d, 8);
  CHECK_EQ(stats(d, 2).reads_stalled, 20); /* nothing queued any more */
  zkv_dev_close(d);
}

/* With the same seed and the same requests, the model makes the same decisions (stalls drawn). */
static void test_deterministic(void) {
  zkv_emu_plm_stats s[2];
  for (int run = 0; run < 2; run++) {
    zkv_dev *d = open_plm(run ? "det1" : "det0", "&timescale=1000&clock=manual&seed=11");
    /* PLM off: 512 KiB of migration (220 us of the set's time) queued and, on the virtual clock,
     * never worked off: every read waits for part of a program (less than 662 us) */
    write_zone(d, 0, 512 * KiB);
    CHECK_EQ(stats(d, 1).backlog_ns, LOCKDOWN_NS(512 * KiB));
    for (int i = 0; i < 60; i++) read_block(d, 0);
    s[run] = stats(d, 1);
    CHECK_EQ(s[run].reads_nondeterministic, 60);
    CHECK_EQ(s[run].reads_stalled, 60);
    CHECK(s[run].max_stall_ns > 0 && s[run].max_stall_ns < 662000);
    zkv_dev_close(d);
  }
  CHECK_EQ(s[0].max_stall_ns, s[1].max_stall_ns); /* the same draws */
  CHECK_EQ(s[0].model_read_sum_ns[1], s[1].model_read_sum_ns[1]);
  CHECK_EQ(s[0].model_read_max_ns[1], s[1].model_read_max_ns[1]);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  CHECK(mkdtemp(tmpdir) != NULL);
  atexit(cleanup);
  test_uri_and_admin_refusals();
  test_identify_and_defaults();
  test_write_ends_dtwin();
  test_min_ndwin_and_lockdown();
  test_min_ndwin_real_clock();
  test_max_dtwin();
  test_backlog_limit();
  test_reads();
  test_deterministic();
  TEST_DONE("test_plm");
  return 0;
}
