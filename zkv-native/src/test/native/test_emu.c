/* Tests of the emulated zoned device through the public API (zkv/device.h), on backing files in
 * a temporary directory: format/open validation and corruption detection, URI options, exclusive
 * ownership, persistence across reopen, I/O semantics, fault injection, failed zones, power cuts
 * (volatile cache, FUA, torn writes), the asynchronous queue, concurrent appends and the zn540
 * timing profile. Seeds for the random parts come from ZKV_SEED when set. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "zkv/device.h"
/* Only for the on-disk layout (where the header and zone table live), to corrupt files on purpose. */
#include "common/crc32c.h"
#include "common/le_bytes.h"
#include "emulator/emu_internal.h"

#define ZE(s) ZKV_ERR(ZKV_NVME_##s)
#define KiB 1024ull
#define MiB (1024ull * 1024ull)

/* ---------- temporary directory and helpers ---------- */

static char tmpdir[] = "/tmp/zkv-test-emu-XXXXXX";
static int tmpdir_made;

static void cleanup(void) {
  if (!tmpdir_made) return;
  DIR *d = opendir(tmpdir);
  if (d) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
      if (unlink(p) != 0 && errno == EISDIR) rmdir(p);
    }
    closedir(d);
  }
  rmdir(tmpdir);
  tmpdir_made = 0;
}

/* Rotating static buffers so a few paths/URIs can be alive at once. */
static char *scratch(void) {
  static char bufs[16][512];
  static int next;
  return bufs[next++ % 16];
}

/* Paths live until the end (never recycled). */
static const char *P(const char *name) {
  static char paths[256][512];
  static int n;
  CHECK(n < 256);
  snprintf(paths[n], 512, "%s/%s", tmpdir, name);
  return paths[n++];
}

static const char *URI(const char *path, const char *opts) {
  char *b = scratch();
  snprintf(b, 512, "emu:%s%s", path, opts ? opts : "");
  return b;
}

static const zkv_geometry G = {.lba_size = 4096,
                               .nr_zones = 8,
                               .zone_size = 1 * MiB,
                               .zone_cap = 768 * KiB,
                               .max_open = 4,
                               .max_active = 6,
                               .zasl = 64 * KiB};

static const char *format(const char *name, const zkv_geometry *g) {
  const char *p = P(name);
  int rc = zkv_emu_format(p, g);
  if (rc) fprintf(stderr, "format %s: %d %s\n", p, rc, zkv_dev_last_error());
  CHECK_EQ(rc, 0);
  return p;
}

static zkv_dev *open_dev(const char *path, const char *opts) {
  int err = 0;
  zkv_dev *d = zkv_dev_open(URI(path, opts), &err);
  if (!d) fprintf(stderr, "open %s: %d %s\n", URI(path, opts), err, zkv_dev_last_error());
  CHECK(d != NULL);
  return d;
}

/* Expects an open to fail with `want` (0 = any negative code) and a message naming the file. */
static void open_fails(const char *uri, int want, const char *must_contain) {
  int err = 0;
  zkv_dev *d = zkv_dev_open(uri, &err);
  if (d) {
    fprintf(stderr, "open of %s unexpectedly succeeded\n", uri);
    zkv_dev_close(d);
  }
  CHECK(d == NULL);
  if (err >= 0 || (want && err != want))
    fprintf(stderr, "open of %s: error %d (%s), expected %d\n", uri ? uri : "(null)", err, zkv_dev_last_error(), want);
  CHECK(err < 0);
  if (want) CHECK_EQ(err, want);
  const char *m = zkv_dev_last_error();
  CHECK(m != NULL && m[0] != 0);
  if (must_contain && !strstr(m, must_contain)) fprintf(stderr, "message '%s' lacks '%s'\n", m, must_contain);
  if (must_contain) CHECK(strstr(m, must_contain) != NULL);
}

/* Distinct non-zero byte patterns per id (every 8-byte word differs). */
static void fill(void *buf, size_t len, uint64_t id) {
  uint8_t *b = buf;
  uint64_t s = id * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  for (size_t i = 0; i < len; i += 8) {
    s += 0x9E3779B97F4A7C15ull;
    uint64_t z = (s ^ (s >> 31)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 29;
    for (size_t k = 0; k < 8 && i + k < len; k++) {
      uint8_t v = (uint8_t)(z >> (8 * k));
      b[i + k] = v ? v : 0x5A;
    }
  }
}

static int matches(const void *buf, size_t len, uint64_t id) {
  uint8_t *want = malloc(len);
  CHECK(want != NULL);
  fill(want, len, id);
  int ok = memcmp(buf, want, len) == 0;
  free(want);
  return ok;
}

static int is_zero(const void *buf, size_t len) {
  const uint8_t *b = buf;
  for (size_t i = 0; i < len; i++)
    if (b[i]) return 0;
  return 1;
}

static zkv_zone zone_of(zkv_dev *d, uint32_t z) {
  zkv_zone r;
  memset(&r, 0xEE, sizeof r);
  CHECK_EQ(zkv_dev_report(d, z, &r, 1), 1);
  CHECK_EQ(r.index, z);
  return r;
}

static void expect_zone(zkv_dev *d, uint32_t z, uint32_t cond, uint64_t written) {
  zkv_geometry g;
  zkv_dev_geometry(d, &g);
  zkv_zone r = zone_of(d, z);
  if (r.cond != cond || r.wp != r.start + written)
    fprintf(stderr, "zone %u: cond %u wp +%" PRIu64 ", expected cond %u wp +%" PRIu64 "\n", z, r.cond, r.wp - r.start,
            cond, written);
  CHECK_EQ(r.start, (uint64_t)z * g.zone_size);
  CHECK_EQ(r.cap, g.zone_cap);
  CHECK_EQ(r.cond, cond);
  CHECK_EQ(r.wp, r.start + written);
}

/* Writes `len` bytes of pattern `id` at `off` (sync). */
static int write_pat(zkv_dev *d, uint64_t off, size_t len, uint64_t id, int flags) {
  void *b = malloc(len);
  CHECK(b != NULL);
  fill(b, len, id);
  int rc = zkv_dev_write(d, off, b, len, flags);
  free(b);
  return rc;
}

static int64_t append_pat(zkv_dev *d, uint32_t zone, size_t len, uint64_t id, int flags) {
  void *b = malloc(len);
  CHECK(b != NULL);
  fill(b, len, id);
  int64_t rc = zkv_dev_append(d, zone, b, len, flags);
  free(b);
  return rc;
}

/* Reads [off, off+len) and checks it holds pattern id (or zeros when id == 0). */
static void expect_data(zkv_dev *d, uint64_t off, size_t len, uint64_t id) {
  void *b = malloc(len);
  CHECK(b != NULL);
  memset(b, 0xA5, len);
  CHECK_EQ(zkv_dev_read(d, off, b, len), 0);
  if (id) {
    if (!matches(b, len, id)) fprintf(stderr, "data at %" PRIu64 "+%zu is not pattern %" PRIu64 "\n", off, len, id);
    CHECK(matches(b, len, id));
  } else {
    if (!is_zero(b, len)) fprintf(stderr, "data at %" PRIu64 "+%zu is not zeros\n", off, len);
    CHECK(is_zero(b, len));
  }
  free(b);
}

static void flip_byte(const char *path, uint64_t off) {
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0);
  uint8_t b;
  CHECK_EQ(pread(fd, &b, 1, (off_t)off), 1);
  b ^= 0x40;
  CHECK_EQ(pwrite(fd, &b, 1, (off_t)off), 1);
  close(fd);
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  size_t n = strlen(text);
  CHECK_EQ(write(fd, text, n), (ssize_t)n);
  close(fd);
}

static uint64_t seed_base(void) {
  static uint64_t s;
  static int init;
  if (!init) {
    const char *env = getenv("ZKV_SEED");
    s = env && *env ? strtoull(env, NULL, 0) : ((uint64_t)time(NULL) * 1000003u) ^ (uint64_t)getpid();
    init = 1;
  }
  return s;
}

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---------- format ---------- */

static void expect_format_rejected(const zkv_geometry *g, const char *keyword, int line) {
  const char *p = P("rejected.dev");
  int rc = zkv_emu_format(p, g);
  const char *m = zkv_dev_last_error();
  if (rc != -EINVAL || !strstr(m, keyword))
    fprintf(stderr, "line %d: format gave %d '%s', expected -EINVAL mentioning '%s'\n", line, rc, m, keyword);
  CHECK_EQ(rc, -EINVAL);
  CHECK(strstr(m, keyword) != NULL);
  CHECK(access(p, F_OK) != 0 && errno == ENOENT); /* nothing created */
}

#define REJECT(keyword, ...)                       \
  do {                                             \
    zkv_geometry g = G;                            \
    __VA_ARGS__;                                   \
    expect_format_rejected(&g, keyword, __LINE__); \
  } while (0)

static void test_format(void) {
  /* One violation of each rule of the geometry validation. */
  REJECT("lba_size", g.lba_size = 1024);
  REJECT("lba_size", g.lba_size = 0);
  REJECT("lba_size", g.lba_size = 8192);
  REJECT("nr_zones", g.nr_zones = 0);
  REJECT("nr_zones", g.nr_zones = (1u << 20) + 1);
  REJECT("zone_size", g.zone_size = 0);
  REJECT("zone_size", g.zone_size = 1 * MiB + 512);
  REJECT("zone_cap", g.zone_cap = 0);
  REJECT("zone_cap", g.zone_cap = 2 * MiB);
  REJECT("zone_cap", g.zone_cap = 768 * KiB + 512);
  REJECT("max_active", g.max_active = 9, g.max_open = 4);
  REJECT("max_open", g.max_open = 9, g.max_active = 0);
  REJECT("exceeds max_active", g.max_open = 5, g.max_active = 4);
  REJECT("zasl", g.zasl = 0);
  REJECT("zasl", g.zasl = 2048);
  REJECT("zasl", g.zasl = 6 * KiB);
  REJECT("zasl", g.zasl = 1 * MiB);
  REJECT("16 TiB", g.nr_zones = 1u << 20, g.zone_size = 32 * MiB, g.zone_cap = 32 * MiB, g.max_open = 0,
         g.max_active = 0);

  /* Edge cases that are valid. */
  const zkv_geometry ok[] = {
      {.lba_size = 512, .nr_zones = 1, .zone_size = 64 * KiB, .zone_cap = 64 * KiB, .zasl = 512},
      {.lba_size = 4096, .nr_zones = 4, .zone_size = 64 * KiB, .zone_cap = 32 * KiB, .max_active = 2, .zasl = 32 * KiB},
      {.lba_size = 4096,
       .nr_zones = 4,
       .zone_size = 64 * KiB,
       .zone_cap = 4 * KiB,
       .max_open = 4,
       .max_active = 4,
       .zasl = 4 * KiB},
      {.lba_size = 4096, .nr_zones = 3, .zone_size = 16 * KiB, .zone_cap = 16 * KiB, .max_open = 3, .zasl = 8 * KiB},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    char name[32];
    snprintf(name, sizeof name, "ok%zu.dev", i);
    const char *p = format(name, &ok[i]);
    zkv_dev *d = open_dev(p, NULL);
    zkv_geometry got;
    CHECK_EQ(zkv_dev_geometry(d, &got), 0);
    CHECK_EQ(got.lba_size, ok[i].lba_size);
    CHECK_EQ(got.nr_zones, ok[i].nr_zones);
    CHECK_EQ(got.zone_size, ok[i].zone_size);
    CHECK_EQ(got.zone_cap, ok[i].zone_cap);
    CHECK_EQ(got.max_open, ok[i].max_open);
    CHECK_EQ(got.max_active, ok[i].max_active);
    CHECK_EQ(got.zasl, ok[i].zasl);
    zkv_zone zs[8];
    CHECK_EQ(zkv_dev_report(d, 0, zs, 8), (int)ok[i].nr_zones);
    for (uint32_t z = 0; z < ok[i].nr_zones; z++) {
      CHECK_EQ(zs[z].cond, ZKV_ZONE_EMPTY);
      CHECK_EQ(zs[z].start, z * ok[i].zone_size);
      CHECK_EQ(zs[z].wp, zs[z].start);
      CHECK_EQ(zs[z].cap, ok[i].zone_cap);
    }
    CHECK(strcmp(zkv_dev_profile_name(d), "instant") == 0);
    zkv_dev_close(d);
  }

  /* An existing file is never overwritten. */
  const char *txt = P("existing.txt");
  write_file(txt, "hello");
  CHECK_EQ(zkv_emu_format(txt, &G), -EEXIST);
  CHECK(strstr(zkv_dev_last_error(), "existing.txt") != NULL);
  char buf[16] = {0};
  int fd = open(txt, O_RDONLY);
  CHECK(fd >= 0);
  CHECK_EQ(read(fd, buf, sizeof buf), 5);
  close(fd);
  CHECK(strcmp(buf, "hello") == 0);
  /* Nor an existing device: its data survives. */
  const char *dev = format("existing.dev", &G);
  zkv_dev *d = open_dev(dev, NULL);
  CHECK_EQ(append_pat(d, 2, 8 * KiB, 77, 0), 2 * MiB);
  zkv_dev_close(d);
  CHECK_EQ(zkv_emu_format(dev, &G), -EEXIST);
  CHECK(zkv_dev_last_error()[0] != 0);
  d = open_dev(dev, NULL);
  expect_zone(d, 2, ZKV_ZONE_CLOSED, 8 * KiB);
  expect_data(d, 2 * MiB, 8 * KiB, 77);
  zkv_dev_close(d);
  /* A directory that does not exist. */
  CHECK_EQ(zkv_emu_format(P("no/such/dir.dev"), &G), -ENOENT);
  CHECK(zkv_dev_last_error()[0] != 0);
  printf("  format ok\n");
}

/* ---------- open errors ---------- */

static void test_open_errors(void) {
  open_fails(URI(P("missing.dev"), NULL), -ENOENT, "missing.dev");

  const char *txt = P("notes.txt");
  write_file(txt, "this is not a zoned device, just some text\n");
  open_fails(URI(txt, NULL), -EINVAL, "notes.txt");
  const char *empty = P("empty.bin");
  write_file(empty, "");
  open_fails(URI(empty, NULL), -EINVAL, "empty.bin");
  const char *sub = P("subdir");
  CHECK_EQ(mkdir(sub, 0755), 0);
  open_fails(URI(sub, NULL), 0, "subdir");

  /* A device with some state, then each header field corrupted in turn. */
  const char *p = format("corrupt.dev", &G);
  zkv_dev *d = open_dev(p, NULL);
  CHECK_EQ(append_pat(d, 3, 16 * KiB, 33, 0), 3 * MiB);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 5, ZKV_ZONE_FINISH), 0);
  zkv_dev_close(d);
  const uint64_t header_bytes[] = {
      0, 7, 8, 16, 20, 24, 32, 40, 44, 48, 56, 64, EMU_HEADER_CRC_OFF, EMU_HEADER_CRC_OFF + 3};
  for (size_t i = 0; i < sizeof header_bytes / sizeof header_bytes[0]; i++) {
    flip_byte(p, header_bytes[i]);
    open_fails(URI(p, NULL), -EINVAL, "corrupt.dev");
    flip_byte(p, header_bytes[i]); /* restored: opens again, so that byte was the reason */
    d = open_dev(p, NULL);
    zkv_dev_close(d);
  }
  /* A truncated backing file. */
  struct stat st;
  CHECK_EQ(stat(p, &st), 0);
  CHECK_EQ(truncate(p, st.st_size - 4096), 0);
  open_fails(URI(p, NULL), -EINVAL, "corrupt.dev");
  CHECK_EQ(truncate(p, st.st_size), 0);
  d = open_dev(p, NULL);
  zkv_dev_close(d);
  /* Corrupt zone table entries: written, condition and checksum fields, of a used and an empty zone. */
  const uint32_t zones[] = {3, 0, 5, 7};
  const uint64_t fields[] = {0, 1, 8, 12};
  for (size_t zi = 0; zi < sizeof zones / sizeof zones[0]; zi++) {
    for (size_t fi = 0; fi < sizeof fields / sizeof fields[0]; fi++) {
      uint64_t off = EMU_HEADER_SIZE + (uint64_t)zones[zi] * sizeof(zs_entry) + fields[fi];
      flip_byte(p, off);
      char want[64];
      snprintf(want, sizeof want, "entry %u", zones[zi]);
      open_fails(URI(p, NULL), -EINVAL, want);
      flip_byte(p, off);
    }
  }
  d = open_dev(p, NULL);
  expect_zone(d, 3, ZKV_ZONE_CLOSED, 16 * KiB);
  expect_data(d, 3 * MiB, 16 * KiB, 33);
  expect_zone(d, 5, ZKV_ZONE_FULL, 768 * KiB);
  zkv_dev_close(d);

  /* URI errors, with a valid device path so only the URI is wrong. */
  struct {
    const char *opts;
    const char *keyword;
  } bad[] = {
      {"?bogus=1", "bogus"},     {"?profile=nope", "nope"},      {"?wcache=2", "wcache"},
      {"?wcache=yes", "wcache"}, {"?seed=abc", "seed"},          {"?seed=12x", "seed"},
      {"?profile", "profile"},   {"?wcache=1&bogus=1", "bogus"}, {"?profile=zn540&profile=ZN540", "ZN540"},
      {"?reorder=2", "reorder"}, {"?reorder=on", "reorder"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) open_fails(URI(p, bad[i].opts), -EINVAL, bad[i].keyword);
  open_fails("emu:", -EINVAL, NULL);
  open_fails("emu:?profile=zn540", -EINVAL, NULL);
  open_fails("scsi:/dev/sda", -EINVAL, "scsi:");
  /* The kernel backends name the device they could not open (the host has none). */
  open_fails("zbd:/dev/zkv-no-such-device", -ENOENT, "/dev/zkv-no-such-device");
  open_fails("nvme:/dev/zkv-no-such-device", -ENOENT, "/dev/zkv-no-such-device");
  open_fails(p, -EINVAL, NULL); /* no scheme */
  open_fails(NULL, -EINVAL, NULL);
  /* None of those left the device locked; valid options work. */
  const char *names[] = {"instant", "zn540", "pm1731a", "confzns"};
  for (size_t i = 0; i < 4; i++) {
    char opts[64];
    snprintf(opts, sizeof opts, "?profile=%s&wcache=%zu&seed=%zu", names[i], i % 2, i * 17);
    d = open_dev(p, opts);
    CHECK(strcmp(zkv_dev_profile_name(d), names[i]) == 0);
    zkv_dev_close(d);
  }
  d = open_dev(p, "?seed=0x10&wcache=0&reorder=1");
  CHECK(strcmp(zkv_dev_profile_name(d), "instant") == 0);
  CHECK_EQ(zkv_dev_last_error()[0], 0); /* a successful open leaves no message */
  zkv_dev_close(d);
  printf("  open errors ok\n");
}

/* ---------- host disk given back on reset ---------- */

static uint64_t allocated_bytes(const char *path) {
  struct stat st;
  CHECK_EQ(stat(path, &st), 0);
  return (uint64_t)st.st_blocks * 512;
}

/* A reset zone gives its blocks back to the host file system by default (discard=0 keeps them). */
static void test_discard(void) {
  const char *p = format("discard.dev", &G);
  char path[256];
  snprintf(path, sizeof path, "%s", p);
  const uint64_t CAP = 768 * KiB;
  for (int keep = 0; keep < 2; keep++) {
    zkv_dev *d = open_dev(path, keep ? "?discard=0" : NULL);
    CHECK_EQ(write_pat(d, 0, CAP, 7, 0), 0);
    uint64_t full = allocated_bytes(path);
    CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_RESET), 0);
    uint64_t after = allocated_bytes(path);
    if (keep)
      CHECK_EQ(after, full);
    else
      CHECK(full - after >= CAP); /* needs hole punching (tmpfs, ext4, xfs, btrfs) */
    expect_zone(d, 0, ZKV_ZONE_EMPTY, 0);
    zkv_dev_close(d);
  }
  printf("  discard ok: a reset gives the zone's %llu KiB back unless discard=0\n", (unsigned long long)(CAP / KiB));
}

/* ---------- zone table updates vs process death ---------- */

/* The child changes zone states as fast as it can until it is killed. */
static void churn_zones(const char *path, int ready_fd) {
  int err = 0;
  zkv_dev *d = zkv_dev_open(URI(path, NULL), &err);
  if (!d) _exit(2);
  uint8_t blk[4096] = {0};
  if (write(ready_fd, "r", 1) != 1) _exit(3);
  for (uint64_t i = 0;; i++) {
    uint32_t z = (uint32_t)(i % 8);
    zkv_dev_zone_mgmt(d, z, ZKV_ZONE_OPEN);
    if (i % 64 == 0 && zkv_dev_append(d, z, blk, sizeof blk, 0) < 0) zkv_dev_zone_mgmt(d, z, ZKV_ZONE_RESET);
    zkv_dev_zone_mgmt(d, z, ZKV_ZONE_CLOSE);
    if (i % 4096 == 0) zkv_dev_zone_mgmt(d, z, ZKV_ZONE_FINISH);
    if (i % 4096 == 1) zkv_dev_zone_mgmt(d, z, ZKV_ZONE_RESET);
  }
}

/* A killed host process never corrupts the device: SIGKILL a process in the middle of zone state
 * changes, many times, and open the device after each. */
static void test_kill_during_updates(void) {
  zkv_geometry g = {.lba_size = 4096, .nr_zones = 8, .zone_size = 64 * KiB, .zone_cap = 64 * KiB, .zasl = 4 * KiB};
  const char *p = format("kill.dev", &g);
  char path[256];
  snprintf(path, sizeof path, "%s", p);
  uint64_t rng = seed_base() ^ 0x4B111ull;
  enum { KILLS = 200 };
  for (int k = 0; k < KILLS; k++) {
    int pfd[2];
    CHECK_EQ(pipe(pfd), 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
      close(pfd[0]);
      churn_zones(path, pfd[1]);
    }
    close(pfd[1]);
    char c;
    CHECK_EQ(read(pfd[0], &c, 1), 1);
    close(pfd[0]);
    usleep((useconds_t)(zkv_rng_next(&rng) % 2000));
    CHECK_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    zkv_dev *d = open_dev(path, NULL);
    zkv_zone zones[8];
    CHECK_EQ(zkv_dev_report(d, 0, zones, 8), 8);
    for (int z = 0; z < 8; z++) CHECK(zones[z].wp - zones[z].start <= g.zone_cap);
    zkv_dev_close(d);
  }
  printf("  %d processes killed during zone state changes: the device opened after each\n", KILLS);
}

/* Every entry of the zone table in the file passes its checksum (the file as the page cache
 * holds it: what a process opening the device after a SIGKILL would read). */
static int table_valid(int fd, uint32_t nr_zones) {
  uint8_t t[64 * 16];
  CHECK(nr_zones <= 64);
  CHECK_EQ(pread(fd, t, nr_zones * 16u, EMU_HEADER_SIZE), (ssize_t)(nr_zones * 16u));
  for (uint32_t i = 0; i < nr_zones; i++) {
    uint8_t b[16];
    put32(b, i);
    memcpy(b + 4, t + 16 * i, 12); /* written, cond */
    if (zkv_crc32c(0, b, sizeof b) != get32(t + 16 * i + 12)) return 0;
  }
  return 1;
}

/* A SIGKILL stops a process between two instructions, any two: so at every instruction boundary
 * of a zone state change the table in the file must be valid. The child is traced and
 * single-stepped through opens, appends, closes, finishes and resets of every zone; after each
 * instruction the table is read and checked. Deterministic, unlike killing at random (the
 * kill test above never caught GCC splitting the entry's store into two). */
static void test_table_valid_at_every_instruction(void) {
  zkv_geometry g = {.lba_size = 4096, .nr_zones = 8, .zone_size = 64 * KiB, .zone_cap = 64 * KiB, .zasl = 4 * KiB};
  const char *p = format("stepped.dev", &g);
  char path[256];
  snprintf(path, sizeof path, "%s", p);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    int err = 0;
    zkv_dev *d = zkv_dev_open(URI(path, "?profile=instant&discard=0"), &err);
    if (!d) _exit(2);
    uint8_t blk[4096] = {0};
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) _exit(3);
    raise(SIGSTOP); /* the parent single-steps from here */
    for (uint32_t z = 0; z < 8; z++) {
      zkv_dev_zone_mgmt(d, z, ZKV_ZONE_OPEN);
      zkv_dev_append(d, z, blk, sizeof blk, 0);
      zkv_dev_zone_mgmt(d, z, ZKV_ZONE_CLOSE);
      zkv_dev_zone_mgmt(d, z, ZKV_ZONE_FINISH);
      zkv_dev_zone_mgmt(d, z, ZKV_ZONE_RESET);
    }
    _exit(0);
  }
  int status = 0;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  if (!WIFSTOPPED(status)) fprintf(stderr, "the child could not be traced (status %#x)\n", status);
  CHECK(WIFSTOPPED(status));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  CHECK(fd >= 0);
  uint64_t steps = 0, bad = 0;
  for (;;) {
    CHECK_EQ(ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL), 0);
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) || WIFSIGNALED(status)) break;
    steps++;
    if (!table_valid(fd, g.nr_zones)) bad++;
  }
  close(fd);
  if (bad)
    fprintf(stderr, "%" PRIu64 " of %" PRIu64 " instruction boundaries left an invalid table entry\n", bad, steps);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK_EQ(bad, 0);
  CHECK(steps > 1000); /* it did step through the zone changes */
  printf("  zone table valid at each of %" PRIu64 " instruction boundaries of 40 zone state changes\n", steps);
}

/* ---------- exclusive ownership ---------- */

static void test_busy(void) {
  const char *p = format("busy.dev", &G);
  zkv_dev *d = open_dev(p, NULL);
  int err = 0;
  CHECK(zkv_dev_open(URI(p, NULL), &err) == NULL);
  CHECK_EQ(err, -EBUSY);
  CHECK(strstr(zkv_dev_last_error(), "in use") != NULL);
  CHECK(zkv_dev_open(URI(p, "?profile=zn540&wcache=1"), &err) == NULL);
  CHECK_EQ(err, -EBUSY);
  CHECK(strstr(zkv_dev_last_error(), "in use") != NULL);
  /* The first opener is unaffected. */
  CHECK_EQ(append_pat(d, 0, 8 * KiB, 5, 0), 0);
  expect_data(d, 0, 8 * KiB, 5);
  zkv_dev_close(d);
  d = open_dev(p, NULL);
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 8 * KiB);
  zkv_dev_close(d);
  printf("  exclusive open ok\n");
}

/* ---------- persistence ---------- */

static void test_persistence(void) {
  const char *p = format("persist.dev", &G);
  const uint64_t Z = 1 * MiB, CAP = 768 * KiB;
  zkv_dev *d = open_dev(p, NULL);
  for (int i = 0; i < 3; i++) CHECK_EQ(append_pat(d, 0, 16 * KiB, 100 + i, 0), (int64_t)(i * 16 * KiB));
  CHECK_EQ(write_pat(d, 1 * Z, CAP, 110, 0), 0); /* one write of the whole capacity (not bounded by zasl) */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 2, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 3, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(write_pat(d, 3 * Z, 8 * KiB, 130, 0), 0);
  CHECK_EQ(write_pat(d, 4 * Z, 8 * KiB, 140, 0), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 4, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(write_pat(d, 5 * Z, 4 * KiB, 150, 0), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 5, ZKV_ZONE_FINISH), 0);
  CHECK_EQ(write_pat(d, 6 * Z, 8 * KiB, 160, 0), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 6, ZKV_ZONE_RESET), 0);
  CHECK_EQ(write_pat(d, 7 * Z, 4 * KiB, 170, 0), 0);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 7, ZKV_ZONE_READ_ONLY), 0);
  expect_zone(d, 0, ZKV_ZONE_IMP_OPEN, 48 * KiB);
  expect_zone(d, 1, ZKV_ZONE_FULL, CAP);
  expect_zone(d, 2, ZKV_ZONE_EXP_OPEN, 0);
  expect_zone(d, 3, ZKV_ZONE_EXP_OPEN, 8 * KiB);
  expect_zone(d, 4, ZKV_ZONE_CLOSED, 8 * KiB);
  expect_zone(d, 5, ZKV_ZONE_FULL, CAP);
  expect_zone(d, 6, ZKV_ZONE_EMPTY, 0);
  expect_zone(d, 7, ZKV_ZONE_READ_ONLY, 4 * KiB);
  zkv_dev_close(d);

  for (int cycle = 0; cycle < 2; cycle++) {
    d = open_dev(p, cycle ? "?wcache=1&profile=zn540" : NULL);
    /* Reopening is a power cycle: open zones are closed, or empty if nothing was written. */
    expect_zone(d, 0, ZKV_ZONE_CLOSED, 48 * KiB);
    expect_zone(d, 1, ZKV_ZONE_FULL, CAP);
    expect_zone(d, 2, ZKV_ZONE_EMPTY, 0);
    expect_zone(d, 3, ZKV_ZONE_CLOSED, 8 * KiB);
    expect_zone(d, 4, ZKV_ZONE_CLOSED, 8 * KiB);
    expect_zone(d, 5, ZKV_ZONE_FULL, CAP);
    expect_zone(d, 6, ZKV_ZONE_EMPTY, 0);
    expect_zone(d, 7, ZKV_ZONE_READ_ONLY, 4 * KiB);
    for (int i = 0; i < 3; i++) expect_data(d, i * 16 * KiB, 16 * KiB, 100 + i);
    expect_data(d, 48 * KiB, 16 * KiB, 0);
    expect_data(d, 1 * Z, CAP, 110);
    expect_data(d, 1 * Z + CAP, Z - CAP, 0); /* the gap beyond the capacity */
    expect_data(d, 3 * Z, 8 * KiB, 130);
    expect_data(d, 4 * Z, 8 * KiB, 140);
    expect_data(d, 5 * Z, 4 * KiB, 150);
    expect_data(d, 5 * Z + 4 * KiB, CAP - 4 * KiB, 0);
    expect_data(d, 6 * Z, 16 * KiB, 0);
    expect_data(d, 7 * Z, 4 * KiB, 170);
    /* Report paging. */
    zkv_zone zs[10];
    CHECK_EQ(zkv_dev_report(d, 6, zs, 10), 2);
    CHECK_EQ(zs[0].index, 6);
    CHECK_EQ(zs[1].index, 7);
    CHECK_EQ(zkv_dev_report(d, 8, zs, 10), 0);
    CHECK_EQ(zkv_dev_report(d, 0, zs, 0), 0);
    zkv_dev_close(d);
  }

  /* The resource counters were rebuilt: no zone is open after the reopen (max_open 4, max_active 6). */
  d = open_dev(p, NULL);
  CHECK_EQ(append_pat(d, 0, 4 * KiB, 103, 0), (int64_t)(48 * KiB)); /* closed -> implicitly open */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 3, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 4, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 2, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 6, ZKV_ZONE_OPEN), ZE(TOO_MANY_OPEN_ZONES));
  CHECK_EQ(append_pat(d, 6, 4 * KiB, 1, 0), ZE(TOO_MANY_OPEN_ZONES));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 2, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(append_pat(d, 6, 4 * KiB, 180, 0), (int64_t)(6 * Z));
  zkv_dev_close(d);
  d = open_dev(p, NULL);
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 52 * KiB);
  expect_zone(d, 2, ZKV_ZONE_EMPTY, 0);
  expect_zone(d, 6, ZKV_ZONE_CLOSED, 4 * KiB);
  expect_data(d, 48 * KiB, 4 * KiB, 103);
  expect_data(d, 6 * Z, 4 * KiB, 180);
  zkv_dev_close(d);
  printf("  persistence ok\n");
}

/* ---------- synchronous I/O ---------- */

static void test_io(void) {
  zkv_geometry g = G;
  g.nr_zones = 4, g.max_open = 2, g.max_active = 3;
  const uint64_t Z = 1 * MiB, CAP = 768 * KiB;
  const char *p = format("io.dev", &g);
  zkv_dev *d = open_dev(p, NULL);
  zkv_dev_stats s0, s1;
  CHECK_EQ(zkv_dev_stats_get(d, &s0), 0);
  CHECK_EQ(s0.writes + s0.appends + s0.reads + s0.resets + s0.finishes + s0.flushes, 0);
  uint8_t *buf = malloc(128 * KiB);
  CHECK(buf != NULL);

  /* Write / read round trip; reads above the write pointer are zeros. */
  CHECK_EQ(write_pat(d, 0, 16 * KiB, 1, 0), 0);
  expect_data(d, 0, 16 * KiB, 1);
  expect_data(d, 16 * KiB, 16 * KiB, 0);
  CHECK_EQ(write_pat(d, 16 * KiB, 8 * KiB, 2, 0), 0);
  expect_data(d, 16 * KiB, 8 * KiB, 2);
  expect_zone(d, 0, ZKV_ZONE_IMP_OPEN, 24 * KiB);
  /* Bad writes change nothing. */
  CHECK_EQ(write_pat(d, 0, 4 * KiB, 9, 0), ZE(ZONE_INVALID_WRITE));
  CHECK_EQ(write_pat(d, 32 * KiB, 4 * KiB, 9, 0), ZE(ZONE_INVALID_WRITE));
  CHECK_EQ(write_pat(d, 24 * KiB, 1000, 9, 0), ZE(INVALID_FIELD));
  CHECK_EQ(write_pat(d, 24 * KiB + 512, 4 * KiB, 9, 0), ZE(INVALID_FIELD));
  CHECK_EQ(write_pat(d, 24 * KiB, CAP, 9, 0), ZE(ZONE_BOUNDARY_ERROR));
  CHECK_EQ(write_pat(d, 4 * Z, 4 * KiB, 9, 0), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(write_pat(d, 1000 * Z, 4 * KiB, 9, 0), ZE(LBA_OUT_OF_RANGE));
  expect_zone(d, 0, ZKV_ZONE_IMP_OPEN, 24 * KiB);
  expect_data(d, 24 * KiB, 16 * KiB, 0);

  /* Appends return the assigned offsets. */
  CHECK_EQ(append_pat(d, 1, 4 * KiB, 11, 0), (int64_t)Z);
  CHECK_EQ(append_pat(d, 1, 8 * KiB, 12, 0), (int64_t)(Z + 4 * KiB));
  CHECK_EQ(append_pat(d, 1, 64 * KiB, 13, 0), (int64_t)(Z + 12 * KiB)); /* == zasl */
  CHECK_EQ(append_pat(d, 1, 68 * KiB, 9, 0), ZE(INVALID_FIELD));
  CHECK_EQ(append_pat(d, 1, 6 * KiB, 9, 0), ZE(INVALID_FIELD));
  CHECK_EQ(append_pat(d, 4, 4 * KiB, 9, 0), ZE(LBA_OUT_OF_RANGE));
  expect_data(d, Z, 4 * KiB, 11);
  expect_data(d, Z + 4 * KiB, 8 * KiB, 12);
  expect_data(d, Z + 12 * KiB, 64 * KiB, 13);
  expect_zone(d, 1, ZKV_ZONE_IMP_OPEN, 76 * KiB);

  /* Read checks. */
  CHECK_EQ(zkv_dev_read(d, Z - 4 * KiB, buf, 8 * KiB), ZE(ZONE_BOUNDARY_ERROR));
  CHECK_EQ(zkv_dev_read(d, 4 * Z - 4 * KiB, buf, 8 * KiB), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(zkv_dev_read(d, 4 * Z, buf, 4 * KiB), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(zkv_dev_read(d, 0, buf, 0), ZE(INVALID_FIELD));
  CHECK_EQ(zkv_dev_read(d, 100, buf, 4 * KiB), ZE(INVALID_FIELD));
  expect_data(d, 4 * Z - 4 * KiB, 4 * KiB, 0);
  expect_data(d, Z + CAP, 64 * KiB, 0); /* the gap beyond the capacity is readable */

  /* Resource limits through the device (max_open 2, max_active 3): zones 0 and 1 are implicitly open. */
  CHECK_EQ(append_pat(d, 2, 4 * KiB, 21, 0), (int64_t)(2 * Z));
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 24 * KiB); /* closed to make room */
  expect_zone(d, 1, ZKV_ZONE_IMP_OPEN, 76 * KiB);
  expect_zone(d, 2, ZKV_ZONE_IMP_OPEN, 4 * KiB);
  CHECK_EQ(append_pat(d, 3, 4 * KiB, 9, 0), ZE(TOO_MANY_ACTIVE_ZONES));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 3, ZKV_ZONE_OPEN), ZE(TOO_MANY_ACTIVE_ZONES));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 2, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(write_pat(d, 24 * KiB, 4 * KiB, 9, 0), ZE(TOO_MANY_OPEN_ZONES));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_OPEN), ZE(TOO_MANY_OPEN_ZONES));
  /* Finish: Full; the data stays, the rest reads as zeros; no more writes. */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_FINISH), 0);
  expect_zone(d, 0, ZKV_ZONE_FULL, CAP);
  expect_data(d, 0, 16 * KiB, 1);
  expect_data(d, 24 * KiB, CAP - 24 * KiB, 0);
  CHECK_EQ(write_pat(d, 24 * KiB, 4 * KiB, 9, 0), ZE(ZONE_IS_FULL));
  CHECK_EQ(write_pat(d, CAP, 4 * KiB, 9, 0), ZE(ZONE_IS_FULL));
  CHECK_EQ(append_pat(d, 0, 4 * KiB, 9, 0), ZE(ZONE_IS_FULL));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_OPEN), ZE(INVALID_ZONE_STATE_TRANSITION));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_CLOSE), ZE(INVALID_ZONE_STATE_TRANSITION));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 4, ZKV_ZONE_OPEN), ZE(LBA_OUT_OF_RANGE));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, 99), ZE(INVALID_FIELD));
  /* Zone 3 now has an active resource but no open one (1 and 2 are explicitly open). */
  CHECK_EQ(append_pat(d, 3, 4 * KiB, 9, 0), ZE(TOO_MANY_OPEN_ZONES));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 2, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(append_pat(d, 3, 4 * KiB, 31, 0), (int64_t)(3 * Z));

  /* Reset: zeros, write pointer back at the start. */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_RESET), 0);
  expect_zone(d, 1, ZKV_ZONE_EMPTY, 0);
  expect_data(d, Z, 128 * KiB, 0);
  CHECK_EQ(append_pat(d, 1, 8 * KiB, 14, 0), (int64_t)Z);
  expect_data(d, Z, 8 * KiB, 14);
  expect_data(d, Z + 8 * KiB, 64 * KiB, 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_RESET), 0);
  expect_zone(d, 0, ZKV_ZONE_EMPTY, 0);
  expect_data(d, 0, 64 * KiB, 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_RESET), 0); /* resetting an empty zone is fine */
  CHECK_EQ(zkv_dev_flush(d), 0);

  /* Statistics count what succeeded. */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 3, ZKV_ZONE_FINISH), 0);
  CHECK_EQ(zkv_dev_stats_get(d, &s0), 0);
  CHECK_EQ(append_pat(d, 1, 8 * KiB, 15, 0), (int64_t)(Z + 8 * KiB));
  CHECK_EQ(append_pat(d, 3, 8 * KiB, 9, 0), ZE(ZONE_IS_FULL));
  CHECK_EQ(write_pat(d, Z + 16 * KiB, 4 * KiB, 16, 0), 0);
  CHECK_EQ(write_pat(d, Z, 4 * KiB, 16, 0), ZE(ZONE_INVALID_WRITE));
  CHECK_EQ(zkv_dev_read(d, Z, buf, 4 * KiB), 0);
  CHECK_EQ(zkv_dev_read(d, Z - 4 * KiB, buf, 8 * KiB), ZE(ZONE_BOUNDARY_ERROR));
  CHECK_EQ(zkv_dev_flush(d), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 2, ZKV_ZONE_FINISH), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 2, ZKV_ZONE_RESET), 0);
  zkv_zone z;
  CHECK_EQ(zkv_dev_report(d, 0, &z, 1), 1);
  CHECK_EQ(zkv_dev_stats_get(d, &s1), 0);
  CHECK_EQ(s1.appends - s0.appends, 1);
  CHECK_EQ(s1.bytes_appended - s0.bytes_appended, 8 * KiB);
  CHECK_EQ(s1.writes - s0.writes, 1);
  CHECK_EQ(s1.bytes_written - s0.bytes_written, 4 * KiB);
  CHECK_EQ(s1.reads - s0.reads, 1);
  CHECK_EQ(s1.bytes_read - s0.bytes_read, 4 * KiB);
  CHECK_EQ(s1.flushes - s0.flushes, 1);
  CHECK_EQ(s1.finishes - s0.finishes, 1);
  CHECK_EQ(s1.resets - s0.resets, 1);
  CHECK_EQ(s1.reports - s0.reports, 1);
  free(buf);
  zkv_dev_close(d);
  printf("  synchronous I/O ok\n");
}

/* ---------- fault injection ---------- */

static void test_faults(void) {
  const uint64_t Z = 1 * MiB;
  const char *p = format("faults.dev", &G);
  zkv_dev *d = open_dev(p, NULL);
  uint8_t b[4096];

  /* Writes to zone 2 only: two pass, three fail, then they pass again. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_WRITE, 2, 2, 3, -EIO), 0);
  uint64_t wp2 = 0, wp3 = 0, ids2[16];
  int n2 = 0;
  for (int i = 0; i < 8; i++) {
    CHECK_EQ(write_pat(d, 3 * Z + wp3, 4 * KiB, 300 + i, 0), 0); /* other zone: never */
    wp3 += 4 * KiB;
    int rc = write_pat(d, 2 * Z + wp2, 4 * KiB, 200 + i, 0);
    CHECK_EQ(rc, (i >= 2 && i < 5) ? -EIO : 0);
    if (rc == 0) wp2 += 4 * KiB, ids2[n2++] = 200 + i;
    if (i == 3) { /* appends and reads are not in the mask */
      CHECK_EQ(append_pat(d, 2, 4 * KiB, 250, 0), (int64_t)(2 * Z + wp2));
      wp2 += 4 * KiB, ids2[n2++] = 250;
      CHECK_EQ(zkv_dev_read(d, 2 * Z, b, 4 * KiB), 0);
    }
  }
  CHECK_EQ(wp2, 6 * 4 * KiB);
  expect_zone(d, 2, ZKV_ZONE_IMP_OPEN, wp2);
  for (int i = 0; i < n2; i++) expect_data(d, 2 * Z + i * 4 * KiB, 4 * KiB, ids2[i]);

  /* Any zone, reads and appends: skip one, fail two. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_READ | ZKV_FAULT_APPEND, -1, 1, 2, -ENOSPC), 0);
  CHECK_EQ(zkv_dev_read(d, 2 * Z, b, 4 * KiB), 0);         /* skipped */
  CHECK_EQ(write_pat(d, 3 * Z + wp3, 4 * KiB, 399, 0), 0); /* not matching */
  wp3 += 4 * KiB;
  CHECK_EQ(append_pat(d, 4, 4 * KiB, 9, 0), -ENOSPC);
  CHECK_EQ(zkv_dev_read(d, 3 * Z, b, 4 * KiB), -ENOSPC);
  CHECK_EQ(append_pat(d, 4, 4 * KiB, 400, 0), (int64_t)(4 * Z)); /* the failed append took no space */
  CHECK_EQ(zkv_dev_read(d, 2 * Z, b, 4 * KiB), 0);
  CHECK(matches(b, 4 * KiB, 200));

  /* An injected NVMe status comes back as is. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_APPEND, 5, 0, 1, ZE(ZONE_IS_OFFLINE)), 0);
  CHECK_EQ(append_pat(d, 4, 4 * KiB, 401, 0), (int64_t)(4 * Z + 4 * KiB));
  CHECK_EQ(append_pat(d, 5, 4 * KiB, 9, 0), ZE(ZONE_IS_OFFLINE));
  CHECK_EQ(append_pat(d, 5, 4 * KiB, 500, 0), (int64_t)(5 * Z));

  /* The device counts every failure it returned: three writes, an append and a read, one status. */
  zkv_dev_stats st;
  CHECK_EQ(zkv_dev_stats_get(d, &st), 0);
  CHECK_EQ(st.errors, 6u);

  /* Zone management. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_MGMT, 6, 0, 1, -EIO), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 5, ZKV_ZONE_CLOSE), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 6, ZKV_ZONE_OPEN), -EIO);
  expect_zone(d, 6, ZKV_ZONE_EMPTY, 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 6, ZKV_ZONE_OPEN), 0);
  expect_zone(d, 6, ZKV_ZONE_EXP_OPEN, 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 6, ZKV_ZONE_CLOSE), 0);

  /* Flush. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_FLUSH, -1, 0, 1, -EIO), 0);
  CHECK_EQ(zkv_dev_flush(d), -EIO);
  CHECK_EQ(zkv_dev_flush(d), 0);

  /* count 0 clears the rule with the same mask and zone, and only that one. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_WRITE | ZKV_FAULT_APPEND, -1, 0, 100, -EIO), 0);
  CHECK_EQ(write_pat(d, 3 * Z + wp3, 4 * KiB, 9, 0), -EIO);
  CHECK_EQ(append_pat(d, 3, 4 * KiB, 9, 0), -EIO);
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_WRITE | ZKV_FAULT_APPEND, -1, 0, 0, 0), 0);
  CHECK_EQ(write_pat(d, 3 * Z + wp3, 4 * KiB, 398, 0), 0);
  wp3 += 4 * KiB;
  CHECK_EQ(append_pat(d, 3, 4 * KiB, 397, 0), (int64_t)(3 * Z + wp3));
  wp3 += 4 * KiB;
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_WRITE, 7, 0, 5, -EIO), 0);
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_WRITE, 6, 0, 0, 0), 0); /* another zone: not cleared */
  CHECK_EQ(write_pat(d, 7 * Z, 4 * KiB, 9, 0), -EIO);
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_WRITE, 7, 0, 0, 0), 0);
  CHECK_EQ(write_pat(d, 7 * Z, 4 * KiB, 700, 0), 0);

  /* Argument checks; at most 8 rules, applied in order. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_READ, -1, 0, 1, 0), -EINVAL);
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_READ, -1, 0, 1, 5), -EINVAL);
  for (int i = 0; i < 8; i++) CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_READ, 7, 0, 1, -(i + 1)), 0);
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_READ, 7, 0, 1, -EIO), -ENOSPC);
  CHECK_EQ(zkv_dev_read(d, 6 * Z, b, 4 * KiB), 0); /* zone 6: not matching */
  for (int i = 0; i < 8; i++) CHECK_EQ(zkv_dev_read(d, 7 * Z, b, 4 * KiB), -(i + 1));
  CHECK_EQ(zkv_dev_read(d, 7 * Z, b, 4 * KiB), 0);
  CHECK(matches(b, 4 * KiB, 700));

  /* Through a queue: the second append to zone 4 fails, as a completion; it takes no space. */
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_APPEND, 4, 1, 1, -EIO), 0);
  int err = 0;
  zkv_queue *q = zkv_queue_create(d, 4, &err);
  CHECK(q != NULL);
  uint8_t qb[3][4096];
  for (int i = 0; i < 3; i++) {
    fill(qb[i], 4096, 600 + i);
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = 4, .buf = qb[i], .len = 4096, .tag = (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  zkv_completion c[4];
  CHECK_EQ(zkv_queue_reap(q, c, 3, 4, -1), 3);
  int64_t res[3] = {1, 1, 1};
  for (int i = 0; i < 3; i++) {
    CHECK(c[i].tag < 3);
    res[c[i].tag] = c[i].result;
  }
  CHECK_EQ(res[0], (int64_t)(4 * Z + 8 * KiB));
  CHECK_EQ(res[1], -EIO);
  CHECK_EQ(res[2], (int64_t)(4 * Z + 12 * KiB));
  zkv_queue_destroy(q);
  expect_data(d, 4 * Z + 8 * KiB, 4 * KiB, 600);
  expect_data(d, 4 * Z + 12 * KiB, 4 * KiB, 602);
  zkv_dev_close(d);
  printf("  fault injection ok\n");
}

/* ---------- failed zones ---------- */

static void test_zone_condition(void) {
  const uint64_t Z = 1 * MiB;
  const char *p = format("cond.dev", &G);
  zkv_dev *d = open_dev(p, NULL);
  uint8_t b[8192];
  const int bad = ZE(INVALID_ZONE_STATE_TRANSITION);
  const int actions[] = {ZKV_ZONE_OPEN, ZKV_ZONE_CLOSE, ZKV_ZONE_FINISH, ZKV_ZONE_RESET};

  CHECK_EQ(write_pat(d, 1 * Z, 8 * KiB, 1, 0), 0);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 1, ZKV_ZONE_READ_ONLY), 0);
  CHECK_EQ(write_pat(d, 1 * Z + 8 * KiB, 4 * KiB, 9, 0), ZE(ZONE_IS_READ_ONLY));
  CHECK_EQ(append_pat(d, 1, 4 * KiB, 9, 0), ZE(ZONE_IS_READ_ONLY));
  expect_data(d, 1 * Z, 8 * KiB, 1); /* still readable */
  for (int i = 0; i < 4; i++) CHECK_EQ(zkv_dev_zone_mgmt(d, 1, actions[i]), bad);
  expect_zone(d, 1, ZKV_ZONE_READ_ONLY, 8 * KiB);

  CHECK_EQ(write_pat(d, 2 * Z, 8 * KiB, 2, 0), 0);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 2, ZKV_ZONE_OFFLINE), 0);
  CHECK_EQ(write_pat(d, 2 * Z + 8 * KiB, 4 * KiB, 9, 0), ZE(ZONE_IS_OFFLINE));
  CHECK_EQ(append_pat(d, 2, 4 * KiB, 9, 0), ZE(ZONE_IS_OFFLINE));
  CHECK_EQ(zkv_dev_read(d, 2 * Z, b, 4 * KiB), ZE(ZONE_IS_OFFLINE));
  for (int i = 0; i < 4; i++) CHECK_EQ(zkv_dev_zone_mgmt(d, 2, actions[i]), bad);
  CHECK_EQ(zone_of(d, 2).cond, ZKV_ZONE_OFFLINE);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 3, ZKV_ZONE_OFFLINE), 0); /* an empty zone */
  CHECK_EQ(zkv_dev_read(d, 3 * Z + 16 * KiB, b, 4 * KiB), ZE(ZONE_IS_OFFLINE));
  CHECK_EQ(append_pat(d, 3, 4 * KiB, 9, 0), ZE(ZONE_IS_OFFLINE));
  /* A read-only zone can still fail completely. */
  CHECK_EQ(write_pat(d, 4 * Z, 4 * KiB, 4, 0), 0);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 4, ZKV_ZONE_READ_ONLY), 0);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 4, ZKV_ZONE_OFFLINE), 0);
  CHECK_EQ(zkv_dev_read(d, 4 * Z, b, 4 * KiB), ZE(ZONE_IS_OFFLINE));
  /* Only read-only and offline, only existing zones. */
  CHECK_EQ(zkv_emu_set_zone_condition(d, 0, ZKV_ZONE_EMPTY), -EINVAL);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 0, ZKV_ZONE_FULL), -EINVAL);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 0, ZKV_ZONE_EXP_OPEN), -EINVAL);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 8, ZKV_ZONE_READ_ONLY), -EINVAL);
  CHECK_EQ(zone_of(d, 0).cond, ZKV_ZONE_EMPTY);

  /* Failed zones hold no resources (max_open 4): zones 1, 2 and 4 were implicitly open. */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 5, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 6, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 7, ZKV_ZONE_OPEN), 0);
  CHECK_EQ(write_pat(d, 7 * Z, 4 * KiB, 7, 0), 0);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 7, ZKV_ZONE_READ_ONLY), 0);
  CHECK_EQ(append_pat(d, 0, 4 * KiB, 10, 0), 0);

  /* Through a queue. */
  int err = 0;
  zkv_queue *q = zkv_queue_create(d, 4, &err);
  CHECK(q != NULL);
  zkv_request r1 = {.op = ZKV_OP_APPEND, .zone = 1, .buf = b, .len = 4096, .tag = 1};
  zkv_request r2 = {.op = ZKV_OP_READ, .offset = 2 * Z, .buf = b, .len = 4096, .tag = 2};
  zkv_request r3 = {.op = ZKV_OP_WRITE, .offset = 3 * Z, .buf = b, .len = 4096, .tag = 3};
  CHECK_EQ(zkv_queue_submit(q, &r1), 0);
  CHECK_EQ(zkv_queue_submit(q, &r2), 0);
  CHECK_EQ(zkv_queue_submit(q, &r3), 0);
  zkv_completion c[4];
  CHECK_EQ(zkv_queue_reap(q, c, 3, 4, -1), 3);
  for (int i = 0; i < 3; i++) {
    int64_t want = c[i].tag == 1 ? ZE(ZONE_IS_READ_ONLY) : ZE(ZONE_IS_OFFLINE);
    CHECK(c[i].tag >= 1 && c[i].tag <= 3);
    CHECK_EQ(c[i].result, want);
  }
  zkv_queue_destroy(q);
  zkv_dev_close(d);

  /* Failures persist. */
  d = open_dev(p, NULL);
  expect_zone(d, 1, ZKV_ZONE_READ_ONLY, 8 * KiB);
  expect_data(d, 1 * Z, 8 * KiB, 1);
  CHECK_EQ(zone_of(d, 2).cond, ZKV_ZONE_OFFLINE);
  CHECK_EQ(zone_of(d, 3).cond, ZKV_ZONE_OFFLINE);
  CHECK_EQ(zone_of(d, 4).cond, ZKV_ZONE_OFFLINE);
  expect_zone(d, 7, ZKV_ZONE_READ_ONLY, 4 * KiB);
  CHECK_EQ(zkv_dev_read(d, 2 * Z, b, 4 * KiB), ZE(ZONE_IS_OFFLINE));
  CHECK_EQ(append_pat(d, 1, 4 * KiB, 9, 0), ZE(ZONE_IS_READ_ONLY));
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 4 * KiB);
  expect_zone(d, 5, ZKV_ZONE_EMPTY, 0);
  zkv_dev_close(d);
  printf("  read-only / offline zones ok\n");
}

/* ---------- power cuts ---------- */

static const zkv_geometry GNL = {.lba_size = 4096,
                                 .nr_zones = 8,
                                 .zone_size = 1 * MiB,
                                 .zone_cap = 768 * KiB,
                                 .zasl = 64 * KiB}; /* no open/active limits */

static void expect_dead(zkv_dev *d) {
  uint8_t b[4096] = {0};
  zkv_zone z;
  CHECK_EQ(zkv_dev_write(d, 7 * MiB, b, 4096, 0), -ENODEV);
  CHECK_EQ(zkv_dev_write(d, 7 * MiB, b, 4096, ZKV_IO_FUA), -ENODEV);
  CHECK_EQ(zkv_dev_append(d, 7, b, 4096, 0), -ENODEV);
  CHECK_EQ(zkv_dev_read(d, 0, b, 4096), -ENODEV);
  CHECK_EQ(zkv_dev_flush(d), -ENODEV);
  CHECK_EQ(zkv_dev_report(d, 0, &z, 1), -ENODEV);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 7, ZKV_ZONE_OPEN), -ENODEV);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 0, ZKV_ZONE_RESET), -ENODEV);
  CHECK_EQ(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 0), -ENODEV);
  zkv_dev_stats st;
  CHECK_EQ(zkv_dev_stats_get(d, &st), 0);
  int err = 0;
  zkv_queue *q = zkv_queue_create(d, 2, &err);
  CHECK(q != NULL);
  zkv_request r1 = {.op = ZKV_OP_APPEND, .zone = 7, .buf = b, .len = 4096, .tag = 1};
  zkv_request r2 = {.op = ZKV_OP_READ, .offset = 0, .buf = b, .len = 4096, .tag = 2};
  CHECK_EQ(zkv_queue_submit(q, &r1), 0);
  CHECK_EQ(zkv_queue_submit(q, &r2), 0);
  zkv_completion c[2];
  CHECK_EQ(zkv_queue_reap(q, c, 2, 2, -1), 2);
  CHECK_EQ(c[0].result, -ENODEV);
  CHECK_EQ(c[1].result, -ENODEV);
  zkv_queue_destroy(q);
}

static void test_power_cut(void) {
  const uint64_t Z = 1 * MiB, CAP = 768 * KiB;
  const char *p = format("cut.dev", &GNL);
  zkv_dev *d = open_dev(p, "?wcache=1");
  CHECK_EQ(zkv_emu_power_cut(d, 7, 0), -EINVAL);
  /* zone 0: A, B flushed; C, D not */
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 1, 0), 0);
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 2, 0), (int64_t)(16 * KiB));
  CHECK_EQ(zkv_dev_flush(d), 0);
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 3, 0), (int64_t)(32 * KiB));
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 4, 0), (int64_t)(48 * KiB));
  /* zone 1: a FUA write */
  CHECK_EQ(write_pat(d, 1 * Z, 8 * KiB, 5, ZKV_IO_FUA), 0);
  /* zone 2: one non-durable append: the zone is empty again after the cut */
  CHECK_EQ(append_pat(d, 2, 8 * KiB, 6, 0), (int64_t)(2 * Z));
  /* zone 3: filled to Full without a flush: stays Full, its data is gone */
  for (int i = 0; i < 12; i++) CHECK_EQ(append_pat(d, 3, 64 * KiB, 10 + i, 0), (int64_t)(3 * Z + i * 64 * KiB));
  expect_zone(d, 3, ZKV_ZONE_FULL, CAP);
  /* zone 4: a non-durable append, then a reset: nothing left to lose */
  CHECK_EQ(append_pat(d, 4, 8 * KiB, 7, 0), (int64_t)(4 * Z));
  CHECK_EQ(zkv_dev_zone_mgmt(d, 4, ZKV_ZONE_RESET), 0);
  /* zone 5: non-durable X below a FUA Y: X is a hole of zeros, Y stays, the write pointer too */
  CHECK_EQ(append_pat(d, 5, 4 * KiB, 8, 0), (int64_t)(5 * Z));
  CHECK_EQ(append_pat(d, 5, 4 * KiB, 9, ZKV_IO_FUA), (int64_t)(5 * Z + 4 * KiB));
  /* Before the cut everything reads back. */
  expect_data(d, 32 * KiB, 16 * KiB, 3);
  expect_data(d, 3 * Z, 64 * KiB, 10);

  CHECK_EQ(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 0), 2 + 1 + 12 + 1);
  expect_dead(d);
  zkv_dev_close(d);

  d = open_dev(p, "?wcache=1");
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 32 * KiB);
  expect_data(d, 0, 16 * KiB, 1);
  expect_data(d, 16 * KiB, 16 * KiB, 2);
  expect_data(d, 32 * KiB, 32 * KiB, 0);
  expect_zone(d, 1, ZKV_ZONE_CLOSED, 8 * KiB);
  expect_data(d, 1 * Z, 8 * KiB, 5);
  expect_zone(d, 2, ZKV_ZONE_EMPTY, 0);
  expect_data(d, 2 * Z, 8 * KiB, 0);
  expect_zone(d, 3, ZKV_ZONE_FULL, CAP);
  expect_data(d, 3 * Z, CAP, 0);
  expect_zone(d, 4, ZKV_ZONE_EMPTY, 0);
  expect_data(d, 4 * Z, 8 * KiB, 0);
  expect_zone(d, 5, ZKV_ZONE_CLOSED, 8 * KiB);
  expect_data(d, 5 * Z, 4 * KiB, 0);
  expect_data(d, 5 * Z + 4 * KiB, 4 * KiB, 9);
  /* Writing resumes at the fallen-back write pointer; a flush makes it durable. */
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 30, 0), (int64_t)(32 * KiB));
  CHECK_EQ(zkv_dev_flush(d), 0);
  CHECK_EQ(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 0), 0);
  zkv_dev_close(d);
  d = open_dev(p, "?wcache=1");
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 48 * KiB);
  expect_data(d, 32 * KiB, 16 * KiB, 30);

  /* Requests still in a queue at the cut are lost, and complete with -ENODEV. */
  int err = 0;
  zkv_queue *q = zkv_queue_create(d, 8, &err);
  CHECK(q != NULL);
  uint8_t *qb = malloc(4 * 16 * KiB);
  CHECK(qb != NULL);
  for (int i = 0; i < 4; i++) {
    fill(qb + i * 16 * KiB, 16 * KiB, 40 + i);
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = 6, .buf = qb + i * 16 * KiB, .len = 16 * KiB, .tag = (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  CHECK_EQ(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 0), 4);
  zkv_completion c[4];
  CHECK_EQ(zkv_queue_reap(q, c, 4, 4, -1), 4);
  for (int i = 0; i < 4; i++) CHECK_EQ(c[i].result, -ENODEV);
  zkv_queue_destroy(q);
  free(qb);
  zkv_dev_close(d);
  d = open_dev(p, NULL);
  expect_zone(d, 6, ZKV_ZONE_EMPTY, 0);
  expect_data(d, 6 * Z, 64 * KiB, 0);
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 48 * KiB);
  zkv_dev_close(d);
  printf("  power cut (write cache, flush, FUA) ok\n");
}

/* A power cut during one chosen write (zkv_emu_cut_power_during): it keeps the first blocks the
 * rule says and loses the rest, every other non-durable write is lost, it fails with -ENODEV, and
 * the device reopens with exactly that; synchronous and queued, with and without a write cache. */
static void test_power_cut_during(void) {
  const uint64_t Z = 1 * MiB;
  const char *p = format("cut-during.dev", &GNL);
  zkv_dev *d = open_dev(p, "?wcache=1");
  CHECK_EQ(zkv_emu_cut_power_during(d, ZKV_FAULT_READ, -1, 0, 1), -EINVAL);
  CHECK_EQ(zkv_emu_cut_power_during(d, 0, -1, 0, 1), -EINVAL);
  /* zone 0: A durable, B not; the cut comes during the second FUA append after A (C passes, D is
   * torn after 2 of its 4 blocks): B is a hole below C, D keeps 8 KiB */
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 1, ZKV_IO_FUA), 0);
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 2, 0), (int64_t)(16 * KiB));
  CHECK_EQ(zkv_emu_cut_power_during(d, ZKV_FAULT_APPEND, 0, 1, 2), 0);
  CHECK_EQ(append_pat(d, 1, 4 * KiB, 9, 0), (int64_t)Z); /* another zone's: not matched */
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 3, ZKV_IO_FUA), (int64_t)(32 * KiB));
  CHECK_EQ(append_pat(d, 0, 16 * KiB, 4, ZKV_IO_FUA), -ENODEV);
  expect_dead(d);
  zkv_dev_close(d);
  d = open_dev(p, "?wcache=1");
  expect_zone(d, 0, ZKV_ZONE_CLOSED, 56 * KiB);
  expect_data(d, 0, 16 * KiB, 1);
  expect_data(d, 16 * KiB, 16 * KiB, 0);
  expect_data(d, 32 * KiB, 16 * KiB, 3);
  uint8_t *want = malloc(16 * KiB), *got = malloc(8 * KiB);
  CHECK(want != NULL && got != NULL);
  fill(want, 16 * KiB, 4);
  CHECK_EQ(zkv_dev_read(d, 48 * KiB, got, 8 * KiB), 0);
  CHECK(memcmp(got, want, 8 * KiB) == 0); /* the prefix of D, not of a pattern of its own */
  expect_zone(d, 1, ZKV_ZONE_EMPTY, 0);   /* lost: not durable */
  /* A write kept whole (keep beyond its blocks), on a device without a write cache. */
  zkv_dev_close(d);
  d = open_dev(p, NULL);
  CHECK_EQ(zkv_emu_cut_power_during(d, ZKV_FAULT_WRITE, -1, 0, 100), 0);
  CHECK_EQ(write_pat(d, 2 * Z, 8 * KiB, 5, 0), -ENODEV);
  zkv_dev_close(d);
  d = open_dev(p, NULL);
  expect_zone(d, 2, ZKV_ZONE_CLOSED, 8 * KiB);
  expect_data(d, 2 * Z, 8 * KiB, 5);
  /* Queued: the third append is torn at its first block; the ones before it completed. */
  int err = 0;
  zkv_queue *q = zkv_queue_create(d, 8, &err);
  CHECK(q != NULL);
  uint8_t *qb = malloc(4 * 8 * KiB);
  CHECK(qb != NULL);
  CHECK_EQ(zkv_emu_cut_power_during(d, ZKV_FAULT_APPEND, 3, 2, 1), 0);
  for (int i = 0; i < 3; i++) {
    fill(qb + i * 8 * KiB, 8 * KiB, 60 + i);
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = 3, .buf = qb + i * 8 * KiB, .len = 8 * KiB, .tag = (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
    if (i < 2) {
      zkv_completion c;
      CHECK_EQ(zkv_queue_reap(q, &c, 1, 1, -1), 1);
      CHECK_EQ(c.result, (int64_t)(3 * Z + (uint64_t)i * 8 * KiB));
    }
  }
  zkv_completion c;
  CHECK_EQ(zkv_queue_reap(q, &c, 1, 1, -1), 1);
  CHECK_EQ(c.result, -ENODEV);
  zkv_queue_destroy(q);
  zkv_dev_close(d);
  d = open_dev(p, NULL);
  expect_zone(d, 3, ZKV_ZONE_CLOSED, 20 * KiB);
  expect_data(d, 3 * Z, 8 * KiB, 60);
  expect_data(d, 3 * Z + 8 * KiB, 8 * KiB, 61);
  fill(want, 8 * KiB, 62);
  CHECK_EQ(zkv_dev_read(d, 3 * Z + 16 * KiB, got, 4 * KiB), 0);
  CHECK(memcmp(got, want, 4 * KiB) == 0);
  zkv_dev_close(d);
  free(qb);
  free(want);
  free(got);
  printf("  power cut during a chosen write ok\n");
}

static void test_power_cut_no_wcache(void) {
  const uint64_t Z = 1 * MiB;
  const char *p = format("nocache.dev", &GNL);
  for (int mode = ZKV_CUT_DROP_ALL; mode <= ZKV_CUT_RANDOM; mode++) {
    zkv_dev *d = open_dev(p, mode ? "?wcache=0" : NULL);
    uint64_t base = (uint64_t)mode * 100;
    int64_t w0 = (int64_t)zone_of(d, 0).wp;
    for (int i = 0; i < 3; i++) CHECK_EQ(append_pat(d, 0, 16 * KiB, base + 1 + i, 0), w0 + i * 16 * KiB);
    uint64_t w1 = zone_of(d, 1).wp;
    CHECK_EQ(write_pat(d, w1, 8 * KiB, base + 10, 0), 0);
    CHECK_EQ(zkv_emu_power_cut(d, mode, 1234), 0); /* nothing was at risk */
    expect_dead(d);
    zkv_dev_close(d);
    d = open_dev(p, NULL);
    expect_zone(d, 0, ZKV_ZONE_CLOSED, (uint64_t)w0 + 48 * KiB);
    for (int i = 0; i < 3; i++) expect_data(d, (uint64_t)w0 + i * 16 * KiB, 16 * KiB, base + 1 + i);
    expect_zone(d, 1, ZKV_ZONE_CLOSED, w1 - 1 * Z + 8 * KiB);
    expect_data(d, w1, 8 * KiB, base + 10);
    zkv_dev_close(d);
  }
  printf("  power cut without write cache ok\n");
}

/* One random scenario: durable and non-durable appends of various lengths in 3 zones, a random
 * cut, then every append must be present, absent or torn (a block prefix), with write pointers
 * that fell back over lost data at each zone's end. fates[i] = 0 kept, 1 lost, 2 torn. */
typedef struct cut_rec {
  uint32_t zone;
  uint64_t off, len, id;
  int durable;
} cut_rec;

static int cut_scenario(uint64_t seed, int *fates, int tally[3]) {
  static int runs;
  const uint64_t Z = 1 * MiB, LBA = 4096;
  zkv_geometry g = {.lba_size = 4096, .nr_zones = 3, .zone_size = Z, .zone_cap = Z, .zasl = 64 * KiB};
  char name[64];
  snprintf(name, sizeof name, "random-cut-%d.dev", runs++);
  const char *p = format(name, &g);
  zkv_dev *d = open_dev(p, "?wcache=1");
  uint64_t rng = seed;
  cut_rec recs[64];
  int n = 0, nondurable = 0;
  for (int i = 0; i < 2; i++) { /* durable prefix in zone 0 */
    recs[n] = (cut_rec){.zone = 0, .len = 16 * KiB, .id = 1 + i, .durable = 1};
    recs[n].off = (uint64_t)append_pat(d, 0, 16 * KiB, recs[n].id, 0);
    CHECK_EQ(recs[n].off, i * 16 * KiB);
    n++;
  }
  CHECK_EQ(zkv_dev_flush(d), 0);
  int extra = 12 + (int)(rng_next(&rng) % 12);
  for (int i = 0; i < extra; i++, n++, nondurable++) {
    uint32_t z = (uint32_t)(rng_next(&rng) % 3);
    uint64_t len = (1 + rng_next(&rng) % 6) * LBA;
    recs[n] = (cut_rec){.zone = z, .len = len, .id = 100 + (uint64_t)i};
    int64_t off = append_pat(d, z, len, recs[n].id, 0);
    CHECK(off >= 0);
    recs[n].off = (uint64_t)off;
  }
  CHECK_EQ(zkv_emu_power_cut(d, ZKV_CUT_RANDOM, seed), nondurable);
  zkv_dev_close(d);

  d = open_dev(p, NULL);
  uint8_t *got = malloc(64 * KiB), *want = malloc(64 * KiB);
  CHECK(got && want);
  int kept_blocks[64];
  for (int i = 0; i < n; i++) {
    cut_rec *r = &recs[i];
    uint64_t blocks = r->len / LBA, k = 0;
    CHECK_EQ(zkv_dev_read(d, r->off, got, r->len), 0);
    fill(want, r->len, r->id);
    while (k < blocks && memcmp(got + k * LBA, want + k * LBA, LBA) == 0) k++;
    for (uint64_t j = k; j < blocks; j++) {
      if (!is_zero(got + j * LBA, LBA))
        fprintf(stderr,
                "seed %" PRIu64 ": append %d block %" PRIu64 " is neither its data nor zeros (kept %" PRIu64
                " blocks)\n",
                seed, i, j, k);
      CHECK(is_zero(got + j * LBA, LBA));
    }
    if (r->durable) CHECK_EQ(k, blocks);
    kept_blocks[i] = (int)k;
    int fate = k == blocks ? 0 : k == 0 ? 1 : 2;
    fates[i] = fate;
    if (!r->durable) tally[fate]++;
  }
  /* Write pointers: from each zone's last append backwards, lost appends give their space back,
   * a torn one keeps its prefix and stops the walk, a kept one stops it. */
  for (uint32_t z = 0; z < 3; z++) {
    uint64_t w = 0;
    int last = -1;
    for (int i = 0; i < n; i++)
      if (recs[i].zone == z) last = i, w = recs[i].off + recs[i].len - z * Z;
    for (int i = last; i >= 0; i--) {
      if (recs[i].zone != z) continue;
      if (fates[i] == 0) break;
      w = recs[i].off - z * Z + (uint64_t)kept_blocks[i] * LBA;
      if (fates[i] == 2) break;
    }
    expect_zone(d, z, w ? ZKV_ZONE_CLOSED : ZKV_ZONE_EMPTY, w);
    CHECK_EQ(zkv_dev_read(d, z * Z + w, got, 64 * KiB), 0);
    CHECK(is_zero(got, 64 * KiB));
  }
  free(got);
  free(want);
  zkv_dev_close(d);
  unlink(p);
  return n;
}

static void test_power_cut_random(void) {
  uint64_t base = seed_base();
  int tally[3] = {0, 0, 0};
  int fates[64], fates2[64], ignore[3] = {0, 0, 0};
  for (int r = 0; r < 30; r++) cut_scenario(base + (uint64_t)r, fates, tally);
  /* The same seed decides the same fates. */
  int n1 = cut_scenario(base, fates, ignore);
  int n2 = cut_scenario(base, fates2, ignore);
  CHECK_EQ(n1, n2);
  for (int i = 0; i < n1; i++) CHECK_EQ(fates[i], fates2[i]);
  printf("  random power cuts ok (seed %" PRIu64 "): %d kept, %d lost, %d torn\n", base, tally[0], tally[1], tally[2]);
  CHECK(tally[0] > 0 && tally[1] > 0 && tally[2] > 0);
}

/* ---------- asynchronous queue ---------- */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void test_queue(void) {
  const uint64_t Z = 1 * MiB;
  const char *p = format("queue.dev", &GNL);
  zkv_dev *d = open_dev(p, NULL);
  int err = 0;
  CHECK(zkv_queue_create(d, 0, &err) == NULL);
  CHECK_EQ(err, -EINVAL);
  err = 0;
  CHECK(zkv_queue_create(d, 5000, &err) == NULL);
  CHECK_EQ(err, -EINVAL);
  zkv_queue *q = zkv_queue_create(d, 32, &err);
  CHECK(q != NULL);
  zkv_completion c[64];
  CHECK_EQ(zkv_queue_reap(q, c, 0, 64, 0), 0);
  CHECK_EQ(zkv_queue_reap(q, c, 1, 64, -1), 0); /* nothing in flight: returns at once */

  /* 32 appends to one zone at depth 32. */
  enum { N = 32 };
  const size_t LEN = 8 * KiB;
  uint8_t *bufs = malloc(N * LEN), *rbufs = malloc(N * LEN);
  CHECK(bufs && rbufs);
  for (int i = 0; i < N; i++) {
    fill(bufs + i * LEN, LEN, 1000 + i);
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = 0, .buf = bufs + i * LEN, .len = LEN, .tag = 1000 + (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  CHECK_EQ(zkv_queue_inflight(q), N);
  zkv_request extra = {.op = ZKV_OP_APPEND, .zone = 0, .buf = bufs, .len = LEN, .tag = 1};
  CHECK_EQ(zkv_queue_submit(q, &extra), -EBUSY);
  CHECK_EQ(zkv_queue_inflight(q), N);
  CHECK_EQ(zkv_queue_reap(q, c, N, 64, -1), N);
  CHECK_EQ(zkv_queue_inflight(q), 0);
  uint64_t off[N], sorted[N];
  int seen[N] = {0};
  for (int i = 0; i < N; i++) {
    CHECK(c[i].tag >= 1000 && c[i].tag < 1000 + N);
    int t = (int)(c[i].tag - 1000);
    CHECK(!seen[t]);
    seen[t] = 1;
    CHECK(c[i].result >= 0);
    off[t] = sorted[t] = (uint64_t)c[i].result;
  }
  qsort(sorted, N, sizeof sorted[0], cmp_u64);
  for (int i = 0; i < N; i++) CHECK_EQ(sorted[i], i * LEN); /* unique, contiguous from the zone start */
  for (int i = 0; i < N; i++) expect_data(d, off[i], LEN, 1000 + i);
  expect_zone(d, 0, ZKV_ZONE_IMP_OPEN, N * LEN);

  /* Reads through the queue. */
  memset(rbufs, 0xA5, N * LEN);
  for (int i = 0; i < N; i++) {
    zkv_request r = {
        .op = ZKV_OP_READ, .offset = off[i], .buf = rbufs + i * LEN, .len = LEN, .tag = 2000 + (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  CHECK_EQ(zkv_queue_reap(q, c, N, 64, -1), N);
  for (int i = 0; i < N; i++) {
    CHECK(c[i].tag >= 2000 && c[i].tag < 2000 + N);
    CHECK_EQ(c[i].result, 0);
  }
  CHECK(memcmp(rbufs, bufs, N * LEN) == 0);

  /* Writes, flushes, and errors reported as completions. */
  CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_FINISH), 0);
  uint8_t *wb = malloc(16 * KiB);
  CHECK(wb != NULL);
  fill(wb, 16 * KiB, 3000);
  zkv_request reqs[] = {
      {.op = ZKV_OP_WRITE, .offset = N * LEN, .buf = wb, .len = 16 * KiB, .tag = 1},
      {.op = ZKV_OP_WRITE, .offset = 0, .buf = wb, .len = 4 * KiB, .tag = 2},
      {.op = ZKV_OP_FLUSH, .tag = 3},
      {.op = ZKV_OP_APPEND, .zone = 1, .buf = wb, .len = 4 * KiB, .tag = 4},
      {.op = ZKV_OP_APPEND, .zone = 99, .buf = wb, .len = 4 * KiB, .tag = 5},
      {.op = ZKV_OP_APPEND, .zone = 2, .buf = rbufs, .len = 128 * KiB, .tag = 6},
      {.op = ZKV_OP_READ, .offset = Z - 4 * KiB, .buf = rbufs, .len = 8 * KiB, .tag = 7},
      {.op = ZKV_OP_WRITE, .offset = 100 * Z, .buf = wb, .len = 4 * KiB, .tag = 8},
  };
  const int64_t want[] = {0,
                          0,
                          0,
                          ZE(ZONE_IS_FULL),
                          ZE(LBA_OUT_OF_RANGE),
                          ZE(INVALID_FIELD),
                          ZE(ZONE_BOUNDARY_ERROR),
                          ZE(LBA_OUT_OF_RANGE)};
  const int64_t want2 = ZE(ZONE_INVALID_WRITE);
  const int nreq = (int)(sizeof reqs / sizeof reqs[0]);
  for (int i = 0; i < nreq; i++) CHECK_EQ(zkv_queue_submit(q, &reqs[i]), 0);
  zkv_request badop = {.op = 9, .tag = 99};
  CHECK_EQ(zkv_queue_submit(q, &badop), -EINVAL);
  badop.op = -1;
  CHECK_EQ(zkv_queue_submit(q, &badop), -EINVAL);
  CHECK_EQ(zkv_queue_inflight(q), (uint32_t)nreq);
  CHECK_EQ(zkv_queue_reap(q, c, nreq, 64, -1), nreq);
  for (int i = 0; i < nreq; i++) {
    CHECK(c[i].tag >= 1 && c[i].tag <= (uint64_t)nreq);
    CHECK_EQ(c[i].result, c[i].tag == 2 ? want2 : want[c[i].tag - 1]);
  }
  expect_data(d, N * LEN, 16 * KiB, 3000);
  expect_zone(d, 1, ZKV_ZONE_FULL, 768 * KiB);

  /* Partial reaps. */
  for (int i = 0; i < 10; i++) {
    fill(bufs + i * LEN, LEN, 4000 + i);
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = 2, .buf = bufs + i * LEN, .len = LEN, .tag = 4000 + (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  int got = zkv_queue_reap(q, c, 1, 4, -1);
  CHECK(got >= 1 && got <= 4);
  CHECK_EQ(zkv_queue_inflight(q), (uint32_t)(10 - got));
  CHECK_EQ(zkv_queue_reap(q, c + got, 10 - got, 64, -1), 10 - got);
  for (int i = 0; i < 10; i++) {
    CHECK(c[i].tag >= 4000 && c[i].tag < 4010);
    sorted[i] = (uint64_t)c[i].result;
    expect_data(d, (uint64_t)c[i].result, LEN, c[i].tag);
  }
  qsort(sorted, 10, sizeof sorted[0], cmp_u64);
  for (int i = 0; i < 10; i++) CHECK_EQ(sorted[i], 2 * Z + i * LEN);
  zkv_queue_destroy(q);

  /* A small queue: -EBUSY exactly at its depth, room again after a reap. */
  q = zkv_queue_create(d, 4, &err);
  CHECK(q != NULL);
  for (int i = 0; i < 4; i++) {
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = 3, .buf = bufs + i * LEN, .len = LEN, .tag = (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  zkv_request r5 = {.op = ZKV_OP_APPEND, .zone = 3, .buf = bufs + 4 * LEN, .len = LEN, .tag = 4};
  CHECK_EQ(zkv_queue_submit(q, &r5), -EBUSY);
  CHECK_EQ(zkv_queue_reap(q, c, 1, 1, -1), 1);
  CHECK_EQ(zkv_queue_submit(q, &r5), 0);
  CHECK_EQ(zkv_queue_submit(q, &r5), -EBUSY);
  CHECK_EQ(zkv_queue_reap(q, c, 4, 4, -1), 4);
  expect_zone(d, 3, ZKV_ZONE_IMP_OPEN, 5 * LEN);
  /* Destroying a queue with requests in flight completes them. */
  for (int i = 0; i < 3; i++) {
    fill(bufs + i * LEN, LEN, 5000 + i);
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = 4, .buf = bufs + i * LEN, .len = LEN, .tag = (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  zkv_queue_destroy(q);
  expect_zone(d, 4, ZKV_ZONE_IMP_OPEN, 3 * LEN);
  for (int i = 0; i < 3; i++) expect_data(d, 4 * Z + i * LEN, LEN, 5000 + i);
  free(wb);
  free(bufs);
  free(rbufs);
  zkv_dev_close(d);
  printf("  asynchronous queue ok\n");
}

/* ---------- concurrency ---------- */

enum { THREADS = 4, PER_THREAD = 200, QTHREADS = 2, PER_QTHREAD = 300, QDEPTH = 16 };

typedef struct targ {
  zkv_dev *dev;
  uint32_t zone;
  int t;
  int64_t off[PER_QTHREAD];
  uint64_t id[PER_QTHREAD];
} targ;

static void *sync_appender(void *a) {
  targ *ta = a;
  uint8_t buf[4096];
  for (int i = 0; i < PER_THREAD; i++) {
    ta->id[i] = (uint64_t)(ta->t + 1) * 100000 + (uint64_t)i;
    fill(buf, sizeof buf, ta->id[i]);
    ta->off[i] = zkv_dev_append(ta->dev, ta->zone, buf, sizeof buf, 0);
  }
  return NULL;
}

static void *queue_appender(void *a) {
  targ *ta = a;
  int err = 0;
  zkv_queue *q = zkv_queue_create(ta->dev, QDEPTH, &err);
  if (!q) return (void *)1;
  uint8_t *bufs = malloc((size_t)PER_QTHREAD * 4096);
  if (!bufs) return (void *)1;
  int submitted = 0, done = 0;
  zkv_completion c[QDEPTH];
  while (done < PER_QTHREAD) {
    while (submitted < PER_QTHREAD && zkv_queue_inflight(q) < QDEPTH) {
      ta->id[submitted] = (uint64_t)(ta->t + 11) * 100000 + (uint64_t)submitted;
      fill(bufs + (size_t)submitted * 4096, 4096, ta->id[submitted]);
      zkv_request r = {.op = ZKV_OP_APPEND,
                       .zone = ta->zone,
                       .buf = bufs + (size_t)submitted * 4096,
                       .len = 4096,
                       .tag = (uint64_t)submitted};
      if (zkv_queue_submit(q, &r) != 0) return (void *)1;
      submitted++;
    }
    int n = zkv_queue_reap(q, c, 1, QDEPTH, -1);
    for (int i = 0; i < n; i++) ta->off[c[i].tag] = c[i].result;
    done += n;
  }
  zkv_queue_destroy(q);
  free(bufs);
  return NULL;
}

typedef struct off_id {
  uint64_t off, id;
} off_id;
static int cmp_off(const void *a, const void *b) {
  const off_id *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* All appends landed: unique, contiguous offsets from the zone start; each holds its data. */
static void check_appends(zkv_dev *d, uint32_t zone, targ *ta, int nthreads, int per) {
  int n = nthreads * per;
  off_id *all = malloc(sizeof *all * (size_t)n);
  CHECK(all != NULL);
  for (int t = 0; t < nthreads; t++)
    for (int i = 0; i < per; i++) {
      CHECK(ta[t].off[i] >= 0);
      all[t * per + i] = (off_id){(uint64_t)ta[t].off[i], ta[t].id[i]};
    }
  qsort(all, (size_t)n, sizeof *all, cmp_off);
  uint8_t *b = malloc((size_t)n * 4096);
  CHECK(b != NULL);
  CHECK_EQ(zkv_dev_read(d, (uint64_t)zone * 4 * MiB, b, (size_t)n * 4096), 0);
  for (int k = 0; k < n; k++) {
    CHECK_EQ(all[k].off, (uint64_t)zone * 4 * MiB + (uint64_t)k * 4096);
    CHECK(matches(b + (size_t)k * 4096, 4096, all[k].id));
  }
  expect_zone(d, zone, ZKV_ZONE_IMP_OPEN, (uint64_t)n * 4096);
  free(b);
  free(all);
}

/* Readers beside a writer on the instant profile, whose reads skip the device lock: a block the
 * writer has finished always reads back whole, any other reads as written or as zeros; a read
 * fault rule and a power cut still reach reads (they take the locked way then). */
#define RW_BLOCKS 256u
typedef struct rw_arg {
  zkv_dev *dev;
  _Atomic uint32_t *done; /* blocks written so far */
  _Atomic int *stop;
  uint64_t seed, zeros;
  _Atomic uint64_t checked;
} rw_arg;

static void *block_reader(void *p) {
  rw_arg *a = p;
  uint8_t *b = malloc(4096), *want = malloc(4096);
  CHECK(b && want);
  uint64_t s = a->seed;
  while (!atomic_load(a->stop)) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t done = atomic_load(a->done), blk = (uint32_t)((s >> 33) % RW_BLOCKS);
    CHECK_EQ(zkv_dev_read(a->dev, (uint64_t)blk * 4096, b, 4096), 0);
    fill(want, 4096, 1000 + blk);
    if (blk < done)
      CHECK(memcmp(b, want, 4096) == 0);
    else if (is_zero(b, 4096))
      a->zeros++;
    else
      CHECK(memcmp(b, want, 4096) == 0);
    atomic_fetch_add(&a->checked, 1);
  }
  free(b), free(want);
  return NULL;
}

static void test_reads_beside_writes(void) {
  zkv_geometry g = {
      .lba_size = 4096, .nr_zones = 2, .zone_size = RW_BLOCKS * 4096, .zone_cap = RW_BLOCKS * 4096, .zasl = 64 * KiB};
  const char *p = format("reads.dev", &g);
  zkv_dev *d = open_dev(p, "?profile=instant");
  _Atomic uint32_t done = 0;
  _Atomic int stop = 0;
  rw_arg ra[2] = {{.dev = d, .done = &done, .stop = &stop, .seed = 1},
                  {.dev = d, .done = &done, .stop = &stop, .seed = 2}};
  pthread_t th[2];
  for (int t = 0; t < 2; t++) CHECK_EQ(pthread_create(&th[t], NULL, block_reader, &ra[t]), 0);
  for (uint32_t blk = 0; blk < RW_BLOCKS; blk++) {
    CHECK_EQ(write_pat(d, (uint64_t)blk * 4096, 4096, 1000 + blk, 0), 0);
    atomic_store(&done, blk + 1);
    /* every reader reads a few times per block written, whatever the host's scheduling */
    for (int t = 0; t < 2; t++)
      while (atomic_load(&ra[t].checked) < 4ull * (blk + 1)) sched_yield();
  }
  atomic_store(&stop, 1);
  for (int t = 0; t < 2; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
  zkv_dev_stats st;
  CHECK_EQ(zkv_dev_stats_get(d, &st), 0);
  CHECK_EQ(st.reads, ra[0].checked + ra[1].checked);
  uint8_t b[4096];
  CHECK_EQ(zkv_emu_inject_error(d, ZKV_FAULT_READ, 0, 1, 1, -EIO), 0); /* skips one read, fails the next */
  CHECK_EQ(zkv_dev_read(d, 0, b, sizeof b), 0);
  CHECK_EQ(zkv_dev_read(d, 0, b, sizeof b), -EIO);
  CHECK_EQ(zkv_dev_read(d, 0, b, sizeof b), 0);
  CHECK_EQ(zkv_emu_set_zone_condition(d, 0, ZKV_ZONE_OFFLINE), 0);
  CHECK_EQ(zkv_dev_read(d, 0, b, sizeof b), ZE(ZONE_IS_OFFLINE));
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 1) >= 0);
  CHECK_EQ(zkv_dev_read(d, g.zone_size, b, sizeof b), -ENODEV);
  zkv_dev_close(d);
  printf("  reads beside a writer (%" PRIu64 " checked, %" PRIu64 " above the writer), faults and power cut ok\n",
         ra[0].checked + ra[1].checked, ra[0].zeros + ra[1].zeros);
}

/* A read racing a write of the same block sees the old block or the new one, never a mix (an LBA
 * is written atomically, as NVMe's AWUN guarantees at least one block): the reader reads the
 * block the writer is writing at that moment, over and over, and checks each result. The
 * emulator once made a block readable when the write began, before its bytes were in the backing
 * file, so a read could copy a half-written page (a torn block: 3 failures of test_emu in about
 * 280 loaded runs); this test found it in most runs. */
#define RACE_ZONES 4u
#define RACE_BLOCKS 512u
typedef struct race_arg {
  zkv_dev *dev;
  _Atomic uint64_t *writing; /* 1 + the device block being written, 0 before the first */
  _Atomic int *stop;
  uint64_t rounds;
  uint64_t reads, olds, news;
} race_arg;

/* Block b of round r: the fill pattern of its id, so a mix of two patterns shows. */
static uint64_t race_id(uint64_t block, uint64_t round) { return 1 + round * RACE_ZONES * RACE_BLOCKS + block; }

static void *racing_reader(void *p) {
  race_arg *a = p;
  uint8_t *b = malloc(4096), *want = malloc(4096);
  CHECK(b && want);
  while (!atomic_load(a->stop)) {
    uint64_t w = atomic_load(a->writing);
    if (!w) continue;
    uint64_t blk = (w - 1) % (RACE_ZONES * RACE_BLOCKS), round = (w - 1) / (RACE_ZONES * RACE_BLOCKS);
    CHECK_EQ(zkv_dev_read(a->dev, blk * 4096, b, 4096), 0);
    a->reads++;
    if (is_zero(b, 4096)) { /* not written yet in this round (a reset punched the old data) */
      a->olds++;
      continue;
    }
    /* this round's block, or a later round's if the writer came round again meanwhile */
    int whole = 0;
    for (uint64_t r = round; r < a->rounds && !whole; r++) {
      fill(want, 4096, race_id(blk, r));
      whole = memcmp(b, want, 4096) == 0;
    }
    if (!whole) fprintf(stderr, "torn read of block %" PRIu64 " (round %" PRIu64 ")\n", blk, round);
    CHECK(whole);
    a->news++;
  }
  free(b), free(want);
  return NULL;
}

static void test_read_write_race(void) {
  zkv_geometry g = {.lba_size = 4096,
                    .nr_zones = RACE_ZONES,
                    .zone_size = RACE_BLOCKS * 4096,
                    .zone_cap = RACE_BLOCKS * 4096,
                    .zasl = 64 * KiB};
  const char *p = format("race.dev", &g);
  zkv_dev *d = open_dev(p, "?profile=instant");
  _Atomic uint64_t writing = 0;
  _Atomic int stop = 0;
  const uint64_t rounds = 40;
  race_arg ra = {.dev = d, .writing = &writing, .stop = &stop, .rounds = rounds};
  pthread_t th;
  CHECK_EQ(pthread_create(&th, NULL, racing_reader, &ra), 0);
  uint8_t *buf = malloc(4096);
  CHECK(buf != NULL);
  for (uint64_t r = 0; r < rounds; r++)
    for (uint32_t z = 0; z < RACE_ZONES; z++) {
      if (r) CHECK_EQ(zkv_dev_zone_mgmt(d, z, ZKV_ZONE_RESET), 0);
      for (uint32_t k = 0; k < RACE_BLOCKS; k++) {
        uint64_t blk = (uint64_t)z * RACE_BLOCKS + k;
        fill(buf, 4096, race_id(blk, r));
        atomic_store(&writing, 1 + r * RACE_ZONES * RACE_BLOCKS + blk);
        CHECK_EQ(zkv_dev_write(d, blk * 4096, buf, 4096, 0), 0);
      }
    }
  atomic_store(&stop, 1);
  CHECK_EQ(pthread_join(th, NULL), 0);
  free(buf);
  zkv_dev_close(d);
  printf("  reads racing writes of the same block: %" PRIu64 " reads, %" PRIu64 " old, %" PRIu64 " new, none torn\n",
         ra.reads, ra.olds, ra.news);
}

static void test_threads(void) {
  zkv_geometry g = {.lba_size = 4096, .nr_zones = 2, .zone_size = 4 * MiB, .zone_cap = 4 * MiB, .zasl = 64 * KiB};
  const char *p = format("threads.dev", &g);
  zkv_dev *d = open_dev(p, NULL);
  static targ ta[THREADS];
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++) {
    ta[t] = (targ){.dev = d, .zone = 0, .t = t};
    CHECK_EQ(pthread_create(&th[t], NULL, sync_appender, &ta[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
  check_appends(d, 0, ta, THREADS, PER_THREAD);

  /* Several queues on one device, one per thread. */
  for (int t = 0; t < QTHREADS; t++) {
    ta[t] = (targ){.dev = d, .zone = 1, .t = t};
    CHECK_EQ(pthread_create(&th[t], NULL, queue_appender, &ta[t]), 0);
  }
  for (int t = 0; t < QTHREADS; t++) {
    void *ret = (void *)1;
    CHECK_EQ(pthread_join(th[t], &ret), 0);
    CHECK(ret == NULL);
  }
  check_appends(d, 1, ta, QTHREADS, PER_QTHREAD);
  zkv_dev_close(d);
  printf("  concurrent appends ok\n");
}

/* ---------- timing profile ---------- */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Appends of LEN bytes to `zone` through one queue in batches of QD (each batch submitted, then
 * reaped whole), so the set in flight at every submission, and with it the model's reordering,
 * does not depend on timing. Records each tag's offset and the completion order; checks the data. */
enum { QD = 8, BATCHES = 250, TOTAL = QD * BATCHES };
typedef struct qd_run {
  uint64_t offs[TOTAL];
  int completed[TOTAL];
  int offset_swaps;  /* appends given a lower offset than the one submitted just before them */
  int late_finishes; /* completions after a later-submitted append's */
  double us_per_append;
} qd_run;

static void run_batches(zkv_dev *d, uint32_t zone, size_t len, uint8_t *pool, qd_run *run) {
  int err = 0, done = 0, max_tag = -1;
  zkv_queue *q = zkv_queue_create(d, QD, &err);
  CHECK(q != NULL);
  memset(run, 0, sizeof *run);
  uint64_t t0 = now_ns();
  for (int b = 0; b < BATCHES; b++) {
    for (int i = b * QD; i < (b + 1) * QD; i++) {
      zkv_request r = {
          .op = ZKV_OP_APPEND, .zone = zone, .buf = pool + (size_t)i * len, .len = len, .tag = (uint64_t)i};
      CHECK_EQ(zkv_queue_submit(q, &r), 0);
    }
    zkv_completion c[QD];
    for (int got = 0; got < QD;) {
      int n = zkv_queue_reap(q, c, QD - got, QD - got, -1);
      CHECK(n >= 1);
      for (int i = 0; i < n; i++) {
        int tag = (int)c[i].tag;
        CHECK(tag >= b * QD && tag < (b + 1) * QD);
        CHECK(c[i].result >= 0);
        run->offs[tag] = (uint64_t)c[i].result;
        run->completed[done++] = tag;
        if (tag < max_tag) run->late_finishes++;
        if (tag > max_tag) max_tag = tag;
      }
      got += n;
    }
  }
  run->us_per_append = (double)(now_ns() - t0) / TOTAL / 1000.0;
  zkv_queue_destroy(q);
  zkv_geometry g;
  zkv_dev_geometry(d, &g);
  uint8_t *rb = malloc(len);
  uint64_t *sorted = malloc(sizeof *sorted * TOTAL);
  CHECK(rb != NULL && sorted != NULL);
  for (int i = 0; i < TOTAL; i++) {
    CHECK_EQ(zkv_dev_read(d, run->offs[i], rb, len), 0); /* each tag's data is at its offset */
    CHECK(memcmp(rb, pool + (size_t)i * len, len) == 0);
    if (i % QD && run->offs[i] < run->offs[i - 1]) run->offset_swaps++;
    sorted[i] = run->offs[i];
  }
  qsort(sorted, TOTAL, sizeof *sorted, cmp_u64); /* together the offsets tile the zone */
  for (int i = 0; i < TOTAL; i++) CHECK_EQ(sorted[i], zone * g.zone_size + (uint64_t)i * len);
  free(sorted);
  free(rb);
}

/* A queue of depth n with n appends of len bytes to zone submitted, from pool (tags 0..n-1). */
static zkv_queue *queue_of_appends(zkv_dev *d, uint32_t zone, uint8_t *pool, size_t len, int n) {
  int err = 0;
  zkv_queue *q = zkv_queue_create(d, (uint32_t)n, &err);
  CHECK(q != NULL);
  for (int i = 0; i < n; i++) {
    zkv_request r = {.op = ZKV_OP_APPEND, .zone = zone, .buf = pool + (size_t)i * len, .len = len, .tag = (uint64_t)i};
    CHECK_EQ(zkv_queue_submit(q, &r), 0);
  }
  return q;
}

static void test_zn540(void) {
  const uint64_t Z = 32 * MiB;
  const size_t LEN = 8 * KiB;
  zkv_geometry g = {.lba_size = 4096, .nr_zones = 2, .zone_size = Z, .zone_cap = Z, .zasl = 64 * KiB};
  const char *p = format("zn540.dev", &g);
  char opts[96];
  uint64_t seed = seed_base() | 1;
  snprintf(opts, sizeof opts, "?profile=zn540&seed=%" PRIu64, seed);
  zkv_dev *d = open_dev(p, opts);
  CHECK(strcmp(zkv_dev_profile_name(d), "zn540") == 0);

  /* QD1 append latency: never below the model (16.8 us less 19% jitter); how far above depends on
   * the host, so it is printed, not asserted (speed claims belong to `calibrate`). */
  uint8_t buf[8192];
  fill(buf, sizeof buf, 1);
  for (int i = 0; i < 20; i++) CHECK(zkv_dev_append(d, 0, buf, LEN, 0) >= 0);
  enum { QD1_N = 400 };
  uint64_t t0 = now_ns();
  for (int i = 0; i < QD1_N; i++) CHECK(zkv_dev_append(d, 0, buf, LEN, 0) >= 0);
  double avg_us = (double)(now_ns() - t0) / QD1_N / 1000.0;
  CHECK(avg_us >= 13.0);

  /* QD8 on the wall clock: the model reorders concurrent appends to a zone (on by default for
   * zn540): some get a lower offset than the append submitted before them (seeded draws among the
   * appends in flight, whatever the host's speed: asserted). Whether some also complete before an
   * earlier one depends on the host: the completion order follows the modelled latencies at the
   * queue depth each append met, and a host slower than the device (a cold or loaded machine)
   * meets QD1 at every submission, where the latencies' spread is below the spacing and nothing
   * overtakes. So it is printed here and asserted on the model's own clock below. */
  uint8_t *pool = malloc((size_t)TOTAL * LEN);
  qd_run *run = malloc(sizeof *run), *again = malloc(sizeof *again);
  CHECK(pool != NULL && run != NULL && again != NULL);
  for (int i = 0; i < TOTAL; i++) fill(pool + (size_t)i * LEN, LEN, 10000 + (uint64_t)i);
  run_batches(d, 1, LEN, pool, run);
  printf(
      "  zn540: QD1 8 KiB append %.1f us; QD8 (batches of 8) %.1f us per append; of %d appends %d got a lower offset "
      "than "
      "the one submitted before, %d completed after a later one\n",
      avg_us, run->us_per_append, TOTAL, run->offset_swaps, run->late_finishes);
  CHECK(run->offset_swaps > 0);
  zkv_dev_close(d);

  /* The same seed and the same request times give the same reordering: on the model's own clock
   * (clock=virtual) two runs match exactly. On the wall clock they match as far as the host's
   * timing does: the queue depth a request meets is what the device is still working on when it
   * arrives (docs/timing-model.md), and a host slower than the device finishes some appends of a
   * batch before it submits the rest. */
  char vopts[128];
  snprintf(vopts, sizeof vopts, "%s&clock=virtual", opts);
  for (int k = 0; k < 2; k++) {
    d = open_dev(p, vopts);
    CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_RESET), 0);
    run_batches(d, 1, LEN, pool, k ? again : run);
    zkv_dev_close(d);
  }
  CHECK(memcmp(run->offs, again->offs, sizeof run->offs) == 0);
  CHECK(memcmp(run->completed, again->completed, sizeof run->completed) == 0);
  CHECK(run->offset_swaps > 0 && run->late_finishes > 0); /* and the model reorders there too */

  /* reorder=0: offsets and completions in submission order. */
  snprintf(opts, sizeof opts, "?profile=zn540&reorder=0&seed=%" PRIu64, seed);
  d = open_dev(p, opts);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_RESET), 0);
  run_batches(d, 1, LEN, pool, run);
  for (int i = 0; i < TOTAL; i++) {
    CHECK_EQ(run->offs[i], Z + (uint64_t)i * LEN);
    CHECK_EQ(run->completed[i], i);
  }
  zkv_dev_close(d);

  /* Lateness: completions reaped 5 ms after their deadline were not waited for: counted, not late
   * (the host did not keep a waiting thread from them; ZWAL reaps its appends only when its window
   * needs room). */
  d = open_dev(p, opts);
  CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_RESET), 0);
  zkv_emu_lateness l0, l1;
  zkv_emu_lateness_get(&l0);
  zkv_queue *q = queue_of_appends(d, 1, pool, LEN, QD);
  usleep(5000);
  zkv_completion c[QD];
  CHECK_EQ(zkv_queue_reap(q, c, QD, QD, -1), QD);
  zkv_queue_destroy(q);
  zkv_emu_lateness_get(&l1);
  CHECK(l1.completions - l0.completions >= QD);
  CHECK_EQ(l1.late, l0.late);
  zkv_dev_close(d);

  /* reorder=1 makes a profile that does not reorder by default (instant) reorder too. */
  d = open_dev(p, "?reorder=1&seed=7");
  CHECK_EQ(zkv_dev_zone_mgmt(d, 1, ZKV_ZONE_RESET), 0);
  run_batches(d, 1, LEN, pool, run);
  CHECK(run->offset_swaps > 0 && run->late_finishes > 0);
  zkv_dev_close(d);
  free(again);
  free(run);
  free(pool);
}

/* A completed append is readable while appends still under way lie below it (appends end out of
 * order, and the emulator deals their offsets out of order too): each completion, as it is
 * reaped one at a time, reads back as written while the others are in flight. The emulator hid
 * every byte above the lowest write under way, so a ZWAL reader of a landed chunk got zeros. */
static void test_completed_append_readable_above_one_under_way(void) {
  enum { QD = 16 };
  const size_t LEN = 8 * KiB;
  zkv_geometry g = {.lba_size = 4096, .nr_zones = 2, .zone_size = 4 * MiB, .zone_cap = 4 * MiB, .zasl = 64 * KiB};
  const char *p = format("reorder-read.dev", &g);
  char opts[96];
  snprintf(opts, sizeof opts, "?profile=confzns&reorder=1&seed=%" PRIu64, seed_base());
  zkv_dev *d = open_dev(p, opts);
  uint8_t *pool = malloc(QD * LEN), *back = malloc(LEN);
  CHECK(pool && back);
  for (size_t i = 0; i < QD * LEN; i++) pool[i] = (uint8_t)(i * 131 + i / LEN * 7 + 1);
  zkv_queue *q = queue_of_appends(d, 1, pool, LEN, QD);
  for (int got = 0; got < QD; got++) {
    zkv_completion c;
    CHECK_EQ(zkv_queue_reap(q, &c, 1, 1, -1), 1);
    CHECK(c.result >= 0);
    CHECK_EQ(zkv_dev_read(d, (uint64_t)c.result, back, LEN), 0);
    CHECK(memcmp(back, pool + c.tag * LEN, LEN) == 0);
  }
  printf("  %d of %d completed appends read back while others were under way\n", QD - 1, QD);
  zkv_queue_destroy(q);
  zkv_dev_close(d);
  free(pool);
  free(back);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  CHECK(mkdtemp(tmpdir) != NULL);
  tmpdir_made = 1;
  atexit(cleanup);
  printf("  temporary directory %s, seed %" PRIu64 " (set ZKV_SEED to repeat)\n", tmpdir, seed_base());
  test_format();
  test_open_errors();
  test_busy();
  test_persistence();
  test_kill_during_updates();
  test_table_valid_at_every_instruction();
  test_discard();
  test_io();
  test_faults();
  test_zone_condition();
  test_power_cut();
  test_power_cut_during();
  test_power_cut_no_wcache();
  test_power_cut_random();
  test_queue();
  test_completed_append_readable_above_one_under_way();
  test_threads();
  test_reads_beside_writes();
  test_read_write_race();
  test_zn540();
  cleanup();
  TEST_DONE("test_emu");
  return 0;
}
