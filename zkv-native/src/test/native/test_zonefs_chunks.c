/* A WAL's chunks after its last record, as a mount recovers them (mount.c recover_chunks,
 * docs/formats/zone-fs.md "Mount" step 3): zone appends complete in any order, so the chunks are
 * placed by logical offset, not by where they landed; the file keeps the contiguous prefix that
 * continues what the log has. Each case writes a synced prefix through the file system, then
 * crafted chunks at the zone's write pointer in a seeded random physical order, some torn (data
 * not matching its checksum), some missing, some twice, and sometimes an undecodable block, then
 * loses power and mounts: the file must hold exactly the pieces a contiguous run of whole chunks
 * reaches, byte for byte. ZKV_SEED picks the seeds; each case prints its own. */
#include "zfs_fixture.h"
#include "zonefs_internal.h" /* the WAL's zone and write pointer */

#define MAX_PIECES 24

enum piece_kind { WHOLE, TORN, GARBAGE };

typedef struct placed {
  int piece; /* logical piece index (-1: an undecodable block) */
  int kind;
} placed;

/* Writes chunk `piece` (its data from the file's pattern) at `at`; a torn one has its data changed
 * after its checksum was taken. Returns the device bytes written. */
static uint64_t write_chunk(zkv_dev *d, uint64_t at, uint64_t file_id, uint64_t offset, uint32_t len, int kind,
                            uint64_t seed) {
  uint32_t block = GEO.lba_size;
  uint64_t phys = round_up(ZFS_CHUNK_HEADER + (uint64_t)len, block);
  uint8_t *buf = calloc(1, phys);
  CHECK(buf != NULL);
  if (kind == GARBAGE) {
    for (uint64_t i = 0; i < block; i++) buf[i] = (uint8_t)(0xA5 ^ i);
    CHECK_EQ(zkv_dev_write(d, at, buf, block, 0), 0);
    free(buf);
    return block;
  }
  fill(buf + ZFS_CHUNK_HEADER, seed, offset, len);
  zfs_chunk c = {
      .file_id = file_id, .offset = offset, .len = len, .data_crc = zfs_chunk_data_crc(buf + ZFS_CHUNK_HEADER, len)};
  zfs_chunk_encode(&c, buf);
  if (kind == TORN) buf[ZFS_CHUNK_HEADER + len / 2] ^= 0x5A;
  CHECK_EQ(zkv_dev_write(d, at, buf, phys, 0), 0);
  free(buf);
  return phys;
}

static void shuffle(placed *p, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(zkv_rng_next(&rng) % (uint64_t)(i + 1));
    placed t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

/* One case, from its seed. */
static void recover_case(uint64_t seed) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  const char *name = "/db/000031.log";
  zfs_file *f = zfs_create(fs, name, 2, &rc);
  CHECK(f != NULL);
  uint8_t first[3000];
  fill(first, seed, 0, sizeof first);
  CHECK_EQ(zfs_append(f, first, sizeof first), 0);
  CHECK_EQ(zfs_sync(f), 0); /* the synced prefix: one chunk, and the zone's record */
  uint64_t synced = sizeof first, id = f->f->m.id;
  CHECK(f->f->zone >= 0);
  uint64_t at = fs->zones[f->f->zone].wp;

  int n = 2 + (int)(zkv_rng_next(&rng) % (MAX_PIECES - 2));
  uint32_t len = (uint32_t)((1 + zkv_rng_next(&rng) % 3) * GEO.lba_size - ZFS_CHUNK_HEADER - zkv_rng_next(&rng) % 100);
  placed order[3 * MAX_PIECES];
  int m = 0;
  int missing = zkv_rng_next(&rng) % 3 == 0 ? (int)(zkv_rng_next(&rng) % (uint64_t)n) : -1;
  int torn = zkv_rng_next(&rng) % 3 == 0 ? (int)(zkv_rng_next(&rng) % (uint64_t)n) : -1;
  int torn_has_copy = torn >= 0 && zkv_rng_next(&rng) % 2;
  for (int i = 0; i < n; i++) {
    if (i == missing) continue;
    order[m++] = (placed){i, i == torn ? TORN : WHOLE};
    if (i == torn && torn_has_copy) order[m++] = (placed){i, WHOLE};
    if (zkv_rng_next(&rng) % 6 == 0) order[m++] = (placed){i, WHOLE}; /* an append retried: twice */
  }
  shuffle(order, m);
  int garbage_at = zkv_rng_next(&rng) % 4 == 0 ? (int)(zkv_rng_next(&rng) % (uint64_t)(m + 1)) : -1;
  /* What the scan sees: everything physically before the first undecodable block. */
  int whole[MAX_PIECES] = {0};
  for (int i = 0; i < m; i++) {
    if (i == garbage_at) break;
    if (order[i].kind == WHOLE) whole[order[i].piece] = 1;
  }
  int kept = 0;
  while (kept < n && whole[kept]) kept++;
  for (int i = 0; i <= m; i++) {
    if (i == garbage_at) at += write_chunk(d, at, id, 0, 0, GARBAGE, seed);
    if (i < m) at += write_chunk(d, at, id, synced + (uint64_t)order[i].piece * len, len, order[i].kind, seed);
  }
  printf("  seed %llu: %d pieces of %u bytes, %d placed, missing %d, torn %d%s, garbage at %d: keeps %d\n",
         (unsigned long long)seed, n, len, m, missing, torn, torn_has_copy ? " (with a whole copy)" : "", garbage_at,
         kept);

  CHECK(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, seed) >= 0); /* the writer never closes */
  zfs_close(f);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  check_file(fs, name, seed, synced + (uint64_t)kept * len);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A long WAL read back: many chunk extents, found by binary search (the extent index) whatever
 * the read's size or place; the same after GC would rebuild the index (test_zonefs_gc.c). */
static void test_many_chunks_read_anywhere(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  int rc = 0;
  zfs_file *f = zfs_create(fs, "/db/000041.log", 2, &rc);
  CHECK(f != NULL);
  uint8_t buf[1000];
  enum { SYNCS = 1500 };
  for (int i = 0; i < SYNCS; i++) {
    fill(buf, 77, (uint64_t)i * sizeof buf, sizeof buf);
    CHECK_EQ(zfs_append(f, buf, sizeof buf), 0);
    CHECK_EQ(zfs_sync(f), 0);
  }
  CHECK(f->f->m.n_extents >= SYNCS);
  check_file(fs, "/db/000041.log", 77, (uint64_t)SYNCS * sizeof buf);
  /* chunks one after another are read together: one device read per run of up to 64 */
  zkv_dev_stats before, after;
  zkv_dev_stats_get(d, &before);
  uint8_t *all = malloc((size_t)SYNCS * sizeof buf), *want = malloc((size_t)SYNCS * sizeof buf);
  CHECK_EQ(zfs_pread(f, 0, all, (size_t)SYNCS * sizeof buf), (int64_t)(SYNCS * sizeof buf));
  zkv_dev_stats_get(d, &after);
  fill(want, 77, 0, (size_t)SYNCS * sizeof buf);
  CHECK(memcmp(all, want, (size_t)SYNCS * sizeof buf) == 0);
  printf("  %d chunks read back in %llu device reads\n", SYNCS, (unsigned long long)(after.reads - before.reads));
  CHECK(after.reads - before.reads <= SYNCS / 64 + 4);
  free(all);
  free(want);
  /* a crash: the mount finds the chunks by scanning, reading ahead (1 MiB at a time) */
  CHECK(zkv_emu_power_cut(d, ZKV_CUT_DROP_ALL, 41) >= 0);
  zfs_close(f);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d); /* the index rebuilt at mount */
  zfs_stats s;
  zfs_stats_get(fs, &s);
  printf("  mount scan: %llu chunks, %llu bytes, %llu device reads, %.1f ms\n", (unsigned long long)s.mount_chunks,
         (unsigned long long)s.mount_chunk_bytes, (unsigned long long)s.mount_chunk_reads, s.mount_chunk_scan_ns / 1e6);
  /* those after the last record: the WAL's zone before it is listed by the record of its switch */
  CHECK(s.mount_chunks > 0 && s.mount_chunks <= SYNCS);
  CHECK_EQ(s.mount_chunk_bytes, s.mount_chunks * sizeof buf);
  CHECK(s.mount_chunk_reads <= s.mount_chunks * GEO.lba_size / (1u << 20) + 2); /* one per chunk before */
  check_file(fs, "/db/000041.log", 77, (uint64_t)SYNCS * sizeof buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* The WAL buffer (zfs_set_wal_buffer): the device bytes of one write-out, chunk header included;
 * a WAL created afterwards writes a chunk each time that much has gathered, other files keep
 * their 1 MiB buffer. Out of range (not a block multiple, under a block, over 1 MiB) is refused. */
static void test_wal_buffer_sets_the_chunk_size(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  CHECK_EQ(zfs_wal_buffer(fs), 1u << 20);
  uint32_t bad[] = {0, GEO.lba_size - 1, GEO.lba_size + 512, (1u << 20) + GEO.lba_size, 2u << 20};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK_EQ(zfs_set_wal_buffer(fs, bad[i]), -EINVAL);
  CHECK_EQ(zfs_set_wal_buffer(fs, 2 * GEO.lba_size), 0);
  CHECK_EQ(zfs_wal_buffer(fs), 2 * GEO.lba_size);
  int rc = 0;
  zfs_file *wal = zfs_create(fs, "/db/000051.log", 2, &rc), *sst = zfs_create(fs, "/db/000052.sst", 2, &rc);
  CHECK(wal != NULL && sst != NULL);
  enum { TOTAL = 50000 };
  uint8_t *buf = malloc(TOTAL);
  fill(buf, 81, 0, TOTAL);
  CHECK_EQ(zfs_append(wal, buf, TOTAL), 0);
  CHECK_EQ(zfs_append(sst, buf, TOTAL), 0);
  uint64_t per_chunk = 2 * GEO.lba_size - ZFS_CHUNK_HEADER;
  CHECK_EQ(wal->f->m.size, TOTAL / per_chunk * per_chunk); /* written out chunk by chunk */
  CHECK_EQ(wal->f->m.n_extents, TOTAL / per_chunk);        /* one extent per chunk */
  CHECK_EQ(sst->f->m.size, 0u);                            /* 50,000 bytes stay in its 1 MiB buffer */
  CHECK_EQ(zfs_sync(wal), 0);
  CHECK_EQ(zfs_close(wal), 0);
  CHECK_EQ(zfs_close(sst), 0);
  check_file(fs, "/db/000051.log", 81, TOTAL);
  check_file(fs, "/db/000052.sst", 81, TOTAL);
  free(buf);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* A fresh file system on a device that completes appends out of order (reorder=1, seeded) and
 * caches writes: confzns's latencies for a third of the seeds make appends overtake each other by
 * many (a slow one with dozens landed after it); the instant profile reorders only what is in
 * flight together. */
static zfs *reordering_mount(uint64_t seed, zkv_dev **d) {
  char options[96];
  snprintf(options, sizeof options, "?reorder=1&seed=%llu&wcache=1%s", (unsigned long long)seed,
           seed % 3 == 0 ? "&profile=confzns" : "");
  fresh(options);
  *d = open_dev();
  return mount_ok(*d);
}

/* The file holds exactly the pattern up to `size`, fsck finds nothing; then unmounts and closes. */
static void check_and_unmount(zfs *fs, zkv_dev *d, const char *name, uint64_t seed, uint64_t size) {
  check_file(fs, name, seed, size);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* Ends the writer by a power cut (every cached write kept, lost or torn; seeded) or a clean close,
 * then opens the device again and mounts it: the file system after. */
static zfs *cut_or_close_and_remount(zkv_dev **d, zfs *fs, zfs_file *f, int crash, uint64_t seed) {
  if (crash) {
    CHECK(zkv_emu_power_cut(*d, ZKV_CUT_RANDOM, seed) >= 0);
    zfs_close(f); /* whatever it returns, the device keeps nothing written after the cut */
  } else {
    CHECK_EQ(zfs_close(f), 0);
  }
  zfs_unmount(fs);
  zkv_dev_close(*d);
  *d = open_dev();
  return mount_ok(*d);
}

/* ZWAL (zwal.c): a WAL written by zone appends on a device that completes them out of order
 * (reorder=1, seeded), at a seeded buffer, queue depth and barrier, across zones. Reads of the
 * file while appends are in flight see exactly what was appended; a clean close and remount keeps
 * it all; a power cut (every unflushed write kept, lost or torn) keeps at least every synced byte
 * and nothing that was never written. */
static void zwal_case(uint64_t seed, int crash) {
  zkv_dev *d = NULL;
  zfs *fs = reordering_mount(seed, &d);
  uint32_t buffers[] = {4096, 8192, 65536, 1u << 20};
  uint32_t buffer = buffers[zkv_rng_next(&rng) % 4], depth = 1 + (uint32_t)(zkv_rng_next(&rng) % 32);
  if (seed % 3 == 0) buffer = 4096, depth = 32; /* RocksDB's 4 KB records, one chunk each: long overtakes */
  uint64_t barriers[] = {0, 4 * (uint64_t)GEO.lba_size, 64 << 10};
  uint64_t barrier = barriers[zkv_rng_next(&rng) % 3];
  CHECK_EQ(zfs_set_wal_buffer(fs, buffer), 0);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, depth, barrier), 0);
  int rc = 0;
  const char *name = "/db/000061.log";
  zfs_file *f = zfs_create(fs, name, 2, &rc);
  CHECK(f != NULL && f->f->zw != NULL);
  uint64_t total = (seed % 3 == 0 ? 8u << 20 : 2u << 20) + zkv_rng_next(&rng) % (6u << 20), done = 0, synced = 0;
  uint8_t *buf = malloc(20000), *back = malloc(20000);
  /* rare syncs: the 1 MiB write buffer fills with appends in flight (zwal_make_room) */
  uint64_t sync_every = zkv_rng_next(&rng) % 2 ? 8 : 1024;
  while (done < total) {
    size_t n = seed % 3 == 0 ? 4000 : 1 + (size_t)(zkv_rng_next(&rng) % 20000);
    if (n > total - done) n = (size_t)(total - done);
    fill(buf, seed, done, n);
    CHECK_EQ(zfs_append(f, buf, n), 0);
    done += n;
    if (zkv_rng_next(&rng) % sync_every == 0) {
      CHECK_EQ(zfs_sync(f), 0);
      synced = done;
    }
    if (zkv_rng_next(&rng) % 16 == 0) { /* anywhere: extents, landed ahead, in flight, buffered */
      uint64_t from = zkv_rng_next(&rng) % done, n = 1 + zkv_rng_next(&rng) % 20000;
      if (n > done - from) n = done - from;
      CHECK_EQ(zfs_pread(f, from, back, (size_t)n), (int64_t)n);
      fill(buf, seed, from, (size_t)n);
      CHECK(memcmp(back, buf, (size_t)n) == 0);
    }
    if (zkv_rng_next(&rng) % 16 == 0) { /* the tail, some of it in flight */
      uint64_t from = done > 20000 ? done - 20000 : 0;
      CHECK_EQ(zfs_pread(f, from, back, (size_t)(done - from)), (int64_t)(done - from));
      fill(buf, seed, from, (size_t)(done - from));
      CHECK(memcmp(back, buf, (size_t)(done - from)) == 0);
    }
  }
  CHECK_EQ(zfs_file_size(f), total);
  printf("  seed %llu: ZWAL buffer %u, depth %u, barrier %llu, %llu bytes (%llu synced, 1 in %llu appends), %s\n",
         (unsigned long long)seed, buffer, depth, (unsigned long long)barrier, (unsigned long long)total,
         (unsigned long long)synced, (unsigned long long)sync_every, crash ? "power cut" : "closed");
  fs = cut_or_close_and_remount(&d, fs, f, crash, seed);
  zfs_file *r = zfs_open(fs, name, &rc);
  CHECK(r != NULL);
  uint64_t size = zfs_file_size(r);
  CHECK(size >= (crash ? synced : total) && size <= total);
  /* read as RocksDB's replay reads it, 32 KiB at a time: through the handle's read-ahead window,
   * a device read per window rather than per chunk (the appends' order scatters the chunks) */
  enum { PIECE = 32 << 10 };
  uint8_t *piece = malloc(PIECE), *want = malloc(PIECE);
  zkv_dev_stats before, after;
  zkv_dev_stats_get(d, &before);
  for (uint64_t at = 0; at < size; at += PIECE) {
    size_t n = size - at < PIECE ? (size_t)(size - at) : PIECE;
    CHECK_EQ(zfs_pread(r, at, piece, n), (int64_t)n);
    fill(want, seed, at, n);
    CHECK(memcmp(piece, want, n) == 0);
  }
  zkv_dev_stats_get(d, &after);
  uint64_t chunks = size / buffer + 1;
  uint64_t read = after.bytes_read - before.bytes_read;
  printf("    read back in 32 KiB pieces: %llu device reads of %llu bytes for ~%llu chunks\n",
         (unsigned long long)(after.reads - before.reads), (unsigned long long)read, (unsigned long long)chunks);
  CHECK(after.reads - before.reads <= size / (256 << 10) + 8);
  /* each chunk read about once: its block padding, and a window's edge read again by the next */
  CHECK(read <= size + size / 4 + (4u << 20));
  free(piece);
  free(want);
  CHECK_EQ(zfs_close(r), 0);
  free(buf);
  free(back);
  check_and_unmount(fs, d, name, seed, size);
}

/* Write-behind (zwal.c): an SST's write-outs of half the write buffer stay in flight, one at a
 * time, while the writer goes on; reads during the writes see every byte appended; a sync waits
 * for the one in flight; a power cut keeps every synced byte, a close all. Off, the file writes
 * synchronously (no queue). Reordering device, seeded; confzns's latencies for a third of them. */
static void write_behind_case(uint64_t seed, int crash) {
  zkv_dev *d = NULL;
  zfs *fs = reordering_mount(seed, &d);
  int rc = 0;
  CHECK_EQ(zfs_set_write_behind(fs, 0), 0);
  zfs_file *off = zfs_create(fs, "/db/000060.sst", 2, &rc);
  CHECK(off != NULL && off->f->zw == NULL);
  CHECK_EQ(zfs_close(off), 0);
  CHECK_EQ(zfs_set_write_behind(fs, 1), 0);
  zfs_file *other = zfs_create(fs, "/db/MANIFEST-000001", 2, &rc); /* only SSTs write behind */
  CHECK(other != NULL && other->f->zw == NULL);
  CHECK_EQ(zfs_close(other), 0);
  const char *name = "/db/000061.sst";
  zfs_file *f = zfs_create(fs, name, 2, &rc);
  CHECK(f != NULL && f->f->zw != NULL);
  uint64_t total = (2u << 20) + zkv_rng_next(&rng) % (7u << 20), done = 0, synced = 0, since_sync = 0;
  uint64_t sync_every = zkv_rng_next(&rng) % 2 ? 4 : 64, behind = 0;
  uint8_t *buf = malloc(200000), *back = malloc(200000);
  while (done < total) {
    size_t n = 1 + (size_t)(zkv_rng_next(&rng) % 200000);
    if (n > total - done) n = (size_t)(total - done);
    fill(buf, seed, done, n);
    CHECK_EQ(zfs_append(f, buf, n), 0);
    done += n;
    uint32_t in_flight = zwal_in_flight(f->f);
    CHECK(in_flight <= 1);
    /* a write-out submitted in this call is still in flight: only the writer reaps it */
    if ((since_sync + n) / WRITE_BEHIND_CHUNK > since_sync / WRITE_BEHIND_CHUNK) CHECK_EQ(in_flight, 1u);
    behind += in_flight;
    since_sync += n;
    /* no sync before two write-outs' worth: every seed has appends return with one in flight */
    if (done > 2 * WRITE_BEHIND_CHUNK && zkv_rng_next(&rng) % sync_every == 0) {
      CHECK_EQ(zfs_sync(f), 0);
      CHECK_EQ(zwal_in_flight(f->f), 0u);
      synced = done;
      since_sync = 0;
    }
    if (zkv_rng_next(&rng) % 4 == 0) { /* anywhere: extents, in flight, buffered */
      uint64_t from = zkv_rng_next(&rng) % done, len = 1 + zkv_rng_next(&rng) % 200000;
      if (len > done - from) len = done - from;
      CHECK_EQ(zfs_pread(f, from, back, (size_t)len), (int64_t)len);
      fill(buf, seed, from, (size_t)len);
      CHECK(memcmp(back, buf, (size_t)len) == 0);
    }
  }
  CHECK_EQ(zfs_file_size(f), total);
  printf(
      "  seed %llu: SST written behind, %llu bytes (%llu synced, 1 in %llu appends; %llu appends returned with a "
      "write-out in flight), %s\n",
      (unsigned long long)seed, (unsigned long long)total, (unsigned long long)synced, (unsigned long long)sync_every,
      (unsigned long long)behind, crash ? "power cut" : "closed");
  CHECK(behind > 0);
  fs = cut_or_close_and_remount(&d, fs, f, crash, seed);
  zfs_file *r = zfs_open(fs, name, &rc);
  CHECK(r != NULL);
  uint64_t size = zfs_file_size(r);
  CHECK(size >= (crash ? synced : total) && size <= total);
  CHECK_EQ(zfs_close(r), 0);
  free(buf);
  free(back);
  check_and_unmount(fs, d, name, seed, size);
}

/* ZWAL WALs left alone with appends in flight (RocksDB need not call a WAL again before another
 * file wants a zone) do not keep their zones from a writer that needs one: with every open token
 * held by such a WAL, the writer reaps one WAL's appends for it, then takes its zone (it hung:
 * every owner busy, nobody to end the appends). Bounded: a hang fails the test (SIGALRM). */
static void test_idle_zwal_gives_its_zone_up(void) {
  fresh("?reorder=1");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  CHECK_EQ(zfs_set_wal_buffer(fs, 4096), 0);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 8, 0), 0);
  alarm(120);
  zfs_file *wal[8];
  uint8_t buf[8192];
  int n = 0, rc = 0;
  zfs_stats s;
  /* WALs until every open token is held by one with appends in flight */
  for (zfs_stats_get(fs, &s); n < 8 && (n == 0 || s.owned_zones == (uint32_t)n); zfs_stats_get(fs, &s)) {
    char name[32];
    snprintf(name, sizeof name, "/db/%06d.log", 80 + n);
    CHECK((wal[n] = zfs_create(fs, name, 2, &rc)) != NULL);
    fill(buf, 180 + (uint64_t)n, 0, sizeof buf);
    CHECK_EQ(zfs_append(wal[n], buf, sizeof buf), 0); /* two 4 KiB write-outs submitted, not waited for */
    n++;
  }
  CHECK(n >= 2 && n < 8); /* the last WAL got no zone of its own: it reaped another's first */
  zfs_file *sst = zfs_create(fs, "/db/000070.sst", 2, &rc);
  CHECK(sst != NULL);
  fill(buf, 170, 0, sizeof buf);
  CHECK_EQ(zfs_append(sst, buf, sizeof buf), 0);
  CHECK_EQ(zfs_close(sst), 0); /* its write-out needs a zone */
  alarm(0);
  zfs_stats_get(fs, &s);
  CHECK(s.zwal_idle_reaps >= 2);
  CHECK(s.zone_steals >= 2);
  CHECK(s.wal_zone_finishes >= 2); /* WAL zones apart: the tokens came free, the zones went to nobody */
  for (int i = 0; i < n; i++) CHECK_EQ(zfs_close(wal[i]), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  d = open_dev();
  fs = mount_ok(d);
  for (int i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "/db/%06d.log", 80 + i);
    check_file(fs, name, 180 + (uint64_t)i, sizeof buf);
  }
  check_file(fs, "/db/000070.sst", 170, sizeof buf);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* The zones each of the named files has extents in, as bits. */
typedef struct zone_bits {
  const char *names[3];
  uint32_t bits[3];
} zone_bits;

static void collect_zone_bits(const zfs_file_meta *m, void *arg) {
  zone_bits *b = arg;
  for (int i = 0; i < 3; i++)
    if (b->names[i] && strcmp(m->names[0], b->names[i]) == 0)
      for (uint32_t k = 0; k < m->n_extents; k++) b->bits[i] |= 1u << (m->extents[k].start / GEO.zone_size);
}

static zone_bits zones_of(zfs *fs, const char *a, const char *b, const char *c) {
  zone_bits z = {{a, b, c}, {0, 0, 0}};
  CHECK_EQ(zfs_walk_files(fs, collect_zone_bits, &z), 0);
  return z;
}

static void write_synced(zfs_file *f, uint64_t seed, size_t n) {
  uint8_t *buf = malloc(n);
  CHECK(buf != NULL);
  fill(buf, seed, 0, n);
  CHECK_EQ(zfs_append(f, buf, n), 0);
  CHECK_EQ(zfs_sync(f), 0);
  free(buf);
}

/* WAL zones apart (zone_alloc.c, docs/wal.md "WAL zones"): in ZWAL mode a WAL that gives its zone
 * up partly written (here: closes) finishes it, so no other file continues it, and the WAL's
 * delete resets it without copying; a zone a mount finds holding only a WAL's data takes no other
 * file's, even where the placement policy says so (here it picks the partly written zone of a
 * longer lifetime, as LIZA would: the file system overrides it). The FILE mode (ZenFS's) lets the
 * next file continue the WAL's zone, as the policy says. */
static void wal_zones_case(int zwal) {
  fresh("?reorder=1");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  tp_install(fs, &GEO);
  tp_set_gc_level(fs, 0);
  if (zwal) CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 8, 0), 0);
  CHECK_EQ(zfs_set_wal_buffer(fs, 8192), 0);
  int rc = 0;
  zfs_file *wal = zfs_create(fs, "/db/000090.log", 3, &rc);
  CHECK(wal != NULL);
  write_synced(wal, 190, 64 << 10);
  CHECK_EQ(zfs_close(wal), 0);
  zfs_file *sst = zfs_create(fs, "/db/000091.sst", 2, &rc);
  CHECK(sst != NULL);
  write_synced(sst, 191, 64 << 10);
  CHECK_EQ(zfs_close(sst), 0);
  zone_bits z = zones_of(fs, "/db/000090.log", "/db/000091.sst", NULL);
  zfs_stats s;
  zfs_stats_get(fs, &s);
  printf("  %s: WAL zones %#x, SST zones %#x, WAL zones finished %llu\n", zwal ? "ZWAL" : "FILE", z.bits[0], z.bits[1],
         (unsigned long long)s.wal_zone_finishes);
  CHECK(z.bits[0] != 0 && z.bits[1] != 0);
  if (!zwal) { /* ZenFS's: the policy's choice stands */
    CHECK(z.bits[0] & z.bits[1]);
    CHECK_EQ(s.wal_zone_finishes, 0);
    zfs_unmount(fs);
    zkv_dev_close(d);
    return;
  }
  CHECK_EQ(z.bits[0] & z.bits[1], 0);
  CHECK_EQ(s.wal_zone_finishes, 1);
  uint32_t wal_zone = (uint32_t)__builtin_ctz(z.bits[0]);
  CHECK_EQ(fs->zones[wal_zone].wp, fs->zones[wal_zone].start + GEO.zone_cap); /* finished */
  zfs_file *next = zfs_create(fs, "/db/000092.log", 3, &rc);
  CHECK(next != NULL);
  write_synced(next, 192, 64 << 10);
  z = zones_of(fs, "/db/000090.log", "/db/000092.log", NULL);
  CHECK_EQ(z.bits[0] & z.bits[1], 0);
  uint64_t resets = s.resets_without_copy;
  CHECK_EQ(zfs_delete(fs, "/db/000090.log"), 0);
  zfs_stats_get(fs, &s);
  CHECK_EQ(s.resets_without_copy, resets + 1);
  CHECK_EQ(fs->zones[wal_zone].wp, fs->zones[wal_zone].start);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_FILE, 0, 0), 0); /* its zone left partly written */
  CHECK_EQ(zfs_close(next), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
  /* A mount knows the zone as the WAL's from its data alone. */
  d = open_dev();
  fs = mount_ok(d);
  tp_install(fs, &GEO);
  tp_set_gc_level(fs, 0);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 8, 0), 0);
  zfs_file *sst2 = zfs_create(fs, "/db/000093.sst", 2, &rc);
  CHECK(sst2 != NULL);
  write_synced(sst2, 194, 64 << 10);
  CHECK_EQ(zfs_close(sst2), 0);
  z = zones_of(fs, "/db/000092.log", "/db/000093.sst", NULL);
  zfs_stats_get(fs, &s);
  printf("  after a mount: WAL zones %#x, SST zones %#x, class overrides %llu\n", z.bits[0], z.bits[1],
         (unsigned long long)s.overrides[ZFS_OVERRIDE_CLASS]);
  CHECK(fs->zones[__builtin_ctz(z.bits[0])].wp < fs->zones[__builtin_ctz(z.bits[0])].start + GEO.zone_cap);
  CHECK_EQ(z.bits[0] & z.bits[1], 0);
  CHECK(s.overrides[ZFS_OVERRIDE_CLASS] >= 1);
  check_file(fs, "/db/000092.log", 192, 64 << 10);
  check_file(fs, "/db/000093.sst", 194, 64 << 10);
  CHECK_EQ(zfs_check(fs, print_problem, NULL), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

/* ZWAL is refused where it cannot run, and out of range. */
static void test_zwal_settings_refused(void) {
  fresh("");
  zkv_dev *d = open_dev();
  zfs *fs = mount_ok(d);
  CHECK_EQ(zfs_set_wal_mode(fs, 7, 8, 0), -EINVAL);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 0, 0), -EINVAL);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 65, 0), -EINVAL);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 8, 1000), -EINVAL);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 8, GEO.zone_cap + GEO.lba_size), -EINVAL);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 8, GEO.lba_size), 0); /* one block: every chunk waited for */
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_ZWAL, 32, GEO.zone_cap), 0);
  CHECK_EQ(zfs_set_wal_mode(fs, ZFS_WAL_FILE, 0, 0), 0);
  zfs_unmount(fs);
  zkv_dev_close(d);
}

int main(void) {
  make_temp_dir();
  printf("test_zonefs_chunks seed=%llu\n", (unsigned long long)rng);
  for (int i = 0; i < 60; i++) recover_case(zkv_rng_next(&rng) % 1000000);
  test_many_chunks_read_anywhere();
  test_wal_buffer_sets_the_chunk_size();
  test_zwal_settings_refused();
  test_idle_zwal_gives_its_zone_up();
  wal_zones_case(0);
  wal_zones_case(1);
  for (int i = 0; i < 24; i++) zwal_case(zkv_rng_next(&rng) % 1000000, i % 2);
  for (int i = 0; i < 12; i++) write_behind_case(zkv_rng_next(&rng) % 1000000, i % 2);
  remove_temp_dir();
  TEST_DONE("test_zonefs_chunks");
  return 0;
}
