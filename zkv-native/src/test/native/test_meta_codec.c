/* The metadata codec: round trips, torn tails, and corrupted input that must fail cleanly. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/timing.h"
#include "meta_codec.h"
#include "test_util.h"

static uint64_t rng;

static zfs_file_meta random_file(void) {
  zfs_file_meta f = {0};
  f.id = zkv_rng_next(&rng) % 100000;
  f.lifetime = (uint32_t)(zkv_rng_next(&rng) % 6);
  f.mtime = zkv_rng_next(&rng);
  f.active_extent_start = zkv_rng_next(&rng) % 2 ? ZFS_NO_ACTIVE_EXTENT : zkv_rng_next(&rng) % (1ull << 40);
  f.n_names = 1 + (uint32_t)(zkv_rng_next(&rng) % 3);
  f.names = calloc(f.n_names, sizeof *f.names);
  for (uint32_t i = 0; i < f.n_names; i++) {
    f.names[i] = malloc(64);
    snprintf(f.names[i], 64, "/db/%06llu.sst", (unsigned long long)(zkv_rng_next(&rng) % 999999));
  }
  f.n_extents = (uint32_t)(zkv_rng_next(&rng) % 5);
  f.extents = f.n_extents ? calloc(f.n_extents, sizeof *f.extents) : NULL;
  uint64_t total = 0;
  for (uint32_t i = 0; i < f.n_extents; i++) {
    f.extents[i].start = (zkv_rng_next(&rng) % (1ull << 30)) * 4096;
    f.extents[i].len = 4096 * (1 + zkv_rng_next(&rng) % 100);
    total += f.extents[i].len;
  }
  f.size = total ? zkv_rng_next(&rng) % (total + 1) : 0;
  return f;
}

static void same_file(const zfs_file_meta *a, const zfs_file_meta *b) {
  CHECK_EQ(a->id, b->id);
  CHECK_EQ(a->size, b->size);
  CHECK_EQ(a->mtime, b->mtime);
  CHECK_EQ(a->active_extent_start, b->active_extent_start);
  CHECK_EQ(a->lifetime, b->lifetime);
  CHECK_EQ(a->n_names, b->n_names);
  for (uint32_t i = 0; i < a->n_names; i++) CHECK(strcmp(a->names[i], b->names[i]) == 0);
  CHECK_EQ(a->n_extents, b->n_extents);
  for (uint32_t i = 0; i < a->n_extents; i++) {
    CHECK_EQ(a->extents[i].start, b->extents[i].start);
    CHECK_EQ(a->extents[i].len, b->extents[i].len);
  }
}

static void test_superblock(void) {
  zfs_superblock sb = {.version = ZFS_FORMAT_VERSION,
                       .sequence = 7,
                       .block_size = 4096,
                       .nr_zones = 64,
                       .zone_size = 64 << 20,
                       .zone_cap = 48 << 20,
                       .meta_zones = 3,
                       .finish_threshold = 10};
  memcpy(sb.uuid, "0123456789abcdef", 16);
  uint8_t buf[ZFS_SUPERBLOCK_SIZE];
  CHECK_EQ(zfs_superblock_encode(&sb, buf, sizeof buf), ZFS_SUPERBLOCK_SIZE);
  zfs_superblock out;
  char err[256];
  CHECK_EQ(zfs_superblock_decode(buf, sizeof buf, &out, err, sizeof err), ZFS_SUPERBLOCK_SIZE);
  CHECK(memcmp(&sb, &out, sizeof sb) == 0);
  CHECK_EQ(zfs_superblock_decode(buf, 100, &out, err, sizeof err), ZFS_TORN);
  uint8_t zeros[ZFS_SUPERBLOCK_SIZE] = {0};
  CHECK_EQ(zfs_superblock_decode(zeros, sizeof zeros, &out, err, sizeof err), ZFS_EMPTY);
  /* every single-byte corruption is detected */
  for (size_t i = 0; i < ZFS_SUPERBLOCK_SIZE; i += 7) {
    buf[i] ^= 0x5A;
    int rc = zfs_superblock_decode(buf, sizeof buf, &out, err, sizeof err);
    CHECK(rc == ZFS_CORRUPT);
    CHECK(err[0] != 0);
    buf[i] ^= 0x5A;
  }
  /* a newer version is refused by name; the older version 1 is read */
  sb.version = ZFS_FORMAT_VERSION + 1;
  zfs_superblock_encode(&sb, buf, sizeof buf);
  CHECK_EQ(zfs_superblock_decode(buf, sizeof buf, &out, err, sizeof err), ZFS_UNSUPPORTED);
  char newer[32];
  snprintf(newer, sizeof newer, "version %u;", ZFS_FORMAT_VERSION + 1);
  CHECK(strstr(err, newer) != NULL);
  sb.version = 0;
  zfs_superblock_encode(&sb, buf, sizeof buf);
  CHECK_EQ(zfs_superblock_decode(buf, sizeof buf, &out, err, sizeof err), ZFS_UNSUPPORTED);
  sb.version = 1;
  zfs_superblock_encode(&sb, buf, sizeof buf);
  CHECK(zfs_superblock_decode(buf, sizeof buf, &out, err, sizeof err) > 0);
  CHECK_EQ(out.version, 1);
  /* inconsistent fields with a valid checksum */
  sb.version = ZFS_FORMAT_VERSION;
  sb.zone_cap = sb.zone_size + 4096;
  zfs_superblock_encode(&sb, buf, sizeof buf);
  CHECK_EQ(zfs_superblock_decode(buf, sizeof buf, &out, err, sizeof err), ZFS_CORRUPT);
}

static void test_records_and_files(void) {
  uint8_t payload[65536], rec[70000];
  char err[256];
  for (int iter = 0; iter < 300; iter++) {
    zfs_file_meta f = random_file();
    int64_t n = zfs_file_encode(&f, payload, sizeof payload);
    CHECK_EQ(n, (int64_t)zfs_file_encoded_size(&f));
    uint32_t block = iter % 2 ? 4096 : 512;
    int64_t r = zfs_record_encode(ZFS_REC_FILE_UPDATE, (uint64_t)iter, payload, (uint32_t)n, block, rec, sizeof rec);
    CHECK(r > 0 && r % block == 0);
    zfs_record view;
    CHECK_EQ(zfs_record_decode(rec, (size_t)r, block, &view, err, sizeof err), r);
    CHECK_EQ(view.type, ZFS_REC_FILE_UPDATE);
    CHECK_EQ(view.seq, iter);
    zfs_file_meta g;
    CHECK_EQ(zfs_file_decode(view.payload, view.len, &g, err, sizeof err), n);
    same_file(&f, &g);
    zfs_file_free(&g);
    /* every truncation of the record is torn (or empty when nothing is left), never accepted */
    for (size_t cut = 0; cut < (size_t)ZFS_RECORD_HEADER + (size_t)n; cut += 1 + cut / 8) {
      int64_t rc = zfs_record_decode(rec, cut, block, &view, err, sizeof err);
      CHECK(rc == ZFS_TORN || (cut == 0 && rc == ZFS_EMPTY));
    }
    /* a flipped byte anywhere in header or payload is rejected */
    for (int k = 0; k < 20; k++) {
      size_t at = zkv_rng_next(&rng) % ((size_t)ZFS_RECORD_HEADER + (size_t)n);
      rec[at] ^= (uint8_t)(1 + zkv_rng_next(&rng) % 255);
      int64_t rc = zfs_record_decode(rec, (size_t)r, block, &view, err, sizeof err);
      CHECK(rc == ZFS_TORN || rc == ZFS_CORRUPT || rc == ZFS_UNSUPPORTED || rc == ZFS_EMPTY);
      zfs_record_encode(ZFS_REC_FILE_UPDATE, (uint64_t)iter, payload, (uint32_t)n, block, rec, sizeof rec);
    }
    /* the file decoder alone (no checksum) must survive any truncation or garbage */
    for (size_t cut = 0; cut < (size_t)n; cut++) {
      int64_t rc = zfs_file_decode(payload, cut, &g, err, sizeof err);
      CHECK(rc == ZFS_CORRUPT);
      CHECK(g.names == NULL && g.extents == NULL);
    }
    for (int k = 0; k < 50; k++) {
      uint8_t mangled[65536];
      memcpy(mangled, payload, (size_t)n);
      for (int j = 0; j < 3; j++) mangled[zkv_rng_next(&rng) % (size_t)n] = (uint8_t)zkv_rng_next(&rng);
      int64_t rc = zfs_file_decode(mangled, (size_t)n, &g, err, sizeof err);
      CHECK(rc == ZFS_CORRUPT || (rc > 0 && rc <= n));
      zfs_file_free(&g);
    }
    zfs_file_free(&f);
  }
  /* zeros mean the end of the log */
  uint8_t zeros[4096] = {0};
  zfs_record view;
  CHECK_EQ(zfs_record_decode(zeros, sizeof zeros, 4096, &view, err, sizeof err), ZFS_EMPTY);
  /* unknown types are refused by name, not skipped */
  int64_t r = zfs_record_encode(99, 1, NULL, 0, 4096, rec, sizeof rec);
  CHECK_EQ(zfs_record_decode(rec, (size_t)r, 4096, &view, err, sizeof err), ZFS_UNSUPPORTED);
  CHECK(strstr(err, "unknown record type 99") != NULL);
}

/* The sync record: round trip, and every truncation and wrong count refused cleanly. */
static void test_extend_records(void) {
  zfs_extent ext[2] = {{1 << 20, 8192}, {5 << 20, 4000}};
  zfs_file_extend x = {.id = 7, .size = 12192, .mtime = 99, .lifetime = 3, .first = 4, .n_extents = 2, .extents = ext};
  uint8_t buf[256];
  int64_t n = zfs_extend_encode(&x, buf, sizeof buf);
  CHECK_EQ(n, (int64_t)zfs_extend_encoded_size(2));
  CHECK_EQ(n, 36 + 32);
  zfs_file_extend y;
  char err[256];
  CHECK_EQ(zfs_extend_decode(buf, (size_t)n, &y, err, sizeof err), 0);
  CHECK(y.id == 7 && y.size == 12192 && y.mtime == 99 && y.lifetime == 3 && y.first == 4 && y.n_extents == 2);
  CHECK(y.extents[1].start == (5u << 20) && y.extents[1].len == 4000);
  free(y.extents);
  for (size_t cut = 0; cut < (size_t)n; cut++) CHECK_EQ(zfs_extend_decode(buf, cut, &y, err, sizeof err), ZFS_CORRUPT);
  buf[32] = 3; /* a count the payload does not hold */
  CHECK_EQ(zfs_extend_decode(buf, (size_t)n, &y, err, sizeof err), ZFS_CORRUPT);
  buf[32] = 2;
  memset(buf + 36 + 16 + 8, 0, 8); /* an empty extent */
  CHECK_EQ(zfs_extend_decode(buf, (size_t)n, &y, err, sizeof err), ZFS_CORRUPT);
  CHECK(strstr(err, "empty") != NULL);
  CHECK(zfs_extend_encode(&x, buf, 40) < 0); /* no room */
}

/* The active record (a sparse file takes a zone): round trip, and every truncation refused. */
static void test_active_records(void) {
  zfs_extent ext[1] = {{(1 << 20) + 32, 4000}};
  zfs_file_extend x = {.id = 9, .size = 4000, .mtime = 5, .lifetime = 2, .first = 0, .n_extents = 1, .extents = ext};
  uint8_t buf[256];
  int64_t n = zfs_active_encode(3u << 20, &x, buf, sizeof buf);
  CHECK_EQ(n, (int64_t)zfs_active_encoded_size(1));
  zfs_file_extend y;
  uint64_t active = 0;
  char err[256];
  CHECK_EQ(zfs_active_decode(buf, (size_t)n, &active, &y, err, sizeof err), 0);
  CHECK(active == (3u << 20) && y.id == 9 && y.n_extents == 1 && y.extents[0].len == 4000);
  free(y.extents);
  for (size_t cut = 0; cut < (size_t)n; cut++)
    CHECK_EQ(zfs_active_decode(buf, cut, &active, &y, err, sizeof err), ZFS_CORRUPT);
  CHECK(zfs_active_encode(0, &x, buf, 50) < 0); /* no room */
}

/* A sparse file's chunk header: round trip; any flipped bit, truncation, zeros or an empty chunk
 * are refused (a mount stops reading a file's chunks there). */
static void test_chunk_headers(void) {
  zfs_chunk c = {.file_id = 77, .offset = 123456, .len = 4064, .data_crc = 0xDEADBEEF}, d;
  uint8_t h[ZFS_CHUNK_HEADER];
  zfs_chunk_encode(&c, h);
  CHECK_EQ(zfs_chunk_decode(h, sizeof h, &d), 0);
  CHECK(d.file_id == 77 && d.offset == 123456 && d.len == 4064 && d.data_crc == 0xDEADBEEF);
  for (size_t bit = 0; bit < 8 * sizeof h; bit++) {
    h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    CHECK_EQ(zfs_chunk_decode(h, sizeof h, &d), ZFS_CORRUPT);
    h[bit / 8] ^= (uint8_t)(1u << (bit % 8));
  }
  for (size_t cut = 0; cut < sizeof h; cut++) CHECK_EQ(zfs_chunk_decode(h, cut, &d), ZFS_CORRUPT);
  uint8_t zeros[ZFS_CHUNK_HEADER] = {0};
  CHECK_EQ(zfs_chunk_decode(zeros, sizeof zeros, &d), ZFS_CORRUPT);
  c.len = 0;
  zfs_chunk_encode(&c, h);
  CHECK_EQ(zfs_chunk_decode(h, sizeof h, &d), ZFS_CORRUPT);
  CHECK(zfs_chunk_data_crc("abc", 3) != zfs_chunk_data_crc("abd", 3));
}

/* CRC-32C: the standard check value, and the CPU instruction path equal to the portable table
 * path for every length and alignment, also when continued over pieces. */
static void test_crc32c(void) {
  CHECK_EQ(zkv_crc32c(0, "123456789", 9), 0xE3069283u);
  CHECK_EQ(zkv_crc32c_portable(0, "123456789", 9), 0xE3069283u);
  uint8_t data[4200];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)zkv_rng_next(&rng);
  for (int k = 0; k < 500; k++) {
    size_t off = zkv_rng_next(&rng) % 16, len = zkv_rng_next(&rng) % (sizeof data - 16);
    uint32_t a = zkv_crc32c(0, data + off, len), b = zkv_crc32c_portable(0, data + off, len);
    CHECK_EQ(a, b);
    size_t cut = len ? zkv_rng_next(&rng) % len : 0;
    CHECK_EQ(zkv_crc32c(zkv_crc32c(0, data + off, cut), data + off + cut, len - cut), a);
  }
}

int main(void) {
  const char *s = getenv("ZKV_SEED");
  rng = s ? strtoull(s, NULL, 0) : 0xC0DEC;
  printf("test_meta_codec seed=%llu\n", (unsigned long long)rng);
  test_crc32c();
  test_superblock();
  test_records_and_files();
  test_extend_records();
  test_active_records();
  test_chunk_headers();
  TEST_DONE("test_meta_codec");
  return 0;
}
