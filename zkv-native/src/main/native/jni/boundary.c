/* The boundary layouts as Java checks them (see boundary.h). */
#include "boundary.h"

#include <errno.h>
#include <stddef.h>

#define RECORD(type) out[n++] = (int32_t)sizeof(type)
#define FIELD(type, field) out[n++] = (int32_t)offsetof(type, field)

int zkv_boundary_layout(int layout, int32_t *out, int cap) {
  int32_t tmp[128];
  int n = 0;
  if (cap > 128) cap = 128;
  int32_t *dst = out;
  out = tmp;
  if (layout == 0) { /* the common header and section table */
    out[n++] = 1;
    RECORD(zkv_bnd_header), FIELD(zkv_bnd_header, magic), FIELD(zkv_bnd_header, layout), FIELD(zkv_bnd_header, version),
        FIELD(zkv_bnd_header, length), FIELD(zkv_bnd_header, sections);
    RECORD(zkv_bnd_section), FIELD(zkv_bnd_section, offset), FIELD(zkv_bnd_section, record_size),
        FIELD(zkv_bnd_section, count);
  } else if (layout == ZKV_BND_ZONE_VIEW) {
    out[n++] = ZKV_VIEW_VERSION;
    RECORD(zkv_bnd_zone), FIELD(zkv_bnd_zone, start), FIELD(zkv_bnd_zone, capacity), FIELD(zkv_bnd_zone, write_pointer),
        FIELD(zkv_bnd_zone, live), FIELD(zkv_bnd_zone, copy), FIELD(zkv_bnd_zone, lifetime), FIELD(zkv_bnd_zone, flags),
        FIELD(zkv_bnd_zone, tag), FIELD(zkv_bnd_zone, io_class), FIELD(zkv_bnd_zone, owner_file);
    RECORD(zkv_bnd_file), FIELD(zkv_bnd_file, id), FIELD(zkv_bnd_file, lifetime), FIELD(zkv_bnd_file, level),
        FIELD(zkv_bnd_file, job_id), FIELD(zkv_bnd_file, name), FIELD(zkv_bnd_file, smallest),
        FIELD(zkv_bnd_file, largest);
    RECORD(zkv_bnd_zone_file), FIELD(zkv_bnd_zone_file, file_id), FIELD(zkv_bnd_zone_file, live),
        FIELD(zkv_bnd_zone_file, zone);
    RECORD(zkv_bnd_request), FIELD(zkv_bnd_request, file_id), FIELD(zkv_bnd_request, lifetime),
        FIELD(zkv_bnd_request, purpose), FIELD(zkv_bnd_request, level), FIELD(zkv_bnd_request, active_limit),
        FIELD(zkv_bnd_request, job_id), FIELD(zkv_bnd_request, name), FIELD(zkv_bnd_request, smallest),
        FIELD(zkv_bnd_request, largest), FIELD(zkv_bnd_request, expected_size);
    RECORD(zkv_bnd_decision), FIELD(zkv_bnd_decision, action), FIELD(zkv_bnd_decision, zone),
        FIELD(zkv_bnd_decision, n_finish), FIELD(zkv_bnd_decision, tag), FIELD(zkv_bnd_decision, lifetime),
        FIELD(zkv_bnd_decision, finish);
    RECORD(zkv_bnd_bytes), FIELD(zkv_bnd_bytes, offset), FIELD(zkv_bnd_bytes, length);
    RECORD(zkv_bnd_reserves), FIELD(zkv_bnd_reserves, empty_kept), FIELD(zkv_bnd_reserves, op_zones);
  } else if (layout == ZKV_BND_ZONE_STATS) {
    out[n++] = ZKV_STATS_VERSION;
    RECORD(zkv_bnd_zone_stats), FIELD(zkv_bnd_zone_stats, host_bytes), FIELD(zkv_bnd_zone_stats, stale_decisions),
        FIELD(zkv_bnd_zone_stats, overrides), FIELD(zkv_bnd_zone_stats, overrides_total),
        FIELD(zkv_bnd_zone_stats, zwal_idle_reaps), FIELD(zkv_bnd_zone_stats, mount_chunk_reads),
        FIELD(zkv_bnd_zone_stats, gc_runs), FIELD(zkv_bnd_zone_stats, zone_finishes),
        FIELD(zkv_bnd_zone_stats, gc_totals), FIELD(zkv_bnd_zone_stats, wal_zone_switches),
        FIELD(zkv_bnd_zone_stats, wal_reserved_zones), FIELD(zkv_bnd_zone_stats, lease_waits);
  } else if (layout == ZKV_BND_SUPERBLOCK) {
    out[n++] = ZKV_SUPERBLOCK_VERSION;
    RECORD(zkv_bnd_superblock), FIELD(zkv_bnd_superblock, version), FIELD(zkv_bnd_superblock, flags),
        FIELD(zkv_bnd_superblock, sequence), FIELD(zkv_bnd_superblock, block_size), FIELD(zkv_bnd_superblock, nr_zones),
        FIELD(zkv_bnd_superblock, zone_size), FIELD(zkv_bnd_superblock, zone_cap),
        FIELD(zkv_bnd_superblock, meta_zones), FIELD(zkv_bnd_superblock, finish_threshold),
        FIELD(zkv_bnd_superblock, uuid);
  } else if (layout == ZKV_BND_DEVICE_GEOMETRY) {
    out[n++] = ZKV_GEOMETRY_LAYOUT_VERSION;
    RECORD(zkv_geometry), FIELD(zkv_geometry, lba_size), FIELD(zkv_geometry, nr_zones), FIELD(zkv_geometry, zone_size),
        FIELD(zkv_geometry, zone_cap), FIELD(zkv_geometry, max_open), FIELD(zkv_geometry, max_active),
        FIELD(zkv_geometry, zasl), FIELD(zkv_geometry, flags), FIELD(zkv_geometry, meta_class_zones);
  } else if (layout == ZKV_BND_ZONE_REPORT) {
    out[n++] = ZKV_DEVICE_LAYOUT_VERSION;
    RECORD(zkv_zone), FIELD(zkv_zone, start), FIELD(zkv_zone, cap), FIELD(zkv_zone, wp), FIELD(zkv_zone, cond),
        FIELD(zkv_zone, index);
  } else if (layout == ZKV_BND_DEVICE_STATS) {
    out[n++] = ZKV_DEVICE_LAYOUT_VERSION;
    RECORD(zkv_dev_stats), FIELD(zkv_dev_stats, bytes_written), FIELD(zkv_dev_stats, errors);
  } else if (layout == ZKV_BND_EMU_PLM_STATS) {
    out[n++] = ZKV_DEVICE_LAYOUT_VERSION;
    RECORD(zkv_emu_plm_stats), FIELD(zkv_emu_plm_stats, first_zone), FIELD(zkv_emu_plm_stats, nr_zones),
        FIELD(zkv_emu_plm_stats, window), FIELD(zkv_emu_plm_stats, clock_ns), FIELD(zkv_emu_plm_stats, backlog_ns),
        FIELD(zkv_emu_plm_stats, capacity_ns), FIELD(zkv_emu_plm_stats, dirty_bytes),
        FIELD(zkv_emu_plm_stats, last_lockdown_ns), FIELD(zkv_emu_plm_stats, last_lockdown_bytes),
        FIELD(zkv_emu_plm_stats, dtwin_entries), FIELD(zkv_emu_plm_stats, autonomous_exits),
        FIELD(zkv_emu_plm_stats, writes_in_dtwin), FIELD(zkv_emu_plm_stats, reads_deterministic),
        FIELD(zkv_emu_plm_stats, reads_nondeterministic), FIELD(zkv_emu_plm_stats, reads_stalled),
        FIELD(zkv_emu_plm_stats, max_stall_ns), FIELD(zkv_emu_plm_stats, reclaim_jobs),
        FIELD(zkv_emu_plm_stats, gc_jobs), FIELD(zkv_emu_plm_stats, model_read_sum_ns),
        FIELD(zkv_emu_plm_stats, model_read_max_ns), FIELD(zkv_emu_plm_stats, model_reads_over_200us);
  } else if (layout == ZKV_BND_PLM_ARRAY_STATS) {
    out[n++] = ZKV_DEVICE_LAYOUT_VERSION;
    RECORD(zkv_plm_array_stats), FIELD(zkv_plm_array_stats, window), FIELD(zkv_plm_array_stats, held_writes),
        FIELD(zkv_plm_array_stats, held_bytes), FIELD(zkv_plm_array_stats, hold_capacity),
        FIELD(zkv_plm_array_stats, writes_direct), FIELD(zkv_plm_array_stats, writes_held),
        FIELD(zkv_plm_array_stats, bytes_drained), FIELD(zkv_plm_array_stats, writes_forced),
        FIELD(zkv_plm_array_stats, reads_direct), FIELD(zkv_plm_array_stats, reads_reconstructed),
        FIELD(zkv_plm_array_stats, reads_from_buffer), FIELD(zkv_plm_array_stats, journal_bytes),
        FIELD(zkv_plm_array_stats, writes_unscheduled);
  } else if (layout == ZKV_BND_HOST_LATENESS) {
    out[n++] = ZKV_DEVICE_LAYOUT_VERSION;
    RECORD(zkv_emu_lateness), FIELD(zkv_emu_lateness, completions), FIELD(zkv_emu_lateness, late),
        FIELD(zkv_emu_lateness, worst_late_ns);
  } else if (layout == ZKV_BND_META_STATUS) {
    out[n++] = ZKV_META_STATUS_VERSION;
    RECORD(zkv_bnd_meta_status), FIELD(zkv_bnd_meta_status, state), FIELD(zkv_bnd_meta_status, sequence),
        FIELD(zkv_bnd_meta_status, message);
  } else if (layout == ZKV_BND_FILE_LIST) {
    out[n++] = ZKV_FILE_LIST_VERSION;
    RECORD(zkv_bnd_fs_file), FIELD(zkv_bnd_fs_file, id), FIELD(zkv_bnd_fs_file, size), FIELD(zkv_bnd_fs_file, mtime),
        FIELD(zkv_bnd_fs_file, lifetime), FIELD(zkv_bnd_fs_file, n_names), FIELD(zkv_bnd_fs_file, first_name),
        FIELD(zkv_bnd_fs_file, n_extents), FIELD(zkv_bnd_fs_file, first_extent);
    RECORD(zkv_bnd_extent), FIELD(zkv_bnd_extent, start), FIELD(zkv_bnd_extent, length);
  } else if (layout == ZKV_BND_PATH_USAGE) {
    out[n++] = ZKV_PATH_USAGE_VERSION;
    RECORD(zkv_bnd_path_usage), FIELD(zkv_bnd_path_usage, files), FIELD(zkv_bnd_path_usage, bytes),
        FIELD(zkv_bnd_path_usage, sst_files), FIELD(zkv_bnd_path_usage, sst_bytes);
  } else if (layout == ZKV_BND_ZONE_USAGE) {
    out[n++] = ZKV_ZONE_USAGE_VERSION;
    RECORD(zkv_bnd_zone); /* fields: as in the zone view */
  } else {
    return -1;
  }
  for (int i = 0; i < n && i < cap; i++) dst[i] = tmp[i];
  return n < cap ? n : cap;
}

#include <string.h>

#define FIRST_RECORD ((sizeof(zkv_bnd_header) + sizeof(zkv_bnd_section) + 7) / 8 * 8)

int zkv_boundary_write_section(void *dst, size_t cap, int layout, int version, uint32_t size, uint32_t count) {
  size_t total = FIRST_RECORD + ((size_t)size * count + 7u) / 8 * 8;
  if (!dst || cap < total || total > INT32_MAX) return -ENOBUFS;
  memset(dst, 0, total);
  zkv_bnd_header h = {ZKV_BOUNDARY_MAGIC, (uint16_t)layout, (uint16_t)version, (uint32_t)total, 1};
  zkv_bnd_section s = {(uint32_t)FIRST_RECORD, size, count, 0};
  memcpy(dst, &h, sizeof h);
  memcpy((uint8_t *)dst + sizeof h, &s, sizeof s);
  return (int)total;
}

void *zkv_boundary_records(void *dst) { return (uint8_t *)dst + FIRST_RECORD; }

static size_t section_table_end(uint32_t n) {
  return (sizeof(zkv_bnd_header) + (size_t)n * sizeof(zkv_bnd_section) + 7) / 8 * 8;
}

static size_t section_bytes(uint32_t size, uint32_t count) { return ((size_t)size * count + 7u) / 8 * 8; }

size_t zkv_boundary_sections_size(uint32_t n, const uint32_t *sizes, const uint32_t *counts) {
  size_t at = section_table_end(n);
  for (uint32_t i = 0; i < n; i++) at += section_bytes(sizes[i], counts[i]);
  return at;
}

int zkv_boundary_write_sections(void *dst, size_t cap, int layout, int version, uint32_t n, const uint32_t *sizes,
                                const uint32_t *counts) {
  size_t total = zkv_boundary_sections_size(n, sizes, counts), at = section_table_end(n);
  if (!dst || cap < total || total > INT32_MAX) return -ENOBUFS;
  memset(dst, 0, total);
  zkv_bnd_header h = {ZKV_BOUNDARY_MAGIC, (uint16_t)layout, (uint16_t)version, (uint32_t)total, n};
  memcpy(dst, &h, sizeof h);
  for (uint32_t i = 0; i < n; i++) {
    zkv_bnd_section s = {(uint32_t)at, sizes[i], counts[i], 0};
    memcpy((uint8_t *)dst + sizeof h + i * sizeof s, &s, sizeof s);
    at += section_bytes(sizes[i], counts[i]);
  }
  return (int)total;
}

void *zkv_boundary_section(void *dst, uint32_t i) {
  zkv_bnd_section s;
  memcpy(&s, (uint8_t *)dst + sizeof(zkv_bnd_header) + i * sizeof s, sizeof s);
  return (uint8_t *)dst + s.offset;
}

void zkv_boundary_set_count(void *dst, uint32_t count) {
  zkv_bnd_header h;
  zkv_bnd_section s;
  memcpy(&h, dst, sizeof h);
  memcpy(&s, (uint8_t *)dst + sizeof h, sizeof s);
  if (count > s.count) return;
  s.count = count;
  h.length = (uint32_t)(FIRST_RECORD + ((size_t)s.record_size * count + 7u) / 8 * 8);
  memcpy(dst, &h, sizeof h);
  memcpy((uint8_t *)dst + sizeof h, &s, sizeof s);
}

int zkv_boundary_write_single(void *dst, size_t cap, int layout, int version, const void *record, uint32_t size) {
  int n = zkv_boundary_write_section(dst, cap, layout, version, size, 1);
  if (n > 0) memcpy(zkv_boundary_records(dst), record, size);
  return n;
}

const void *zkv_boundary_read_single(const void *src, size_t cap, int layout, int version, uint32_t size) {
  zkv_bnd_header h;
  zkv_bnd_section s;
  if (!src || cap < FIRST_RECORD + size) return NULL;
  memcpy(&h, src, sizeof h);
  memcpy(&s, (const uint8_t *)src + sizeof h, sizeof s);
  if (h.magic != ZKV_BOUNDARY_MAGIC || h.layout != layout || h.version != version || h.length > cap ||
      h.sections != 1 || s.offset != FIRST_RECORD || s.record_size != size || s.count != 1 ||
      (uint64_t)s.offset + size > h.length)
    return NULL;
  return (const uint8_t *)src + FIRST_RECORD;
}

void zkv_boundary_zone(const zfs_zone_info *z, zkv_bnd_zone *out) {
  *out = (zkv_bnd_zone){.start = z->start,
                        .capacity = z->capacity,
                        .write_pointer = z->wp,
                        .live = z->live,
                        .copy = z->copy,
                        .lifetime = z->lifetime,
                        .flags = (z->meta ? ZKV_ZONE_META : 0u) | (z->busy ? ZKV_ZONE_BUSY : 0u) |
                                 (z->victim_ok ? ZKV_ZONE_VICTIM_OK : 0u) |
                                 (z->wal_reserved ? ZKV_ZONE_WAL_RESERVED : 0u) | (z->leased ? ZKV_ZONE_LEASED : 0u),
                        .tag = z->tag,
                        .io_class = z->io_class,
                        .owner_file = z->owner_file};
}

void zkv_boundary_zone_stats(const zfs_stats *s, zkv_bnd_zone_stats *out) {
  *out = (zkv_bnd_zone_stats){s->host_bytes,
                              s->padding_bytes,
                              s->gc_bytes,
                              s->meta_bytes,
                              s->resets,
                              s->resets_without_copy,
                              s->meta_rolls,
                              s->live_bytes,
                              s->used_zone_bytes,
                              s->files,
                              s->data_zones,
                              s->empty_zones,
                              s->full_zones,
                              s->open_zones,
                              s->owned_zones,
                              s->policy_decisions,
                              s->fallback_allocations,
                              s->zone_steals,
                              s->policy_decisions_total,
                              s->fallback_allocations_total,
                              s->zone_steals_total,
                              s->device_errors,
                              s->reserve_refusals,
                              s->stale_decisions,
                              {0},
                              {0},
                              s->zwal_idle_reaps,
                              s->wal_zone_finishes,
                              s->mount_chunk_scan_ns,
                              s->mount_chunks,
                              s->mount_chunk_bytes,
                              s->mount_chunk_reads,
                              s->gc_runs,
                              s->gc_zones,
                              s->zone_finishes,
                              {0},
                              s->wal_zone_switches,
                              s->wal_zone_waits,
                              s->wal_zone_wait_max_ns,
                              s->wal_reserve_returns,
                              s->wal_reserve_declined,
                              s->wal_reserved_zones,
                              s->lease_collections,
                              s->gc_rounds_for_room,
                              s->lease_waits};
  for (int i = 0; i < 6; i++) out->gc_totals[i] = s->gc_totals[i];
  for (int i = 0; i < ZFS_OVERRIDES; i++) out->overrides[i] = s->overrides[i];
  for (int i = 0; i < ZFS_OVERRIDES; i++) out->overrides_total[i] = s->overrides_total[i];
}

static void add_usage(const char *name, uint64_t size, void *arg) {
  zkv_bnd_path_usage *u = arg;
  size_t len = strlen(name);
  u->files++;
  u->bytes += size;
  if (len >= 4 && strcmp(name + len - 4, ".sst") == 0) {
    u->sst_files++;
    u->sst_bytes += size;
  }
}

int zkv_boundary_path_usage(zfs *fs, const char *prefix, zkv_bnd_path_usage *out) {
  *out = (zkv_bnd_path_usage){0, 0, 0, 0};
  return zfs_list(fs, prefix, add_usage, out);
}
